// The table model: rebuilt from a `sync` frame, advanced by each `event` frame, and the duties
// the page does for the player (the fairness round, asking the next hand to wait while reading).
// Nothing here draws: the table screen (table.js) reads the model.
import { app, store, toast } from "./dom.js";
import { t, getLang } from "./i18n.js";
import { spokenName, parseTile } from "./tiles.js";
import { play as sound } from "./sound.js";
import { clubFrame } from "./talk.js";
import { endingModule } from "./panels.js";
import { BOT_NAMES, errorText, logLine, mySeat, nameOf } from "./seats.js";

export { BOT_NAMES, errorText, logLine, mySeat, nameOf };

// The fairness round and the verification need SHA-256 and the deal recipe only when a hand is
// dealt or ends: loaded then, not with the page.
const fairness = () => import("./fairness.js");

/** Check every finished hand of the published record (verify.js, loaded when first needed). */
export function verifyAll(m) {
  m.checking = true; // until this page has checked them, the saved checks are not shown
  return import("./verify.js").then((v) => v.verifyAll(m), (e) => {
    m.checking = false;
    m.verifyError = errorText(e);
    app.render();
  });
}

// Quiet codes: the answer to a `reading` that came too late for the pause it was about.
const QUIET = new Set(["not_between_hands", "not_reading", "duplicate"]);

export function newModel(table, role) {
  return {
    table,
    role,
    info: null,
    state: {},
    seq: null,
    rules: "havana",
    chain: [],
    moves: [],
    sheet: [],
    handNumber: 0,
    lastBy: [null, null, null, null], // last action of each seat this hand: "pass" or a tile
    chose: new Set(),
    choices: null, // the revealed Salgo / Sal tú
    result: null, // {view, fairness, gameOver, tableHand} of the last finished hand
    showResult: false,
    reading: null, // the hand whose end this player asked the table to wait for
    quiet: new Set(), // command ids whose refusal is nobody's business
    gameWinner: null,
    pollona: false,
    selected: null,
    panel: null, // "sheet" | "verify" | "settings" | null
    checks: store.get(`checks.${table}`, {}),
    seen: store.get(`seen.${table}`, {}),
    stories: store.get(`stories.${table}`, {}), // table hand -> what happened (the planilla)
    log: [],
    logBySeat: store.get("logBySeat", false), // the log seat by seat (table.js), else in order
    slide: null, // the tile just played, to slide into place (table.js)
    watching: null, // "watch" (a spectator by choice) | "full" (the table had no seat left)
    status: "connecting",
    error: null,
    redealBy: null,
    redealSaidNo: false, // "Jugar así" was sent for the deal on show: the offer is withdrawn
  };
}

/** This seat may ask for a redeal of the deal on show now, and has not said no. The server
 * logs no "no" (it must look like silence to everybody else), so the page withdraws its own
 * offer at once; the window itself runs to its end, the same for every hand. */
export function redealOffered(m) {
  return Boolean(m.state && m.state.redeal) && !m.redealSaidNo;
}

function saveSeen(m) {
  store.set(`seen.${m.table}`, m.seen);
}

function seenFor(m, hand) {
  if (!m.seen[hand]) m.seen[hand] = {};
  return m.seen[hand];
}

/** The table's hand number of the current game's hand `n` (the planilla counts per game). */
export function tableHand(m, n) {
  const mt = m.state && m.state.match;
  return ((mt && mt.hand_base) || 0) + n;
}

export function onFrame(m, f) {
  if (app.m !== m) return;
  if (clubFrame(m, f)) {
    app.render(); // a phrase, who watches, the rematch (talk.js)
    return;
  }
  if (f.type === "token") {
    // The server renews a token past half its life: keep the new one (same guest).
    const saved = store.get("guest");
    if (saved) store.set("guest", { ...saved, token: f.token });
    if (m.me) m.me.token = f.token;
    if (app.sock) app.sock.token = f.token; // its next hello, after a reconnect
    return;
  }
  if (f.type === "sync") {
    onSync(m, f);
    app.render();
    return;
  }
  if (f.type === "event") {
    applyEvent(m, f.event, f.state);
    m.seq = f.seq;
    setState(m, f.state);
    app.render();
    return;
  }
  if (f.type === "error") {
    if (f.code === "stale") {
      app.sock.sendRaw({ type: "sync", last_seq: m.seq });
      return;
    }
    if (["token_expired", "bad_token", "logged_out"].includes(f.code) && !app.rejoined) {
      // The saved identity is no longer good here: make a new one and join again (once).
      app.rejoined = true;
      app.rejoin();
      return;
    }
    // The table is gone (never there, expired before it started, or left the server's memory
    // while this socket was on it): say so in place of the table, and stop reconnecting.
    if (f.code === "no_table" || f.code === "table_expired" || f.code === "table_over") {
      m.error = errorText(f);
      app.sock.close();
      app.render();
      return;
    }
    if (m.sitting !== undefined) {
      m.sitting = undefined; // a refused seat: the seats are offered again
      app.render();
    }
    if (f.id && m.quiet.has(f.id) && QUIET.has(f.code)) return;
    toast(errorText(f));
  }
}

