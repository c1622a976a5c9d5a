// What opens over the table as a dialog: the end of a hand, the planilla, the verification, the
// settings; and the end of a game. Each is drawn from the model; closing one redraws the table.
import { api } from "./net.js";
import { h, app, toast, secondsTo } from "./dom.js";
import { t, getLang } from "./i18n.js";
import { tileSVG, spokenName, parseTile, splitTiles } from "./tiles.js";
import { settingsPanel } from "./settings.js";
import * as M from "./model.js";
import { ratingChanges } from "./club.js";
import { phrasesBar, rematchBlock } from "./talk.js";

export function staticTile(tile, { vertical = true } = {}) {
  const [a, b] = parseTile(tile);
  return h("span", { class: "tile static", role: "img", "aria-label": spokenName(tile, getLang()), "data-tile": tile },
    tileSVG(Math.max(a, b), Math.min(a, b), { vertical }));
}

/** A sentence with nodes in its `{name}` slots (tiles in a log line, a countdown). */
export function withSlots(text, slots) {
  return text.split(/(\{\w+\})/).filter(Boolean).map((part) => {
    const m = /^\{(\w+)\}$/.exec(part);
    return m && m[1] in slots ? slots[m[1]] : part;
  });
}

/**
 * A modal dialog over the page: the rest of the page is inert while it is open (table.js), a
 * click beside the panel or Escape closes it.
 */
export function modal(panel, titleId, onClose) {
  return h("div", {
    class: "overlay",
    role: "dialog",
    "aria-modal": "true",
    "aria-labelledby": titleId,
    onclick: (e) => e.target === e.currentTarget && onClose(),
  }, panel);
}

function closer(m) {
  return () => {
    m.panel = null;
    app.render();
  };
}

// The end of a game and a rematch's table (ending.js): loaded when first needed, or ahead of it
// (the end of any hand, a sync of a finished or a rematch's table), never with the page.
let ending = null;
let coming = null;

/** ending.js's exports once loaded, else null (its loading starts, and a redraw follows). */
export function endingModule() {
  if (!ending && !coming) {
    coming = import("./ending.js").then((x) => {
      ending = x;
      app.render();
    }, () => (coming = null));
  }
  return ending;
}

/** The dialog open over the table now, if any (only one at a time). */
export function openDialog(m) {
  if (m.showResult && m.result) {
    const close = () => (M.closeResult(m), app.render());
    // The game's end has its own first screen: who won, the final score, the ratings and chips,
    // the rematch; the last hand's detail is one click away.
    const E = m.result.gameOver && !M.betweenGames(m) ? endingModule() : null;
    if (E && m.resultView !== "hand") return modal(E.gameResultPanel(m), "game-result-title", close);
    return modal(resultPanel(m), "result-title", close);
  }
  if (m.panel === "sheet") return modal(sheetPanel(m), "planilla-title", closer(m));
  if (m.panel === "verify") return modal(verifyPanel(m), "verify-title", closer(m));
  if (m.panel === "settings") {
    const body = settingsPanel(closer(m), app.render); // null while its module comes
    return body && modal(body, "settings-title", closer(m));
  }
  return null;
}

// -- the planilla ------------------------------------------------------------------------------

/** What a line of the planilla stands for: who went out, the tranque, a tie, a bonus. */
function whatHappened(m, ln) {
  if (ln.pair < 0) return t("what_tied");
  if (ln.kind !== "hand") return t(`bonus_${ln.kind}`);
  const story = m.stories[M.tableHand(m, ln.hand)];
  if (!story) return t("what_hand");
  const name = M.nameOf(m, story.winner);
  if (story.kind === "pegarse") return t(story.capicua ? "what_capicua" : "what_pegarse", { name });
  return t("what_tranque", { name });
}

function sheetPanel(m) {
  const { ours, us, them } = M.columns(m);
  const rows = m.sheet.map((ln) => {
    const cell = (pair) => {
      if (ln.pair !== pair) return h("td", {}, h("span", { class: "total" }, String(ln.totals[pair])));
      const viajera = ln.kind === "hand" && ln.points >= 100;
      return h("td", { class: "scored" },
        h("span", { class: "pts" }, `+${ln.points}`),
        viajera ? h("span", { class: "mark viajera" }, t("viajera")) : null,
        h("span", { class: "total" }, String(ln.totals[pair])));
    };
    return h("tr", { class: ln.pair < 0 ? "tied" : null },
      h("th", { scope: "row" }, h("span", { class: "n" }, String(ln.hand)), h("span", { class: "what" }, whatHappened(m, ln))),
      cell(ours), cell(1 - ours));
  });
  const scores = m.state.scores || [0, 0];
  const target = typeof m.rules === "object" && m.rules ? m.rules.target : { havana: 100, miami: 150, oriente: 20, barrio: 100 }[m.rules] || 100;
  return h("section", { class: "panel sheet", id: "planilla" },
    h("h2", { id: "planilla-title" }, t("planilla"), h("span", { class: "sheet-target" }, t("to_target", { n: target }))),
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("hand_col")), h("th", { scope: "col" }, us), h("th", { scope: "col" }, them))),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 3, class: "none" }, t("no_hands_yet")))),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("total")), h("td", { class: "sum" }, String(scores[ours])), h("td", { class: "sum" }, String(scores[1 - ours]))))),
    m.gameWinner !== null && m.gameWinner !== undefined
      ? h("p", { class: "winner" }, M.gameEndText(m), m.pollona ? h("span", { class: "mark pollona" }, t("pollona")) : null)
      : null,
    h("button", { class: "primary close", id: "close-sheet", onclick: closer(m) }, t("close")));
}

