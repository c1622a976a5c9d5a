// Pairs (parejas fijas): a pair's page (/pair/{name}: its partners, record, rating per variant and
// recent games) and the pairs' leaderboard (/pairs?preset=..., with one's own pairs and proposals
// and a form to propose one). Loaded with import() only when such a path is opened (the first
// page does not know these paths: missing.js hands them here), with its words; the styles are
// ratings.css's (the leaderboards') and pairs.css. The routes are docs/protocol.md §11.
import { api } from "./net.js";
import { h, app, store, toast } from "./dom.js";
import { t, tn, STRINGS } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import { errorText } from "./model.js";
import { ratingText } from "./ratings.js";

const PRESETS = ["havana", "miami", "oriente", "barrio"];

Object.assign(STRINGS.es, {
  pr_title: "Parejas",
  pr_board: "Clasificación de parejas: {preset}",
  pr_hint: "Una pareja fija tiene su propio ranking por modalidad. Solo cuentan las asentadas ({n} partidas juntos o más).",
  pr_empty: "Aún ninguna pareja tiene {n} partidas con ranking en esta modalidad.",
  pr_pair: "Pareja",
  pr_partners: "Compañeros",
  pr_none: "No hay ninguna pareja con ese nombre.",
  pr_record: "Su récord juntos",
  pr_games: "{n} partidas",
  pr_games_one: "{n} partida",
  pr_won: "{n} ganadas",
  pr_won_one: "{n} ganada",
  pr_lost: "{n} perdidas",
  pr_lost_one: "{n} perdida",
  pr_pollonas: "Pollonas: {given} dadas, {suffered} recibidas",
  pr_points: "Tantos: {for} a favor, {against} en contra",
  pr_ratings: "Ranking de la pareja",
  pr_no_ratings: "Aún sin partidas con ranking juntos.",
  pr_recent: "Partidas recientes",
  pr_no_recent: "Aún no han jugado juntos desde que son pareja.",
  pr_won_game: "ganada",
  pr_lost_game: "perdida",
  pr_since: "Pareja desde el {date}",
  pr_mine: "Mis parejas",
  pr_incoming: "Te proponen",
  pr_outgoing: "Esperando respuesta",
  pr_with: "con {name}",
  pr_propose: "Formar una pareja",
  pr_name_ph: "Nombre de la pareja",
  pr_partner_ph: "Cuenta de tu compañero",
  pr_send: "Proponer",
  pr_sent: "Propuesta enviada a {name}.",
  pr_accept: "Aceptar",
  pr_decline: "Rechazar",
  pr_dissolve: "Deshacer la pareja",
  pr_withdraw: "Retirar",
  pr_play: "Jugar ahora como pareja",
  pr_account: "Para formar parejas hace falta una cuenta.",
  pr_tournaments: "Torneos de parejas",
});
Object.assign(STRINGS.en, {
  pr_title: "Pairs",
  pr_board: "Pairs leaderboard: {preset}",
  pr_hint: "A fixed pair has its own rating per variant. Only settled pairs count ({n} games together or more).",
  pr_empty: "No pair has {n} rated games in this variant yet.",
  pr_pair: "Pair",
  pr_partners: "Partners",
  pr_none: "No pair has that name.",
  pr_record: "Their record together",
  pr_games: "{n} games",
  pr_games_one: "{n} game",
  pr_won: "{n} won",
  pr_lost: "{n} lost",
  pr_pollonas: "Pollonas: {given} given, {suffered} suffered",
  pr_points: "Points: {for} for, {against} against",
  pr_ratings: "The pair's rating",
  pr_no_ratings: "No rated games together yet.",
  pr_recent: "Recent games",
  pr_no_recent: "They have not played together since they became a pair.",
  pr_won_game: "won",
  pr_lost_game: "lost",
  pr_since: "A pair since {date}",
  pr_mine: "My pairs",
  pr_incoming: "Proposed to you",
  pr_outgoing: "Waiting for an answer",
  pr_with: "with {name}",
  pr_propose: "Form a pair",
  pr_name_ph: "The pair's name",
  pr_partner_ph: "Your partner's account",
  pr_send: "Propose",
  pr_sent: "Proposal sent to {name}.",
  pr_accept: "Accept",
  pr_decline: "Decline",
  pr_dissolve: "Dissolve the pair",
  pr_withdraw: "Withdraw",
  pr_play: "Play now as a pair",
  pr_account: "Forming pairs needs an account.",
  pr_tournaments: "Pair tournaments",
});

if (!document.getElementById("pairs-css")) {
  document.head.appendChild(h("link", { id: "pairs-css", rel: "stylesheet", href: new URL("../css/pairs.css", import.meta.url).href }));
}