function onSync(m, f) {
  m.info = f.table;
  m.seq = f.seq;
  const v = f.view;
  m.rules = v.rules;
  m.chain = v.chain || [];
  m.moves = v.moves || [];
  m.sheet = v.sheet || [];
  m.handNumber = v.hand_number;
  m.gameWinner = v.game_winner;
  m.pollona = v.pollona;
  m.lastBy = [null, null, null, null];
  for (const [seat, mv] of m.moves) m.lastBy[seat] = mv === "pass" ? "pass" : mv.split("@")[0];
  if (v.final_hands && !m.result) {
    const base = (f.state && f.state.match && f.state.match.hand_base) || 0;
    m.result = { view: v, fairness: (f.fairness || {})[String(base + v.hand_number)], gameOver: v.game_winner !== null, tableHand: base + v.hand_number };
    if (!m.stories[m.result.tableHand]) m.stories[m.result.tableHand] = storyOfOutcome(v.outcome);
  }
  if (f.commitments) {
    const s = seenFor(m, f.commitments.hand);
    s.serverCommit = f.commitments.server_commit;
    saveSeen(m);
  }
  m.leadingPair = v.leading_pair;
  if (v.game_winner !== null || (f.table && f.table.rematch)) endingModule();
  const first = m.watching === null;
  setState(m, f.state);
  if (Array.isArray(f.log)) logFromSync(m, f.log, v);
  // Not seated at a table that has begun (or has no seat left): this person watches.
  const full = m.info.started || m.info.seats.every((s) => s.kind !== "empty");
  if (m.role === "spectator") m.watching = "watch";
  else m.watching = mySeat(m) === null && full ? "full" : null;
  if (first && m.watching) logLine(m, t(m.watching === "full" ? "watching_full" : "watching"));
  if (f.fairness && Object.keys(f.fairness).length) verifyAll(m);
}

function setState(m, st) {
  m.state = st || {};
  const fair = m.state.fair;
  if (fair && m.role === "player") fairDuty(m, fair);
}

async function fairDuty(m, fair) {
  const key = `${fair.hand}:${fair.do}`;
  m.fairSent = m.fairSent || new Set();
  if (m.fairSent.has(key)) return;
  m.fairSent.add(key);
  const F = await fairness();
  const s = seenFor(m, fair.hand);
  if (!s.seed) {
    s.seed = F.hex(F.randomSeed());
    saveSeen(m);
  }
  if (fair.do === "commit") {
    s.commit = await F.clientCommit(F.unhex(s.seed));
    saveSeen(m);
    app.sock.command({ type: "ready", hand: fair.hand, commit: s.commit });
  } else {
    app.sock.command({ type: "reveal", hand: fair.hand, seed: s.seed });
  }
}

/** A command whose refusal (too late, already said) is no news to the player. */
function quietly(m, msg) {
  m.quiet.add(app.sock.command(msg));
}

/** The end of a hand is closed ("Seguir"): the table need not wait for this player any more. */
export function closeResult(m) {
  m.showResult = false;
  if (m.reading !== null && app.sock) quietly(m, { type: "reading", hand: m.reading, done: true });
  m.reading = null;
}

const LOG_KEYS = { abandoned: "log_abandoned", back: "log_back", takeover: "log_takeover", redeal: "log_redeal", choices: "log_leader", next_game: "log_next_game", fill: "log_fill" };

/**
 * The log's lines for one public event: the same whether the event comes live or from the
 * sync's `log` (a page opened again in the middle of a hand). `outcome`: how the hand ended,
 * for its last play (the live event's `hand_end`, or the sync's view).
 */
export function eventLines(m, e, outcome = null) {
  const name = nameOf(m, e.type === "choices" ? e.leader : e.seat);
  // "absent": he never came to the table (a bot plays for him at once, "takeover" follows).
  const key = e.type === "away" ? (e.absent ? "log_absent" : "log_away") : LOG_KEYS[e.type];
  if (key) return e.type === "redeal" && !e.ask ? [] : [{ text: t(key, { name, n: e.game }) }];
  switch (e.type) {
    case "dealt": {
      const out = [];
      if (e.draw) {
        // The draw for the lead, as the two tiles drawn ({a} and {b} become tiles on screen).
        const d = e.draw[e.draw.length - 1];
        out.push({ text: pairText(m, "log_draw", e.leading_pair, { a: "{a}", b: "{b}" }), cls: "draw", tiles: d });
      }
      if (e.attempt > 0) out.push({ text: t("log_redealt") });
      out.push({ text: t("log_dealt", { n: e.hand }) });
      return out;
    }
    case "played": {
      const out = [{ text: t(e.move === "pass" ? "log_pass" : "log_play", { name, tile: spokenName(e.move.split("@")[0], getLang()) }) }];
      if (outcome) out.push({ text: outcomeText(m, outcome) });
      return out;
    }
    default:
      return [];
  }
}

