// Ratings in the page (loaded when first needed, not with the page; the seats' ratings beside
// their names are talk.js's): each person's change at the end of a game (the `rating` frame,
// pushed by the server once the record is saved; docs/protocol.md §5.7), the ratings on the
// lobby's seats, and the leaderboards per preset (/leaderboards/{preset}). Its styles are
// css/ratings.css, linked when this module first runs.
import { api } from "./net.js";
import { h, app } from "./dom.js";
import { t, STRINGS } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import * as M from "./model.js";

const PRESETS = ["havana", "miami", "oriente", "barrio"];

Object.assign(STRINGS.es, {
  leaderboards: "Clasificación",
  short_havana: "La Habana",
  short_miami: "Miami",
  short_oriente: "Oriente",
  short_barrio: "De barrio",
  leaderboard_title: "Clasificación: {preset}",
  leaderboard_hint: "Solo cuentan los rankings asentados ({n} partidas o más), por orden de rating menos tres desviaciones: una racha de suerte no sube a nadie.",
  leaderboard_empty: "Aún nadie tiene {n} partidas con ranking en esta modalidad.",
  leaderboard_rank: "Puesto",
  leaderboard_name: "Jugador",
  leaderboard_rating: "Ranking",
  leaderboard_games: "Partidas",
  leaderboard_presets: "Modalidades",
  back_lobby: "Volver a las mesas públicas",
  pairs_board: "Parejas",
  seat_provisional: "Ranking provisional ({n} partidas)",
  rating_pending: "Calculando el ranking…",
  your_change: "Tu ranking: {after} ({change})",
});

Object.assign(STRINGS.en, {
  leaderboards: "Leaderboards",
  short_havana: "Havana",
  short_miami: "Miami",
  short_oriente: "Oriente",
  short_barrio: "Barrio",
  leaderboard_title: "Leaderboard: {preset}",
  leaderboard_hint: "Only settled ratings count ({n} games or more), ranked by rating minus three deviations: a lucky run lifts nobody.",
  leaderboard_empty: "Nobody has {n} rated games in this variant yet.",
  leaderboard_rank: "Rank",
  leaderboard_name: "Player",
  leaderboard_rating: "Rating",
  leaderboard_games: "Games",
  leaderboard_presets: "Variants",
  back_lobby: "Back to the public tables",
  pairs_board: "Pairs",
  seat_provisional: "Provisional rating ({n} games)",
  rating_pending: "Working out the ratings…",
  your_change: "Your rating: {after} ({change})",
});

// The styles come with the module (the first load's CSS stays as it is).
if (!document.getElementById("ratings-css")) {
  document.head.appendChild(h("link", { id: "ratings-css", rel: "stylesheet", href: new URL("../css/ratings.css", import.meta.url).href }));
}

const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `-${-n}` : "±0");

/** A rating as shown: its number, with "?" while provisional. */
export const ratingText = (r) => (r.provisional ? t("rating_provisional", { n: r.rating }) : String(r.rating));

const link = (href, text, attrs = {}) =>
  h("a", { href, onclick: (e) => (e.preventDefault(), app.go(href)), ...attrs }, text);

// -- the end of a game -------------------------------------------------------------------------

/** Once per table: who sits where by profile (the links of the changes), from the players' route;
 *  and, for a table no node held when the page opened it, the changes themselves. */
function askPlayers(m) {
  if (m.playersAsked) return;
  m.playersAsked = true;
  api(`/api/tables/${encodeURIComponent(m.table)}/players`)
    .then((p) => {
      m.players = p;
      if (app.m === m) app.render();
    })
    .catch(() => null);
}

/** What the changes are, from the frame, else from the players' route; null while unknown. */
function changesOf(m) {
  if (m.rated) return m.rated;
  const p = m.players;
  if (!p) return null;
  const people = p.seats.filter((s) => s.profile);
  if (people.some((s) => s.change)) {
    return {
      preset: p.preset,
      rated: true,
      seats: people.filter((s) => s.change).map((s) => ({ seat: s.seat, ...s.change, provisional: s.rating ? s.rating.provisional : true })),
    };
  }
  // Not rated for sure: custom rules, or a bot in a seat. Else the frame is on its way.
  return !p.preset || people.length < 4 ? { preset: p.preset, rated: false, seats: [] } : null;
}