const go = (href, text, attrs = {}) => h("a", { href, onclick: (e) => (e.preventDefault(), app.go(href)), ...attrs }, text);
const pairHref = (name) => `/pair/${encodeURIComponent(name)}`;
const person = (name) => (name ? go(`/u/${encodeURIComponent(name)}`, name, { class: "partner" }) : h("span", {}, "—"));
const me = () => {
  const g = store.get("guest");
  return g && g.account ? g : null;
};
const when = (ts) => new Date(ts * 1000).toLocaleDateString(document.documentElement.lang === "en" ? "en-GB" : "es-ES", { year: "numeric", month: "short", day: "numeric" });

/** The screen for the path opened: a pair's page or the leaderboard. */
export function openPairs() {
  const found = location.pathname.match(/^\/pair\/([^/]+)/);
  if (found) openPair(decodeURIComponent(found[1]));
  else openBoard(new URLSearchParams(location.search).get("preset"));
}

function screen(main) {
  app.root.replaceChildren(header([langSelect()]), main);
}

async function act(path, method = "POST", body = undefined) {
  const g = me();
  try {
    const r = await api(path, { method, token: g && g.token, body });
    return r;
  } catch (e) {
    toast(errorText(e));
    return null;
  }
}

// -- a pair's page ------------------------------------------------------------------------------

export async function openPair(name) {
  const main = h("main", { class: "pair-page", id: "pair" }, h("p", { role: "status" }, t("loading")));
  const s = { render: () => openPair(name), close: () => {} };
  app.club = s;
  screen(main);
  let p;
  try {
    p = await api(`/api/pairs/${encodeURIComponent(name)}`);
  } catch (e) {
    main.replaceChildren(h("p", { class: "error", id: "pair-error" }, e.status === 404 ? t("pr_none") : errorText(e)),
      h("p", {}, go("/pairs", t("pr_title"))));
    return;
  }
  if (app.club !== s) return;
  const r = p.record;
  const ratings = PRESETS.filter((x) => p.ratings[x]).map((x) => h("li", { class: "rating", id: `pair-rating-${x}` },
    h("span", { class: "preset" }, t(`variant_${x}`)),
    h("strong", { class: "value" }, ratingText(p.ratings[x])),
    h("span", { class: "games" }, tn("pr_games", p.ratings[x].games))));
  const mine = me() && p.partners.includes(me().account);
  main.replaceChildren(...[
    h("h1", { id: "pair-name" }, p.name),
    h("p", { class: "partners", id: "pair-partners" }, t("pr_partners"), ": ", person(p.partners[0]), " · ", person(p.partners[1])),
    h("p", { class: "since" }, t("pr_since", { date: when(p.formed) })),
    mine ? h("p", { class: "row pair-actions" },
      h("button", { type: "button", class: "primary", id: "pair-play", onclick: () => playTogether(p.name) }, t("pr_play")),
      h("button", { type: "button", id: "pair-dissolve", onclick: async () => (await act(`/api/pairs/${encodeURIComponent(p.name)}`, "DELETE")) && app.go("/pairs") }, t("pr_dissolve"))) : null,
    h("h2", {}, t("pr_record")),
    h("ul", { class: "stats", id: "pair-record" },
      h("li", {}, tn("pr_games", r.games)), h("li", {}, tn("pr_won", r.won)), h("li", {}, tn("pr_lost", r.lost)),
      h("li", {}, t("pr_pollonas", { given: r.pollonas_given, suffered: r.pollonas_suffered })),
      h("li", {}, t("pr_points", { for: r.points_for, against: r.points_against }))),
    h("h2", {}, t("pr_ratings")),
    ratings.length ? h("ul", { class: "ratings", id: "pair-ratings" }, ratings) : h("p", { id: "pair-no-ratings" }, t("pr_no_ratings")),
    h("h2", {}, t("pr_recent")),
    p.recent.length ? h("ul", { class: "pair-games", id: "pair-recent" }, p.recent.map((g) => h("li", { class: g.won ? "up" : "down" },
      go(g.page, `${when(g.finished)} · ${t(`short_${g.preset}`)}`),
      ` · ${t(g.won ? "pr_won_game" : "pr_lost_game")} ${g.points_for}–${g.points_against} · ${g.before} → ${g.after}`)))
      : h("p", { id: "pair-no-recent" }, t("pr_no_recent")),
    h("p", { class: "row" }, go("/pairs", t("pr_title")), " · ", go("/", t("back_home")))].filter(Boolean));
}

/** The quick match as this pair: a party whose invitation reaches the partner's bell, and me
 *  in the queue with it (the server seats us as partners, by the pair's rating). */
async function playTogether(name) {
  const p = await act(`/api/pairs/${encodeURIComponent(name)}/party`);
  if (p) (await import("./lobby.js")).openQueue(me(), "havana", p.party);
}

// -- the leaderboard, my pairs, a proposal -------------------------------------------------------