function logEvent(m, e, outcome = null) {
  for (const x of eventLines(m, e, outcome)) logLine(m, x.text, x);
}

/** The log written again from a sync's `log` (this hand's public events): what a reload or
 * a way back to the page would otherwise have wiped. */
function logFromSync(m, events, view) {
  m.log = [];
  for (const e of events) logEvent(m, e, e.ended ? view.outcome : null);
}

function applyEvent(m, e, st) {
  const seats = m.info && m.info.seats;
  switch (e.type) {
    case "sat":
      if (seats) seats[e.seat] = { kind: "person", nickname: e.nickname, bot: null, away: false, taken_over: false };
      break;
    case "bot_sat":
      if (seats) seats[e.seat] = { kind: "bot", nickname: "bot", bot: e.bot, away: false, taken_over: false };
      break;
    case "stood":
      if (seats) seats[e.seat] = { kind: "empty", nickname: null, bot: null, away: false, taken_over: false };
      break;
    case "away":
      if (seats) seats[e.seat].away = true;
      logEvent(m, e);
      break;
    case "abandoned":
      // Its people had all gone: the table ended where it stood, with no result (unrated, every
      // chip back). The notice over the table says so (table.js).
      if (m.info) Object.assign(m.info, { over: true, abandoned: true });
      logEvent(m, e);
      break;
    case "aborted":
      // A person left a rated game before its first hand ended: it ends with no result (nobody
      // rated, every chip back), and the notice over the table names whose leave it was.
      if (m.info) Object.assign(m.info, { over: true, abandoned: true, aborted: { seat: e.seat } });
      logLine(m, t("log_aborted", { name: nameOf(m, e.seat) }));
      break;
    case "back":
      if (seats) seats[e.seat].away = false;
      logEvent(m, e);
      break;
    case "takeover":
      if (seats) {
        seats[e.seat].taken_over = true;
        seats[e.seat].bot = e.bot;
      }
      logEvent(m, e);
      break;
    case "started":
      if (m.info) Object.assign(m.info, { started: true, filling: null });
      break;
    case "fill":
      // The free seats are offered to the quick-match queue until the deadline (then bots).
      if (m.info) m.info.filling = e.deadline;
      logEvent(m, e);
      break;
    case "hand_commit": {
      const s = seenFor(m, e.hand);
      s.serverCommit = e.server_commit;
      saveSeen(m);
      break;
    }
    case "dealt":
      onDealt(m, e, st);
      break;
    case "redeal":
      if (e.ask) m.redealBy = e.seat;
      logEvent(m, e);
      break;
    case "chose":
      m.chose.add(e.seat);
      break;
    case "choices":
      m.choices = { choices: e.choices, leader: e.leader };
      logEvent(m, e);
      break;
    case "played":
      onPlayed(m, e, st);
      break;
    case "next_game":
      // The match goes on: same seats, scores from 0, a new planilla.
      m.sheet = [];
      m.chain = [];
      m.moves = [];
      m.lastBy = [null, null, null, null];
      m.gameWinner = null;
      m.pollona = false;
      m.result = null;
      m.showResult = false;
      if (m.panel === "sheet") m.panel = null;
      logEvent(m, e);
      break;
    default:
      break;
  }
}

function onDealt(m, e, st) {
  m.handNumber = e.hand;
  m.chain = [];
  m.moves = [];
  m.lastBy = [null, null, null, null];
  m.chose = new Set();
  m.choices = null;
  m.selected = null;
  m.redealBy = null;
  m.redealSaidNo = false;
  if (mySeat({ state: st }) !== null) {
    const s = seenFor(m, e.hand);
    s.tiles = st.tiles;
    s.seat = st.seat;
    saveSeen(m);
  }
  m.leadingPair = e.leading_pair;
  logEvent(m, e);
}

