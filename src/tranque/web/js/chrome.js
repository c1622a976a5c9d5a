// The bar at the top of every screen, and the small line icons its buttons show (drawn here:
// the page fetches no icon font and no image for them).
import { h, app } from "./dom.js";
import { t, getLang, setLang, LANGS } from "./i18n.js";
import { tileSVG } from "./tiles.js";

const NS = "http://www.w3.org/2000/svg";
const ICONS = {
  // three sliders: the settings
  settings: ["M3 6h11M18 6h3M3 12h3M10 12h11M3 18h13M20 18h1", [[16, 6], [8, 12], [18, 18]]],
  // a check mark: the verification
  verify: ["M4.5 12.5l5 5L20 7", []],
  // a turning arrow: the last hand again
  last: ["M4 12a8 8 0 1 0 2.6-5.9M4 4v4.5h4.5", []],
};

export function icon(name) {
  const [d, knobs] = ICONS[name];
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(NS, "path");
  path.setAttribute("d", d);
  svg.appendChild(path);
  for (const [cx, cy] of knobs) {
    const c = document.createElementNS(NS, "circle");
    c.setAttribute("cx", cx);
    c.setAttribute("cy", cy);
    c.setAttribute("r", "2.2");
    svg.appendChild(c);
  }
  return svg;
}

/** A header button: an icon, and its words (read aloud always, shown where there is room). */
export function iconButton(id, name, label, onclick, extra = null) {
  return h("button", { id, class: "icon-btn", type: "button", title: label, onclick },
    icon(name), h("span", { class: "btn-text" }, label), extra);
}

export function langSelect() {
  return h("label", { class: "lang" }, h("span", { class: "sr" }, t("language")),
    h("select", {
      id: "lang",
      onchange: async (e) => {
        await setLang(e.target.value);
        document.documentElement.lang = getLang();
        app.render();
      },
    }, LANGS.map((l) => h("option", { value: l.code, selected: l.code === getLang(), title: l.name }, l.code.toUpperCase()))));
}

/** The play chips' balance (``app.chips``, read by app.js at each screen and by chips.js), a link
 * to its page; nothing until it is known. A table has its own line for it (the pot). */
export function chipsBadge() {
  const b = app.chips;
  return b ? h("a", { id: "chip-balance", class: "chip-balance", href: "/chips", onclick: (e) => (e.preventDefault(), app.go("/chips")) },
    t("chips_balance", { n: Number(b.balance).toLocaleString(getLang()) })) : null;
}

/** "Volver a tu mesa": the way back to the game this person is playing (``app.myTable``, checked
 * by app.js at each screen), on every screen but a table's; nothing when there is none. */
export function backToTable() {
  const id = app.myTable;
  if (!id) return null;
  const href = `/t/${encodeURIComponent(id)}`;
  return h("a", { id: "back-to-table", class: "back-to-table", href, onclick: (e) => (e.preventDefault(), app.go(href)) }, t("back_to_table"));
}

export function header(extra = [], { table = false } = {}) {
  return h("header", { class: `top${table ? " on-table" : ""}` },
    h("a", { class: "brand", href: "/", onclick: (e) => (e.preventDefault(), app.go("/")) },
      h("span", { class: "brand-tile" }, tileSVG(5, 2, { vertical: true })), h("span", { class: "brand-text" }, "tranque")),
    table ? null : backToTable(),
    h("div", { class: "top-extra" }, table ? null : chipsBadge(), app.bell && app.bell(), extra));
}