/** The result panel's block: each person's change, yours first and marked. */
export function fillChanges(m, box) {
  askPlayers(m);
  const r = changesOf(m);
  if (!r) {
    box.replaceChildren(h("p", { class: "hint", id: "rating-pending", role: "status" }, t("rating_pending")));
    return;
  }
  if (!r.rated) {
    box.replaceChildren(h("p", { class: "hint", id: "unrated" }, t("game_unrated")));
    return;
  }
  if (!m.ratingsAfter) {
    // The seats show the ratings just won from now on (talk.js draws m.ratings beside names).
    m.ratingsAfter = true;
    const seats = [0, 1, 2, 3].map((s) => (m.ratings && m.ratings.seats[s]) || null);
    for (const x of r.seats) seats[x.seat] = { rating: x.after, provisional: x.provisional, games: x.games };
    m.ratings = { ...m.ratings, preset: r.preset, seats }; // the profiles stay
    queueMicrotask(() => app.m === m && app.render());
  }
  const me = M.mySeat(m);
  const profiles = new Map(((m.players && m.players.seats) || []).filter((s) => s.account).map((s) => [s.seat, s.profile]));
  const rows = [...r.seats].sort((a, b) => (b.seat === me) - (a.seat === me) || a.seat - b.seat);
  const mine = r.seats.find((x) => x.seat === me);
  box.replaceChildren(
    mine ? h("p", { class: "my-change", id: "my-change" }, t("your_change", { after: ratingText({ rating: mine.after, provisional: mine.provisional }), change: signed(mine.change) })) : null,
    h("ul", {}, rows.map((x) => {
      const name = M.nameOf(m, x.seat);
      const handle = profiles.get(x.seat);
      return h("li", { class: `change-row${x.seat === me ? " mine" : ""}${x.change > 0 ? " up" : x.change < 0 ? " down" : ""}`, "data-seat": x.seat },
        handle ? link(`/u/${encodeURIComponent(handle)}`, name) : h("span", {}, name),
        " ", h("strong", { title: x.provisional ? t("seat_provisional", { n: x.games }) : null },
          `${ratingText({ rating: x.after, provisional: x.provisional })} (${signed(x.change)})`));
    })));
}

// -- the leaderboards ---------------------------------------------------------------------------

/** /leaderboards/{preset}: the settled ratings of a preset, best first, with a tab per preset. */
export function openLeaderboard(preset) {
  const s = {
    preset: PRESETS.includes(preset) ? preset : "havana",
    board: null,
    error: null,
    render: () => drawBoard(s),
    close: () => (s.closed = true),
  };
  app.club = s;
  s.render();
  api(`/api/leaderboards/${s.preset}`)
    .then((b) => (s.board = b), (e) => (s.error = M.errorText(e)))
    .then(() => app.club === s && s.render());
}

function boardTable(b) {
  if (!b.players.length) return h("p", { class: "notice", id: "leaderboard-empty", role: "status" }, t("leaderboard_empty", { n: b.min_games }));
  return h("table", { class: "leaderboard", id: "leaderboard-table" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("leaderboard_rank")), h("th", { scope: "col" }, t("leaderboard_name")),
      h("th", { scope: "col", class: "num" }, t("leaderboard_rating")), h("th", { scope: "col", class: "num" }, t("leaderboard_games")))),
    h("tbody", {}, b.players.map((p) => h("tr", { "data-rank": p.rank },
      h("td", { class: "rank" }, String(p.rank)),
      // An account's name is a link to its profile; a guest's is not (as in every list).
      h("td", { class: "name" }, p.account === false ? p.nickname : link(`/u/${encodeURIComponent(p.profile)}`, p.nickname)),
      h("td", { class: "num rating" }, ratingText(p)),
      h("td", { class: "num" }, String(p.games))))));
}

function drawBoard(s) {
  const name = t(`short_${s.preset}`);
  const tabs = h("nav", { class: "preset-tabs", "aria-label": t("leaderboard_presets") },
    PRESETS.map((x) => link(`/leaderboards/${x}`, t(`short_${x}`), { title: t(`variant_${x}`), class: "preset-tab", "data-preset": x, "aria-current": x === s.preset ? "page" : null })));
  app.root.replaceChildren(header([langSelect()]), h("main", { class: "club leaderboards", id: "leaderboards", "data-preset": s.preset },
    h("h1", {}, t("leaderboard_title", { preset: name })),
    tabs,
    s.board ? h("p", { class: "hint" }, t("leaderboard_hint", { n: s.board.min_games })) : null,
    s.error ? h("p", { class: "error", role: "alert" }, s.error) : s.board ? boardTable(s.board) : h("p", { role: "status" }, t("loading")),
    h("p", { class: "row" }, link(`/pairs?preset=${s.preset}`, t("pairs_board"), { id: "pairs-link" }), " · ", link("/lobby", t("back_lobby")), " · ", link("/", t("back_home")))));
}

// Once here, the result panel draws its changes without waiting for the module.
app.fillChanges = fillChanges;
