// An arena's page (/tournament/{id} of kind "arena"; tournaments.js hands it here): its rules and
// clock (the time left), the join and leave buttons, "your table is ready" with the seat's link
// (the same as a Swiss's: the tab's title and the turn's sound), the live standings (score,
// wins, games) and the tables in play, each with its link. The page reads the arena again on
// every "tournament" frame and every few seconds while it runs (tournaments.js).
import { h } from "./dom.js";
import { t, STRINGS } from "./i18n.js";
import { act, go, me, ready, screen } from "./tournaments.js";

Object.assign(STRINGS.es, {
  ar_kind: "Arena",
  ar_facts: "{rules} · {minutes} minutos · {no_show} s para llegar a la mesa",
  ar_rule: "Cada partida: perder 0, ganar 2, ganar con pollona 3; con dos ganadas seguidas, una victoria vale el doble. Al quedar libre te sentamos con otros libres de puntuación parecida; si faltan jugadores, bots de nivel normal ocupan los asientos.",
  ar_left: "Quedan {time}",
  ar_over: "Se acabó el tiempo: las partidas en juego terminan y cuentan.",
  ar_join: "Entrar en la arena",
  ar_leave: "Salir de la arena",
  ar_in: "Estás en la arena: te sentamos en cuanto haya mesa.",
  ar_out: "Entra cuando quieras y sal cuando quieras; tus partidas cuentan siempre.",
  ar_player: "Jugador",
  ar_score: "Puntos",
  ar_wins: "Ganadas",
  ar_games: "Partidas",
  ar_tables: "Mesas en juego",
  ar_no_tables: "Ninguna mesa en juego ahora.",
  ar_bot: "bot",
  ar_entrants: "Jugadores",
  ar_no_entrants: "Aún no ha entrado nadie.",
  ar_left_arena: "salió",
  ar_played: "{n} partidas jugadas",
});
Object.assign(STRINGS.en, {
  ar_kind: "Arena",
  ar_facts: "{rules} · {minutes} minutes · {no_show} s to come to the table",
  ar_rule: "Each game: a loss 0, a win 2, a pollona win 3; after two wins in a row a win counts double. Whenever you are free you are seated with other free players of close scores; missing players are replaced by bots of level normal.",
  ar_left: "{time} left",
  ar_over: "Time is up: the games still playing finish and count.",
  ar_join: "Join the arena",
  ar_leave: "Leave the arena",
  ar_in: "You are in the arena: you are seated as soon as there is a table.",
  ar_out: "Join and leave whenever you like; your games always count.",
  ar_player: "Player",
  ar_score: "Score",
  ar_wins: "Wins",
  ar_games: "Games",
  ar_tables: "Tables in play",
  ar_no_tables: "No table in play now.",
  ar_bot: "bot",
  ar_entrants: "Players",
  ar_no_entrants: "Nobody has joined yet.",
  ar_left_arena: "left",
  ar_played: "{n} games played",
});

/** The time left, as m:ss (or h:mm:ss), counted down on this page from the server's figure. */
function clock(s) {
  const p = s.page;
  if (p.left === null || p.left === undefined) return null;
  const left = Math.max(0, Math.round(p.left - (Date.now() - s.readAt) / 1000));
  const hh = Math.floor(left / 3600), mm = Math.floor((left % 3600) / 60), ss = left % 60;
  const two = (n) => String(n).padStart(2, "0");
  const time = hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
  if (p.state === "finished") return null;
  return left > 0
    ? h("p", { class: "tn-left ar-clock", id: "ar-clock", role: "timer" }, t("ar_left", { time }))
    : h("p", { class: "tn-left ar-clock", id: "ar-clock" }, t("ar_over"));
}