// -- the verification ----------------------------------------------------------------------------

function checkText(c) {
  const a = c.args || {};
  return t(`chk_${c.id}`, { seat: a.seat !== undefined ? a.seat + 1 : "", status: a.status ? t(`status_${a.status}`) : "", attempt: a.attempt });
}

function verifyPanel(m) {
  // Checks saved by an earlier visit wait for this page's own (the record may have changed).
  const hands = m.checking ? [] : Object.keys(m.checks).map(Number).sort((a, b) => b - a);
  m.openChecks = m.openChecks || {};
  return h("section", { class: "panel verify", id: "verificacion" },
    h("h2", { id: "verify-title" }, t("verification")),
    h("p", { class: "hint" }, t("verify_intro", { engine: m.engine === "js" ? "JS" : "WebCrypto" })),
    m.checking ? h("p", {}, t("verifying")) : hands.length ? null : h("p", {}, t("verify_none")),
    m.verifyError ? h("p", { class: "bad" }, m.verifyError) : null,
    hands.map((n) => {
      const cs = m.checks[n];
      const ok = M.handVerdict(cs);
      const open = n in m.openChecks ? m.openChecks[n] : !ok || n === hands[0];
      return h("details", { class: `hand-checks ${ok ? "ok" : "bad"}`, "data-hand": n, open, ontoggle: (e) => (m.openChecks[n] = e.target.open) },
        h("summary", {}, h("span", { class: "verdict", "data-ok": String(ok) }, ok ? "✓" : "✗"), " ", t("hand_n", { n })),
        h("ul", {}, cs.map((c) => h("li", { class: c.ok ? "ok" : "bad", "data-check": c.id }, h("span", { class: "mark-ok", "aria-hidden": "true" }, c.ok ? "✓" : "✗"), " ", checkText(c), h("span", { class: "sr" }, c.ok ? t("ok") : t("failed"))))));
    }),
    h("button", { class: "primary close", id: "close-verify", onclick: closer(m) }, t("close")));
}

// -- the end of a hand -----------------------------------------------------------------------------

/** When the next hand starts, counted down; who the table still waits for. */
function nextHandLine(m) {
  const st = m.state;
  const n = m.result.view.hand_number + 1;
  if (st.next_hand && st.phase === "deal") {
    const others = (st.reading || []).filter((s) => s !== M.mySeat(m)).map((s) => M.nameOf(m, s));
    return h("p", { class: "next-hand", id: "next-hand", role: "timer" },
      withSlots(t("next_hand_in", { n }), { s: h("b", { class: "secs", "data-deadline": st.next_hand }, `${Math.ceil(secondsTo(st.next_hand))} s`) }),
      others.length ? ` ${t("waiting_for", { names: others.join(", ") })}` : null);
  }
  const due = st.choosing || M.redealOffered(m) || (st.legal || []).length > 0;
  return h("p", { class: "next-hand", id: "next-hand" }, t(due ? "next_hand_your_move" : "next_hand_started", { n }));
}