function onPlayed(m, e, st) {
  const ends = m.state.ends;
  const mv = e.move;
  if (mv === "pass") {
    m.lastBy[e.seat] = "pass";
    sound("pass");
  } else {
    const [tile, endText] = mv.split("@");
    const [a, b] = parseTile(tile);
    m.lastBy[e.seat] = tile;
    if (!m.chain.length || !ends) {
      m.chain = [{ tile, seat: e.seat, side: "lead", opened: Math.min(a, b) }];
    } else {
      const end = Number(endText);
      const other = a === end ? b : a;
      if (end === ends[0]) m.chain.unshift({ tile, seat: e.seat, side: "left", opened: other });
      else m.chain.push({ tile, seat: e.seat, side: "right", opened: other });
    }
    m.slide = { tile, seat: e.seat };
    sound("tile");
  }
  m.moves.push([e.seat, mv]);
  m.selected = null;
  logEvent(m, e, e.hand_end && e.hand_end.view.outcome);
  if (!e.hand_end) return;
  const v = e.hand_end.view;
  m.chain = v.chain;
  m.sheet = v.sheet;
  m.gameWinner = v.game_winner;
  m.pollona = v.pollona;
  m.result = { view: v, fairness: e.hand_end.fairness, gameOver: e.hand_end.game_over, tableHand: e.hand };
  m.showResult = true;
  m.resultView = null; // a game's end opens on the game's result (panels.js)
  endingModule(); // ahead of the game's end: its screen is there at once
  m.stories[e.hand] = storyOfOutcome(v.outcome);
  store.set(`stories.${m.table}`, m.stories);
  sound("end");
  // Ask the next hand to wait while this player reads the end of this one (the server waits
  // a little, within its own timings; "Seguir" lets it go).
  if (m.role === "player" && mySeat({ state: st }) !== null && !e.hand_end.game_over) {
    m.reading = e.hand;
    quietly(m, { type: "reading", hand: e.hand, done: false });
  }
  verifyAll(m);
}

// -- pairs and what they did -------------------------------------------------------------------

/** The match tally of a best-of-three table (Miami), or null for a table of one game. */
export function matchOf(m) {
  const mt = m.state && m.state.match;
  return mt && mt.to_win > 1 ? mt : null;
}

/** The game is over but the match goes on: the next game starts by itself. */
export function betweenGames(m) {
  const mt = matchOf(m);
  return Boolean(mt && !mt.over && m.gameWinner !== null && m.gameWinner !== undefined);
}

/** The two columns, mine first: Nosotros / Ellos for a player, Pareja A / B for a spectator. */
export function columns(m) {
  const me = mySeat(m);
  if (me === null) return { ours: 0, us: t("pair_a"), them: t("pair_b") };
  return { ours: me % 2, us: t("nosotros"), them: t("ellos") };
}

export function pairName(m, pair) {
  const me = mySeat(m);
  if (me === null) return t(pair === 0 ? "pair_a" : "pair_b");
  return t(pair === me % 2 ? "nosotros" : "ellos");
}

/**
 * A sentence about a pair, said as a person at the table says it: "salimos nosotros", "salen
 * ellos", "sale la pareja B" (the key's `_us`, `_them` and `_pair` forms; `{p}` is A or B).
 */
export function pairText(m, key, pair, args = {}) {
  const me = mySeat(m);
  if (me === null) return t(`${key}_pair`, { ...args, p: pair === 0 ? "A" : "B" });
  return t(`${key}_${pair === me % 2 ? "us" : "them"}`, args);
}

export function tallyText(m) {
  const mt = matchOf(m);
  if (!mt) return "";
  const { ours, us, them } = columns(m);
  return t("match_tally", { n: mt.game, us, them, a: mt.wins[ours], b: mt.wins[1 - ours] });
}

export function outcomeText(m, o) {
  if (!o) return "";
  const closer = nameOf(m, o.closer);
  const args = { name: closer, points: o.points };
  if (o.kind === "pegarse") return pairText(m, o.capicua ? "out_pegarse_capicua" : "out_pegarse", o.winning_pair, args);
  if (o.kind === "tranque") return pairText(m, "out_tranque", o.winning_pair, { ...args, winner: nameOf(m, o.winner) });
  return t("out_tied", { name: closer });
}

/** What the end of a game means: the game's winner, and under match rules the match's. */
export function gameEndText(m) {
  const mt = matchOf(m);
  const game = pairText(m, "game_over_line", m.gameWinner);
  if (!mt) return game;
  const { ours } = columns(m);
  if (mt.over) return pairText(m, "match_over_line", mt.winner, { a: mt.wins[ours], b: mt.wins[1 - ours] });
  return `${pairText(m, "game_n_won", m.gameWinner, { n: mt.game })} ${t("next_game_soon", { n: mt.game + 1 })}`;
}

// -- what happened in each hand (the planilla; from the record: verify.js) ---------------------

function storyOfOutcome(o) {
  return o ? { kind: o.kind, winner: o.winner, closer: o.closer, capicua: Boolean(o.capicua) } : null;
}

/** A hand's checks taken together: true all passed, false one failed, null none yet. */
export function handVerdict(checks) {
  if (!checks || !checks.length) return null;
  return checks.every((c) => c.ok);
}
