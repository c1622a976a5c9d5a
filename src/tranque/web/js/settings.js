// The player's settings, kept in this browser: tile size, sound, confirm before playing, the
// beginner's aid, the notification of a turn in a background tab. And the dialog that sets them.
import { h, store } from "./dom.js";
import { t, getLang, setLang, LANGS } from "./i18n.js";

const DEFAULTS = { tiles: "m", sound: true, confirm: false, aid: false, notify: false };
const SIZES = ["s", "m", "l"];

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

function check(key, label, hint, onchange = null) {
  const id = `set-${key}`;
  return h("div", { class: "set-row" },
    h("label", { class: "check", for: id },
      h("input", { id, type: "checkbox", checked: settings()[key], onchange: (e) => {
        setSetting(key, e.target.checked);
        if (onchange) onchange(e.target.checked);
      } }),
      label),
    hint ? h("p", { class: "hint" }, hint) : null);
}

async function askToNotify(on) {
  if (!on || typeof Notification === "undefined" || Notification.permission !== "default") return;
  try {
    await Notification.requestPermission();
  } catch {
    /* an old browser: no notification, the title and the icon still change */
  }
}

/** The settings panel (shown in a dialog); `done` closes it, `changed` redraws the screen. */
export function settingsPanel(done, changed) {
  const size = h("fieldset", { class: "modes", id: "set-tiles" },
    h("legend", {}, t("set_tiles")),
    SIZES.map((s) => h("label", { class: "radio" },
      h("input", { type: "radio", name: "tiles", value: s, checked: settings().tiles === s, onchange: () => (setSetting("tiles", s), changed()) }),
      t(`set_tiles_${s}`))));
  const lang = h("select", {
    id: "set-lang",
    onchange: (e) => {
      setLang(e.target.value);
      document.documentElement.lang = getLang();
      changed();
    },
  }, LANGS.map((l) => h("option", { value: l.code, selected: l.code === getLang() }, l.name)));
  return h("section", { class: "panel settings", id: "settings" },
    h("h2", { id: "settings-title" }, t("settings")),
    size,
    check("sound", t("set_sound"), null),
    check("confirm", t("set_confirm"), t("set_confirm_hint")),
    check("aid", t("set_aid"), t("set_aid_hint"), changed),
    check("notify", t("set_notify"), t("set_notify_hint"), askToNotify),
    h("div", { class: "set-row" }, h("label", { for: "set-lang" }, t("language")), lang),
    h("p", {}, h("a", { href: "/help.html", target: "_blank", rel: "noopener", id: "help-from-settings" }, t("help_link"))),
    h("button", { class: "primary close", id: "close-settings", onclick: done }, t("close")));
}
