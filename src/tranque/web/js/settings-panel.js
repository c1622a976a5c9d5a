// The settings dialog: tile size, sound, confirm before playing, the beginner's aid, the
// notification of a turn, the language. Fetched when first opened (settings.js), not with the page.
import { h } from "./dom.js";
import { t, getLang, setLang, LANGS } from "./i18n.js";
import { SIZES, settings, setSetting } from "./settings.js";

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
    onchange: async (e) => {
      await setLang(e.target.value);
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
