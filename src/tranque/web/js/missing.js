// The screen of a path nobody serves (the server answers it with the page and status 404):
// the site's look, the visitor's language, and the ways back. Loaded with import() only then;
// its words come with it.
import { h, app } from "./dom.js";
import { t, STRINGS } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import { tileSVG } from "./tiles.js";

Object.assign(STRINGS.es, {
  nf_title: "Aquí no hay nada",
  nf_games: "Partidas recientes",
  nf_text: "La dirección {path} no lleva a ninguna página de tranque. Quizá se escribió mal, o el enlace es viejo.",
});
Object.assign(STRINGS.en, {
  nf_title: "Nothing here",
  nf_games: "Recent games",
  nf_text: "The address {path} leads to no page of tranque. It may be mistyped, or the link is old.",
});

const to = (href, text, attrs) => h("a", { href, onclick: (e) => (e.preventDefault(), app.go(href)), ...attrs }, text);

export function openMissing() {
  // The pairs' pages (/pair/{name}, /pairs) are not among the first page's paths, so that their
  // module costs the first load nothing: they come here, and go on to pairs.js.
  if (/^\/pairs?(\/|$)/.test(location.pathname)) return import("./pairs.js").then((p) => p.openPairs());
  // The peñas' pages (/pena/{name}, /penas) likewise, to penas.js.
  if (/^\/penas?(\/|$)/.test(location.pathname)) return import("./penas.js").then((p) => p.openPenas());
  // The tournaments' pages likewise (tournaments.js).
  if (/^\/tournaments?(\/|$)/.test(location.pathname)) return import("./tournaments.js").then((m) => m.openTournaments());
  const draw = () => app.root.replaceChildren(header([langSelect()]),
    h("main", { class: "missing", id: "not-found" },
      h("section", { class: "card" },
        h("span", { class: "hero-tile", "aria-hidden": "true" }, tileSVG(0, 0, { vertical: true })),
        h("h1", {}, t("nf_title")),
        h("p", {}, t("nf_text", { path: location.pathname })),
        h("p", {}, to("/", t("back_home"), { id: "go-home", class: "btn primary" })),
        h("p", {}, to("/lobby", t("lobby"), { id: "go-lobby" }), " · ", to("/games", t("nf_games"), { id: "go-games" })))));
  app.game = draw;
  draw();
}