function resultPanel(m) {
  const r = m.result;
  const v = r.view;
  const o = v.outcome;
  const me = M.mySeat(m);
  const order = me === null ? [0, 1, 2, 3] : [me, (me + 1) % 4, (me + 2) % 4, (me + 3) % 4];
  const ok = m.checking ? null : M.handVerdict(m.checks[r.tableHand || v.hand_number]);
  const kind = o.kind === "pegarse" ? t("pegarse") : o.kind === "tranque" ? t("tranque") : t("tied_tranque");
  const marks = [];
  if (o.capicua) marks.push(h("span", { class: "mark capicua" }, t("capicua")));
  if (o.viajera) marks.push(h("span", { class: "mark viajera" }, t("viajera")));
  const { ours, us, them } = M.columns(m);
  const scores = m.state.scores || v.scores;
  // On a phone the result, the countdown and "Seguir" come first, in the first screen; the four
  // hands, the checks and the phrases (only to other people at the table) after.
  const people = M.mySeat(m) !== null && ((m.info && m.info.seats) || []).some((s, i) => i !== M.mySeat(m) && s && s.kind === "person");
  return h("section", { class: "panel result", id: "result" },
    h("h2", { id: "result-title" }, t("hand_over", { n: v.hand_number }), " — ", h("span", { class: `kind kind-${o.kind}` }, kind), marks),
    h("p", { class: "outcome" }, M.outcomeText(m, o)),
    h("p", { class: "points" }, o.winning_pair !== null ? M.pairText(m, "points_for", o.winning_pair, { points: o.points }) : t("nobody_scores")),
    h("p", { class: "score-line" }, t("score_now", { us, them, a: scores[ours], b: scores[1 - ours] })),
    r.gameOver ? (ending && !M.betweenGames(m) ? ending.backToGameResult(m) : gameOverBlock(m)) : nextHandLine(m),
    resultButtons(m, r),
    h("div", { class: "final-hands" }, order.map((s) => {
      const tiles = splitTiles(v.final_hands[s]);
      return h("div", { class: `final-hand${o.winner === s ? " winner" : ""}`, "data-seat": s },
        h("div", { class: "fh-who" }, h("span", { class: "name" }, M.nameOf(m, s)), h("span", { class: "fh-pips" }, t("pips", { n: o.pips[s] })),
          s === o.closer ? h("span", { class: "mark closer" }, o.kind === "pegarse" ? t("went_out") : t("closer")) : null),
        h("div", { class: "fh-tiles" }, tiles.length ? tiles.map((x) => staticTile(x)) : h("span", { class: "none" }, t("no_tiles"))));
    })),
    v.sleepers ? h("div", { class: "sleepers" }, h("div", { class: "fh-who" }, t("sleepers")), h("div", { class: "fh-tiles" }, splitTiles(v.sleepers).map((x) => staticTile(x)))) : null,
    h("p", { class: `verify-line ${ok === null ? "" : ok ? "ok" : "bad"}` },
      ok === null ? t("verifying") : ok ? t("verified_ok") : t("verified_bad"),
      " ", h("button", { class: "link", onclick: () => (M.closeResult(m), (m.panel = "verify"), app.render()) }, t("see_checks"))),
    people ? phrasesBar(m) : null);
}

function resultButtons(m, r) {
  return h("div", { class: "row" },
      r.gameOver && !M.betweenGames(m)
        ? h("button", { id: "see-sheet", onclick: () => (M.closeResult(m), (m.panel = "sheet"), app.render()) }, t("planilla"))
        : h("button", { id: "continue", class: "primary", onclick: () => (M.closeResult(m), app.render()) }, t("continue")));
}

// -- the end of a game -------------------------------------------------------------------------------

/** The end of a game: its winner (or `head`: the game's result screen's title and score), the
 * tally of a match, the game's page, the rating changes, the chips, and what comes next. */
export function gameOverBlock(m, { head = null } = {}) {
  const result = head !== null;
  const between = M.betweenGames(m);
  const practice = !m.info || !m.info.settings || m.info.settings.practice !== false;
  return h("div", { class: `game-over${between ? " between" : ""}${result ? " in-result" : ""}`, id: between ? "next-game" : "game-over" },
    head || h("p", { class: "winner" }, M.gameEndText(m), m.pollona ? h("span", { class: "mark pollona" }, t(M.matchOf(m) ? "pollona_double" : "pollona")) : null),
    M.matchOf(m) ? h("p", { class: "tally", id: "match-tally-end" }, M.tallyText(m)) : null,
    between ? null : h("a", { id: "game-page-link", href: `/g/${m.table}` }, t("game_page")),
    between || practice ? null : ratingChanges(m),
    between ? null : h("div", { class: "chips-slot", id: "chips-slot" }),
    between ? null : practice
      ? h("button", { id: "play-again", class: "primary big", onclick: () => newTable(m, true) }, t("play_again"))
      // At a table of people each one's click would make a different table: until the same
      // four can play again together, one person opens a new table and invites the others.
      : [rematchBlock(m), h("div", { class: "new-table" },
          h("button", { id: "new-table", class: "primary big", onclick: () => newTable(m, false) }, t("new_table")),
          h("p", { class: "hint", id: "new-table-hint" }, t("new_table_hint")))]);
}

async function newTable(m, practice) {
  try {
    const s = (m.info && m.info.settings) || {};
    const body = { rules: s.rules || "havana", move_clock: s.move_clock || 25, practice, seat: 0 };
    if (practice && m.info && m.info.bot) body.bot = m.info.bot;
    const tab = await api("/api/tables", { method: "POST", token: m.me.token, body });
    app.go(`/t/${encodeURIComponent(tab.table)}`);
  } catch (e) {
    toast(M.errorText(e));
  }
}
