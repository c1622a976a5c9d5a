// The end of a game and what follows it, loaded when first needed (panels.js ``ending``), not
// with the page: the game's result screen, the way back to it under the last hand, a rematch's
// table (who declined, the free seat filled from the queue), and the log seat by seat. Its words
// and its style (css/ending.css) come with it.
import { h, app } from "./dom.js";
import { t, STRINGS } from "./i18n.js";
import { parseTile } from "./tiles.js";
import * as M from "./model.js";
import { gameOverBlock, staticTile } from "./panels.js";
import { phrasesBar } from "./talk.js";

Object.assign(STRINGS.es, {
  rematch_without_you: "Los demás juegan la revancha en otra mesa.",
  rematch_declined: "{names} no quiso la revancha.",
  rematch_declined_n: "{names} no quisieron la revancha.",
  fill_seat: "Buscar a alguien en «Jugar ahora»",
  fill_hint: "Se sienta quien espere en la cola; si nadie llega a tiempo, un bot ocupa el asiento.",
  filling: "Buscando a alguien en la cola de «Jugar ahora»…",
  log_fill: "{name} busca a alguien en «Jugar ahora» para el asiento libre.",
  err_filling: "Ya se está buscando a alguien para el asiento libre.",
  see_last_hand: "Ver la última data",
  back_to_result: "Volver al resultado",
  played_none: "nada jugado",
  passed_on: "pasó a {ends}",
  and: "y",
});

Object.assign(STRINGS.en, {
  rematch_without_you: "The others play the rematch at another table.",
  rematch_declined: "{names} declined the rematch.",
  rematch_declined_n: "{names} declined the rematch.",
  fill_seat: "Find someone in “Play now”",
  fill_hint: "Whoever waits in the queue sits down; if nobody comes in time, a bot takes the seat.",
  filling: "Looking for someone in the “Play now” queue…",
  log_fill: "{name} is looking for someone in “Play now” for the free seat.",
  err_filling: "Someone is being looked for already.",
  see_last_hand: "See the last hand",
  back_to_result: "Back to the result",
  played_none: "nothing played",
  passed_on: "passed on {ends}",
  and: "and",
});

if (!document.getElementById("ending-css")) {
  const href = new URL("../css/ending.css", import.meta.url).href;
  document.head.appendChild(h("link", { rel: "stylesheet", href, id: "ending-css" }));
}

// -- the end of a game ---------------------------------------------------------------------------

/** The game's result, the first thing shown when a game (a match) ends: who won, the final
 * score, each person's rating change, the chips, the rematch; the last hand after, on a click. */
export function gameResultPanel(m) {
  const { ours, us, them } = M.columns(m);
  const scores = m.state.scores || m.result.view.scores;
  const head = [
    h("h2", { id: "game-result-title", class: "winner" }, M.gameEndText(m),
      m.pollona ? h("span", { class: "mark pollona" }, t(M.matchOf(m) ? "pollona_double" : "pollona")) : null),
    h("p", { class: "final-score", id: "final-score" },
      h("span", { class: "lbl" }, us), h("b", {}, String(scores[ours])), h("span", { class: "sep" }, "–"),
      h("b", {}, String(scores[1 - ours])), h("span", { class: "lbl" }, them))];
  return h("section", { class: "panel game-result", id: "game-result" },
    gameOverBlock(m, { head }),
    h("div", { class: "row game-result-links" },
      h("button", { id: "see-last-hand", onclick: () => ((m.resultView = "hand"), app.render()) }, t("see_last_hand")),
      h("button", { id: "see-sheet", onclick: () => (M.closeResult(m), (m.panel = "sheet"), app.render()) }, t("planilla"))),
    // The phrases after the game, to the other people at the table (never to bots alone).
    (m.info.seats || []).some((x, i) => i !== M.mySeat(m) && x.kind === "person") ? phrasesBar(m) : null);
}

/** Under the last hand's detail, the way back to the game's result. */
export function backToGameResult(m) {
  return h("p", { class: "back-to-result" },
    h("button", { id: "back-to-result", class: "primary", onclick: () => ((m.resultView = null), app.render()) }, t("back_to_result")));
}

// -- a rematch's table ---------------------------------------------------------------------------

/** At a rematch's table: who declined, and (for the people seated, before the start) the way
 * to fill the free seat from the quick-match queue, people first and a bot after. */
export function rematchSeatBox(m) {
  const rm = m.info && m.info.rematch;
  if (!rm || m.info.started || !(rm.declined || []).length) return null;
  const names = rm.declined.map((d) => d.nickname || M.nameOf(m, d.seat));
  const free = m.info.seats.some((s) => s.kind === "empty");
  const kids = [h("p", { id: "rematch-declined", role: "status" }, t(names.length > 1 ? "rematch_declined_n" : "rematch_declined", { names: names.join(", ") }))];
  if (m.info.filling) {
    kids.push(h("p", { id: "filling", role: "status" }, t("filling"), " ", h("b", { class: "secs", "data-deadline": m.info.filling }, "")));
  } else if (free && M.mySeat(m) !== null && m.role === "player") {
    kids.push(h("button", { id: "fill-seat", class: "primary", onclick: () => app.sock.command({ type: "fill" }) }, t("fill_seat")),
      h("p", { class: "hint" }, t("fill_hint")));
  }
  return h("section", { class: "rematch-seat card", id: "rematch-seat" }, kids);
}

// -- the log, seat by seat -----------------------------------------------------------------------

/**
 * The hand so far, seat by seat (public: every play and pass is seen by all): the tiles each
 * seat played, in order, and the open ends each time it passed.
 */
function bySeat(moves) {
  const out = [0, 1, 2, 3].map(() => ({ tiles: [], passes: [] }));
  let ends = null;
  for (const [seat, mv] of moves) {
    if (mv === "pass") {
      if (ends) out[seat].passes.push([...ends]);
      continue;
    }
    const [tile, at] = mv.split("@");
    const [a, b] = parseTile(tile);
    out[seat].tiles.push(tile);
    if (!ends || at === undefined) {
      ends = [a, b];
      continue;
    }
    const n = Number(at);
    const other = a === n ? b : a;
    if (ends[0] === n) ends[0] = other;
    else ends[1] = other;
  }
  return out;
}

/** The numbers a seat passed on, each once ("3 y 5", "3 and 5"). */
function passedOn(passes) {
  const nums = [...new Set(passes.flat())].sort((a, b) => a - b).map(String);
  if (nums.length < 2) return nums.join("");
  return `${nums.slice(0, -1).join(", ")} ${t("and")} ${nums[nums.length - 1]}`;
}

/** The hand seat by seat: what each one played, and the numbers each one passed on. */
export function bySeatList(m) {
  const me = M.mySeat(m);
  const order = me === null ? [0, 1, 2, 3] : [me, (me + 1) % 4, (me + 2) % 4, (me + 3) % 4];
  const seats = bySeat(m.moves);
  return h("ul", { class: "by-seat", id: "log-by-seat", tabindex: 0, "aria-label": t("log_by_seat") }, order.map((s) => {
    const x = seats[s];
    return h("li", { "data-seat": s },
      h("b", { class: "who" }, M.nameOf(m, s)),
      h("span", { class: "played" }, x.tiles.length ? x.tiles.map((tile) => staticTile(tile)) : t("played_none")),
      x.passes.length ? h("span", { class: "passed-on" }, t("passed_on", { ends: passedOn(x.passes) })) : null);
  }));
}
