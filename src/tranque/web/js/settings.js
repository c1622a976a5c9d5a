// The player's settings, kept in this browser: tile size, sound, confirm before playing, the
// beginner's aid, the notification of a turn in a background tab. The dialog that sets them is
// settings-panel.js, fetched when first opened.
import { store } from "./dom.js";

const DEFAULTS = { tiles: "m", sound: true, confirm: false, aid: false, notify: false };
export const SIZES = ["s", "m", "l"];

let current = null;

export function settings() {
  if (!current) {
    const saved = store.get("settings", {});
    current = { ...DEFAULTS, ...(saved && typeof saved === "object" ? saved : {}) };
    if (!SIZES.includes(current.tiles)) current.tiles = DEFAULTS.tiles;
  }
  return current;
}

export function setSetting(key, value) {
  settings()[key] = value;
  store.set("settings", current);
  applySettings();
}

/** What the stylesheet reads: the tile size. */
export function applySettings() {
  document.documentElement.dataset.tiles = settings().tiles;
}

/** The beginner's aid may show here: asked for, and never at a rated table. */
export function aidAllowed(info) {
  return settings().aid && !(info && info.rated);
}

let panel = null; // settings-panel.js, once fetched

/** The settings dialog's content (`done` closes it, `changed` redraws the screen), or null the
 *  first time, while its module comes: `changed` draws it then. */
export function settingsPanel(done, changed) {
  if (panel) return panel.settingsPanel(done, changed);
  import("./settings-panel.js").then((m) => ((panel = m), changed()), () => {});
  return null;
}