export function openBoard(preset) {
  const s = { preset: PRESETS.includes(preset) ? preset : "havana", board: null, mine: null, error: null, closed: false };
  s.render = () => !s.closed && drawBoard(s);
  s.close = () => (s.closed = true);
  app.club = s;
  s.render();
  api(`/api/pairs?preset=${s.preset}`).then((b) => (s.board = b), (e) => (s.error = errorText(e))).then(s.render);
  if (me()) api("/api/me/pairs", { token: me().token }).then((m) => ((s.mine = m), s.render()), () => {});
}

function boardTable(b) {
  if (!b.pairs.length) return h("p", { class: "notice", id: "pairs-empty", role: "status" }, t("pr_empty", { n: b.min_games }));
  return h("table", { class: "leaderboard", id: "pairs-table" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("leaderboard_rank")), h("th", { scope: "col" }, t("pr_pair")),
      h("th", { scope: "col", class: "partners" }, t("pr_partners")),
      h("th", { scope: "col", class: "num" }, t("leaderboard_rating")), h("th", { scope: "col", class: "num" }, t("leaderboard_games")))),
    h("tbody", {}, b.pairs.map((p) => h("tr", { "data-rank": p.rank },
      h("td", { class: "rank" }, String(p.rank)),
      // On a phone the partners go under the pair's name (their column is hidden: pairs.css).
      h("td", { class: "name" }, go(pairHref(p.name), p.name), h("span", { class: "sub" }, person(p.partners[0]), " · ", person(p.partners[1]))),
      h("td", { class: "partners" }, person(p.partners[0]), " · ", person(p.partners[1])),
      h("td", { class: "num rating" }, ratingText(p)),
      h("td", { class: "num" }, String(p.games))))));
}

function mineBlock(s) {
  if (!me()) return h("p", { class: "hint", id: "pairs-account" }, t("pr_account"));
  const m = s.mine || { pairs: [], incoming: [], outgoing: [] };
  const again = () => openBoard(s.preset);
  const list = (key, rows, buttons) => rows.length ? h("section", { class: "pairs-mine", id: `pairs-${key}` }, h("h3", {}, t(`pr_${key}`)),
    h("ul", {}, rows.map((p) => h("li", {}, key === "mine" ? go(pairHref(p.name), p.name) : h("strong", {}, p.name), " ", t("pr_with", { name: p.partner || "—" }), " ", ...buttons(p))))) : null;
  const path = (p, what = "") => `/api/pairs/${encodeURIComponent(p.name)}${what}`;
  const name = h("input", { id: "pair-name-input", maxlength: 20, autocomplete: "off", placeholder: t("pr_name_ph"), "aria-label": t("pr_name_ph") });
  const partner = h("input", { id: "pair-partner-input", maxlength: 20, autocomplete: "off", placeholder: t("pr_partner_ph"), "aria-label": t("pr_partner_ph") });
  const form = h("form", { class: "pair-form", id: "pair-form", onsubmit: async (e) => {
    e.preventDefault();
    if (await act("/api/pairs", "POST", { name: name.value.trim(), partner: partner.value.trim() })) (toast(t("pr_sent", { name: partner.value.trim() })), again());
  } }, h("h3", {}, t("pr_propose")), name, partner, h("button", { type: "submit", class: "primary" }, t("pr_send")));
  return h("div", { class: "pairs-own" },
    list("mine", m.pairs, () => []),
    list("incoming", m.incoming, (p) => [
      h("button", { type: "button", class: "primary", onclick: async () => (await act(path(p, "/accept"))) && again() }, t("pr_accept")),
      h("button", { type: "button", onclick: async () => (await act(path(p, "/decline"))) && again() }, t("pr_decline"))]),
    list("outgoing", m.outgoing, (p) => [h("button", { type: "button", onclick: async () => (await act(path(p), "DELETE")) && again() }, t("pr_withdraw"))]),
    form);
}

function drawBoard(s) {
  const tabs = h("nav", { class: "preset-tabs", "aria-label": t("leaderboard_presets") },
    PRESETS.map((x) => go(`/pairs?preset=${x}`, t(`short_${x}`), { title: t(`variant_${x}`), class: "preset-tab", "data-preset": x, "aria-current": x === s.preset ? "page" : null })));
  screen(h("main", { class: "club leaderboards pairs-board", id: "pairs", "data-preset": s.preset },
    h("h1", {}, t("pr_board", { preset: t(`short_${s.preset}`) })),
    tabs,
    s.board ? h("p", { class: "hint" }, t("pr_hint", { n: s.board.min_games })) : null,
    s.error ? h("p", { class: "error", role: "alert" }, s.error) : s.board ? boardTable(s.board) : h("p", { role: "status" }, t("loading")),
    mineBlock(s),
    h("p", { class: "row" }, go("/leaderboards/havana", t("leaderboards")), " · ", go("/tournaments", t("pr_tournaments"), { id: "pairs-tournaments" }), " · ", go("/", t("back_home")))));
}
