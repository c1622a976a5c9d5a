// What happened in each finished hand, and the checks of its deal: both from the published record
// (GET /api/tables/{t}/record), fetched at the end of every hand. Loaded with fairness.js when a
// hand first ends, not with the page.
import { api } from "./net.js";
import { app, store } from "./dom.js";
import { parseTile, pips, splitTiles } from "./tiles.js";
import * as F from "./fairness.js";
import { errorText } from "./seats.js";

const canon = (x) => {
  const [a, b] = parseTile(x);
  return `${Math.max(a, b)}${Math.min(a, b)}`;
};

/**
 * What happened in a finished hand of a published record, worked out from its deal and moves:
 * who went out (and with a capicúa), or the tranque, its closer and the lowest hand.
 */
export function storyOf(hand) {
  const held = hand.hands.map((x) => new Set(splitTiles(x).map(canon)));
  let ends = null;
  let closer = null;
  let capicua = false;
  hand.moves.forEach((mv, k) => {
    if (mv === "pass") return;
    const seat = (hand.leader + k) % 4;
    const [tile, at] = mv.split("@");
    const [a, b] = parseTile(tile);
    held[seat].delete(canon(tile));
    if (!ends) {
      ends = [a, b];
    } else {
      const n = Number(at);
      capicua = a !== b && ends[0] !== ends[1] && ((a === ends[0] && b === ends[1]) || (a === ends[1] && b === ends[0]));
      const other = a === n ? b : a;
      if (ends[0] === n) ends[0] = other;
      else ends[1] = other;
    }
    closer = seat;
  });
  const out = held.findIndex((s) => s.size === 0);
  if (out >= 0) return { kind: "pegarse", winner: out, closer, capicua: capicua && closer === out };
  const totals = held.map((s) => [...s].reduce((x, tile) => x + pips(tile), 0));
  const low = Math.min(...totals);
  return { kind: "tranque", winner: totals.indexOf(low), closer, capicua: false };
}

export async function verifyAll(m) {
  if (m.verifying) {
    m.verifyAgain = true;
    return;
  }
  m.verifying = true;
  try {
    m.engine = F.hashEngine();
    const record = await api(`/api/tables/${encodeURIComponent(m.table)}/record`);
    const rules = record.rules;
    const games = record.format === "tranque-match/1" ? record.games || [] : [record];
    let base = 0;
    for (const g of games) {
      for (const hand of g.hands || []) {
        // Table hand numbers (the fairness recipe's) keep counting from game to game.
        const number = hand.fairness ? hand.fairness.hand_number || base + hand.number : base + hand.number;
        if (!m.stories[number] && hand.moves && hand.moves.length) m.stories[number] = storyOf(hand);
        if (!hand.fairness) continue;
        const seen = m.seen[number] || {};
        m.checks[number] = await F.verifyHand(hand, rules, {
          serverCommit: seen.serverCommit,
          seat: seen.seat,
          seed: seen.seed,
          tiles: seen.tiles,
        });
      }
      base += (g.hands || []).length;
    }
    store.set(`checks.${m.table}`, m.checks);
    store.set(`stories.${m.table}`, m.stories);
  } catch (e) {
    m.verifyError = errorText(e);
  } finally {
    m.verifying = false;
    m.checking = m.verifyAgain;
  }
  if (app.m === m) app.render();
  if (m.verifyAgain) {
    m.verifyAgain = false;
    verifyAll(m);
  }
}