function joinLeave(s) {
  const p = s.page;
  if (p.state === "finished") return [];
  if (!me()) return [h("p", { class: "hint", id: "tn-account" }, t("tn_account"))];
  const you = p.you || {};
  const out = [];
  if (you.entrant) {
    out.push(h("p", { class: "tn-entered", id: "tn-entered" }, t("ar_in")));
    out.push(h("button", { type: "button", id: "ar-leave", onclick: async () => (await act(`/api/tournaments/${s.id}/withdraw`)) && s.reread() }, t("ar_leave")));
  } else {
    out.push(h("p", { class: "hint" }, t("ar_out")));
    out.push(h("button", { type: "button", class: "primary", id: "ar-join", onclick: async () => (await act(`/api/tournaments/${s.id}/register`)) && s.reread() }, t("ar_join")));
  }
  if (you.creator && p.state === "registering") {
    out.push(h("button", { type: "button", class: "primary", id: "tn-start", onclick: async () => (await act(`/api/tournaments/${s.id}/start`)) && s.reread() }, t("tn_start")));
  }
  return [h("div", { class: "ar-actions" }, ...out)];
}

function standings(p, withdrawn) {
  return h("table", { class: "leaderboard tn-standings", id: "tn-standings" },
    h("thead", {}, h("tr", {}, ...["tn_rank", "ar_player", "ar_score", "ar_wins", "ar_games"].map((k, i) => h("th", { scope: "col", class: i > 1 ? "num" : null }, t(k))))),
    h("tbody", {}, p.standings.map((x) => h("tr", { "data-id": x.id },
      h("td", { class: "rank" }, String(x.rank)),
      h("td", { class: "name" }, x.player || x.id, withdrawn.has(x.id) ? h("span", { class: "sub" }, ` (${t("ar_left_arena")})`) : null),
      h("td", { class: "num" }, String(x.score)),
      h("td", { class: "num" }, String(x.wins)),
      h("td", { class: "num" }, String(x.games))))));
}

function tables(p) {
  const who = (name) => (name === null ? h("span", { class: "sub" }, t("ar_bot")) : name);
  return h("section", { class: "tn-round", id: "ar-tables" },
    h("h2", {}, t("ar_tables")),
    p.tables.length
      ? h("ul", { class: "tn-tables" }, p.tables.map((tb) => h("li", { "data-table": tb.table },
        h("span", { class: "tn-match" }, who(tb.players[0]), " & ", who(tb.players[2]), ` ${t("tn_vs")} `, who(tb.players[1]), " & ", who(tb.players[3])),
        h("span", {}, " · ", go(tb.link, t("tn_watch"))))))
      : h("p", { class: "hint", id: "ar-no-tables" }, t("ar_no_tables")));
}

/** The arena's page, drawn from ``s.page`` (the tournaments' page state). */
export function drawArena(s) {
  const p = s.page;
  const withdrawn = new Set(p.entrants.filter((e) => e.withdrawn).map((e) => e.id));
  const facts = t("ar_facts", { rules: t(`variant_${p.rules}`), target: p.target, minutes: p.minutes, no_show: Math.round(p.no_show) });
  screen(h("main", { class: "club tournament arena", id: "tournament", "data-state": p.state },
    h("h1", { id: "tn-name-title" }, p.name),
    h("p", { class: "tn-state", id: "tn-state" }, t("ar_kind"), " · ", t(`tn_state_${p.state}`)),
    h("p", { class: "tn-facts" }, facts),
    h("p", { class: "hint ar-rule" }, t("ar_rule")),
    p.creator ? h("p", { class: "hint" }, t("tn_by", { name: p.creator })) : null,
    clock(s),
    ready(s),
    ...joinLeave(s),
    p.state !== "registering" ? tables(p) : null,
    p.standings.length && p.state !== "registering"
      ? h("section", { class: "tn-scroll" }, h("h2", {}, t("tn_standings")), h("p", { class: "hint" }, t("ar_played", { n: p.games })), standings(p, withdrawn))
      : null,
    h("section", { class: "tn-entrants", id: "tn-entrants" }, h("h2", {}, t("ar_entrants")),
      p.entrants.length ? h("ul", {}, p.entrants.map((e) => h("li", { "data-id": e.id, class: e.withdrawn ? "withdrawn" : null },
        h("strong", {}, e.players.filter(Boolean).join("")), ` · ${e.rating}`, e.withdrawn ? ` · ${t("ar_left_arena")}` : "")))
        : h("p", { class: "hint", id: "tn-no-entrants" }, t("ar_no_entrants"))),
    h("p", { class: "row" }, go("/tournaments", t("tn_title")), " · ", h("a", { href: `/api/tournaments/${encodeURIComponent(p.id)}/file` }, t("tn_file")), " · ", go("/", t("back_home")))));
}
