// A finished game's page (/g/{table}): the planilla, every hand replayed move by move with the
// four hands face up, the deal's checks recomputed here (fairness.js), the record to download,
// and the analysis of the people's plays (docs/analysis.md): each play marked, the better move
// drawn on the chain, the pair's expected points through the hand, the points lost per decision.
// Also the lists of finished games (a profile's, the public ones at /games). Loaded with
// import() when one of those screens first opens, never with the first page; its words and its
// style (css/game.css) come with it.
import { api } from "./net.js";
import { h, $, app, store } from "./dom.js";
import { openReport } from "./report.js";
import { t, getLang } from "./i18n.js";
import "./gamewords.js";
import { tileSVG, parseTile, splitTiles, spokenName } from "./tiles.js";
import { header, langSelect } from "./chrome.js";
import * as M from "./model.js";
import * as F from "./fairness.js";

const NS = "http://www.w3.org/2000/svg";
const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

function style() {
  if (document.getElementById("game-css")) return;
  const href = new URL("../css/game.css", import.meta.url).href;
  document.head.appendChild(h("link", { rel: "stylesheet", href, id: "game-css" }));
}

const link = (href, text, attrs = {}) =>
  h("a", { href, onclick: (e) => (e.preventDefault(), app.go(href)), ...attrs }, text);
const canon = (x) => {
  const [a, b] = parseTile(x);
  return `${Math.max(a, b)}${Math.min(a, b)}`;
};
const locale = () => (getLang() === "en" ? "en-GB" : "es-ES");
// Points as each language writes them ("1,67" in Spanish), at most two decimals.
const dec = (v, d = 2) => Number(v).toLocaleString(locale(), { maximumFractionDigits: d });
const num = (v) => (v > 0 ? `+${dec(v)}` : dec(v));
const when = (ts) => new Date(ts * 1000).toLocaleString(locale(), { dateStyle: "medium", timeStyle: "short" });

// -- a move in the table's words: "la ocho-siete en el 7" and its small picture ---------------------

/** A tile drawn small beside the words that name it (the words are what is read aloud). */
function pic(x) {
  const [a, b] = parseTile(x);
  return h("span", { class: "gt mini", "aria-hidden": "true" }, tileSVG(a, b));
}

/** A move ("87@7", "55", "pass") as the table says it: the tile's spoken name and the end. */
function moveWords(mv) {
  const [tile, at] = mv.split("@");
  const name = spokenName(tile, getLang());
  return at === undefined ? t("g_tile", { tile: name }) : t("g_tile_at", { tile: name, n: at });
}

/** A sentence of `key` whose {move} is a move's words with its picture after them. */
function withMove(key, mv, args) {
  const [pre, post = ""] = t(key, { ...args, move: "\u0001" }).split("\u0001");
  return [pre, moveWords(mv), " ", pic(mv.split("@")[0]), post];
}

// -- the position after k moves of a hand --------------------------------------------------------

/** The hand after its first k moves: what each seat holds, the chain (left to right, each tile
 *  with the halves as they lie), the ends, whose turn, each seat's passes so far. */
export function position(hand, k) {
  const held = hand.hands.map((x) => splitTiles(x).map(canon));
  const chain = [];
  let ends = null;
  const passes = [0, 0, 0, 0];
  for (let i = 0; i < k; i++) {
    const mv = hand.moves[i];
    const seat = (hand.leader + i) % 4;
    if (mv === "pass") {
      passes[seat]++;
      continue;
    }
    const [tile, at] = mv.split("@");
    const [a, b] = parseTile(tile);
    held[seat] = held[seat].filter((x) => x !== canon(tile));
    if (!ends) {
      chain.push({ a, b, i, seat });
      ends = [a, b];
      continue;
    }
    const n = Number(at);
    const other = a === n ? b : a;
    if (ends[0] === n) {
      chain.unshift({ a: other, b: n, i, seat, side: 0 });
      ends[0] = other;
    } else {
      chain.push({ a: n, b: other, i, seat, side: 1 });
      ends[1] = other;
    }
  }
  return { held, chain, ends, passes, turn: (hand.leader + k) % 4 };
}

/** Where a move would go on the chain of a position: 0 (left) or 1 (right). */
function sideOf(pos, move) {
  const at = Number(move.split("@")[1]);
  return pos.ends && pos.ends[0] === at ? 0 : 1;
}

// -- the page ---------------------------------------------------------------------------------------

let G = null; // the game page's state while it is up
let keysBound = false;

export function open(path) {
  style();
  bindKeys();
  const m = path.match(/^\/g\/([^/]+)/);
  if (m) return openGame(decodeURIComponent(m[1]));
  return openRecent();
}

function bindKeys() {
  if (keysBound) return;
  keysBound = true;
  document.addEventListener("keydown", (e) => {
    if (!G || app.game !== draw || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target && /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName) && e.target.type !== "range") return;
    const n = moves().length;
    const to = { ArrowLeft: G.k - 1, ArrowRight: G.k + 1, Home: 0, End: n }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    step(to);
  });
}

async function openGame(id) {
  G = { id, k: 0, gi: 0, hi: 0, checks: {}, hind: {}, asking: {}, busy: {} };
  app.game = draw;
  const main = h("main", { class: "game-page", id: "game-page" }, h("p", {}, t("loading")));
  app.root.replaceChildren(header([langSelect()]), main);
  const tid = encodeURIComponent(id);
  try {
    const [page, record] = await Promise.all([api(`/api/tables/${tid}/games`), api(`/api/tables/${tid}/record`)]);
    Object.assign(G, { page, record, games: record.format === "tranque-match/1" ? record.games : [record] });
  } catch (e) {
    if (G.id !== id) return;
    const over = e.status === 409;
    // replaceChildren() writes a null out as "null": the table's link only when there is one.
    main.replaceChildren(h("p", { class: "error", id: "game-error" }, over ? t("g_not_over") : e.status === 404 ? t("g_no_game") : M.errorText(e)),
      ...(over ? [link(`/t/${tid}`, t("g_to_table"), { id: "to-table", class: "button-link" })] : []),
      h("p", {}, link("/", t("back_home"), { id: "game-home" })));
    return;
  }
  const q = new URLSearchParams(location.search);
  const gi = Number(q.get("game") || 1) - 1;
  const hi = Number(q.get("hand") || 1) - 1;
  if (G.games[gi]) G.gi = gi;
  if (hand(G.gi, hi)) G.hi = hi;
  draw();
  verify();
  loadAnalysis();
}

const game = () => G.games[G.gi];
const hand = (gi = G.gi, hi = G.hi) => (G.games[gi] && (G.games[gi].hands || [])[hi]) || null;
const moves = () => (hand() ? hand().moves : []);
const names = () => ({ info: { seats: G.page.seats } });
const nameOf = (s) => M.nameOf(names(), s);
/** A seat's name, a link to the person's profile when it is an account's (guests and bots:
 *  no link, as in every list of names). */
const who = (s) => {
  const seat = G.page.seats[s];
  return seat && seat.account && seat.profile ? link(`/u/${encodeURIComponent(seat.profile)}`, nameOf(s), { class: "who" }) : nameOf(s);
};
/** The game's people one may report (not oneself). */
const reportable = () => {
  const g = store.get("guest") || {};
  return G.page.seats.filter((s) => s.kind === "person" && s.profile && s.profile !== `~${g.guest}` && s.profile !== g.account)
    .map((s) => ({ profile: s.profile, nickname: s.nickname }));
};
const pairOf = (p) => t(p === 0 ? "nosotros" : "ellos");

function step(k) {
  G.k = Math.max(0, Math.min(moves().length, k));
  draw();
}

function pick(gi, hi) {
  G.gi = gi;
  G.hi = hi;
  G.k = 0;
  history.replaceState(null, "", `/g/${encodeURIComponent(G.id)}?game=${gi + 1}&hand=${hi + 1}`);
  draw();
}

/** Every hand's checks, recomputed here from the record as the table does (fairness.js). */
async function verify() {
  const mine = G;
  for (let gi = 0; gi < mine.games.length; gi++) {
    for (const hd of mine.games[gi].hands || []) {
      if (!hd.fairness) continue;
      mine.checks[`${gi}:${hd.number}`] = await F.verifyHand(hd, mine.record.rules, {});
      if (G === mine && app.game === draw) draw();
    }
  }
}

async function loadAnalysis() {
  const id = G.id;
  try {
    const a = await api(`/api/tables/${encodeURIComponent(id)}/analysis`);
    if (!G || G.id !== id) return;
    G.analysis = a;
    for (const x of a.hindsight) if (x.status === "done") G.hind[`${x.game - 1}:${x.hand}`] = x.analysis;
    if (app.game === draw) draw();
    const waiting = a.fair.status === "pending" || (a.fair.status === "none" && a.seats.length) || a.hindsight.some((x) => x.status === "pending");
    if (waiting) setTimeout(() => G && G.id === id && app.game === draw && loadAnalysis(), 1500);
  } catch {
    /* the page works without its analysis */
  }
}

async function askHindsight() {
  const key = `${G.gi}:${hand().number}`;
  G.asking[key] = true;
  delete G.busy[key];
  draw();
  try {
    await api(`/api/tables/${encodeURIComponent(G.id)}/analysis/hindsight`, { method: "POST", body: { game: G.gi + 1, hand: hand().number } });
  } catch (e) {
    // The server analyses as many hands as it takes: nothing was asked, so the button comes
    // back with a word to try again. Anything else is shown as still pending; loadAnalysis tells.
    if (e.code === "analysis_busy") {
      delete G.asking[key];
      G.busy[key] = true;
    }
  }
  loadAnalysis();
}

/** The fair analysis of the current hand: {index: play}. */
function playsOf(analysis, gi, number) {
  if (!analysis) return {};
  const hands = analysis.games ? (analysis.games[gi] || {}).hands || [] : analysis.hands || [];
  const found = hands.find((x) => x.number === number);
  const out = {};
  for (const p of (found && found.plays) || []) out[p.index] = p;
  return out;
}

function fairPlays() {
  const a = G.analysis && G.analysis.fair.status === "done" ? G.analysis.fair.analysis : null;
  return playsOf(a, G.gi, hand().number);
}

function hindPlays() {
  const a = G.hind[`${G.gi}:${hand().number}`];
  return a ? playsOf({ hands: a.hands }, 0, hand().number) : null;
}

// -- drawing ----------------------------------------------------------------------------------------

function draw() {
  const main = $("#game-page");
  if (!main || !G || !G.page) return;
  const focused = document.activeElement && document.activeElement.id;
  const p = G.page;
  const hd = hand();
  main.replaceChildren(
    h("h1", { id: "game-title" }, t("g_title", { id: G.id })),
    h("p", { class: "game-meta" }, when(p.finished), " · ", rulesText(p.rules), " · ",
      p.seats.flatMap((s, i) => [i ? ", " : "", who(i)])),
    h("p", {}, h("a", { id: "download", class: "button-link", href: p.record, download: `tranque-${G.id}.json` }, t("g_download")),
      reportable().length ? [" · ", h("button", { type: "button", class: "link", id: "report-open", onclick: () => openReport(reportable(), G.id) }, t("rp_open"))] : null),
    ...planilla(),
    ...(hd ? [viewer(hd), analysisBlock(hd)] : []),
  );
  const again = focused && document.getElementById(focused);
  if (again) again.focus();
}

function rulesText(r) {
  if (typeof r === "string") return t(`variant_${r}`);
  const preset = r && r.preset ? t(`variant_${r.preset}`) : t("custom_rules");
  return r && r.target ? `${preset} · ${r.target}` : preset;
}

function planilla() {
  const out = [];
  G.page.games.forEach((g, gi) => {
    const rows = g.sheet.map((ln) => {
      const hi = g.hands.findIndex((x) => x.number === ln.hand);
      const here = gi === G.gi && hi === G.hi;
      return h("tr", { class: here ? "here" : null },
        h("td", {}, h("button", { class: "linkish", "data-hand": ln.hand, onclick: () => pick(gi, hi) }, t("g_hand", { n: ln.hand }))),
        h("td", {}, ln.pair === "A" ? String(ln.points) : ""),
        h("td", {}, ln.pair === "B" ? String(ln.points) : ""),
        h("td", { class: "total" }, `${ln.nosotros} – ${ln.ellos}`));
    });
    out.push(h("section", { class: "card planilla-card" },
      h("h2", {}, G.page.games.length > 1 ? t("g_game_n", { n: gi + 1 }) : t("planilla")),
      h("table", { class: "planilla", id: `planilla-${gi + 1}` },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("hand_col")), h("th", { scope: "col" }, t("nosotros")), h("th", { scope: "col" }, t("ellos")), h("th", { scope: "col" }, t("g_total")))),
        h("tbody", {}, rows)),
      h("div", { class: "hand-tabs" }, (G.games[gi].hands || []).map((x, hi) => {
        const cs = G.checks[`${gi}:${x.number}`];
        const ok = M.handVerdict(cs);
        return h("button", { class: `hand-tab${gi === G.gi && hi === G.hi ? " here" : ""}`, "data-hand": x.number, "aria-pressed": String(gi === G.gi && hi === G.hi), onclick: () => pick(gi, hi) },
          t("g_hand", { n: x.number }), ok === null ? null : h("span", { class: "verdict", "data-ok": String(ok) }, ok ? " ✓" : " ✗"));
      }))));
  });
  return out;
}

function tile(a, b, cls = "") {
  return h("span", { class: `gt ${a === b ? "double" : ""} ${cls}` }, tileSVG(a, b, { vertical: a === b }));
}

function viewer(hd) {
  const n = hd.moves.length;
  const k = G.k;
  const pos = position(hd, k);
  const fair = fairPlays();
  const last = k > 0 ? k - 1 : null;
  const summary = G.page.games[G.gi].hands[G.hi] || {};
  const seats = [0, 1, 2, 3].map((s) => {
    const lastOwn = last !== null && (hd.leader + last) % 4 === s ? hd.moves[last] : null;
    return h("div", { class: `seat-hand s${s}${pos.turn === s && k < n ? " on-turn" : ""}`, "data-seat": s },
      h("p", { class: "g-who" }, h("strong", {}, who(s)), ` · ${pairOf(s % 2)}`,
        pos.passes[s] ? h("span", { class: "passes" }, ` · ${t("passed")} ×${pos.passes[s]}`) : null,
        lastOwn === "pass" ? h("span", { class: "mark pass" }, t("g_passes")) : null),
      h("div", { class: "g-tiles", "data-count": pos.held[s].length }, pos.held[s].map((x) => {
        const [a, b] = parseTile(x);
        return h("span", { class: "gt small", "data-tile": x }, tileSVG(a, b, { vertical: true }));
      })));
  });
  // The chain; the move just made marked, and a better move drawn where it would have gone.
  const shown = last !== null ? fair[last] : null;
  let chainTiles = pos.chain.map((c) => tile(c.a, c.b, c.i === last ? `last ${(shown && shown.tag) || ""}` : ""));
  if (shown && shown.best !== shown.played) {
    const before = position(hd, last);
    const [tileText, atText] = shown.best.split("@");
    const [ba, bb] = parseTile(tileText);
    const side = atText === undefined ? 1 : sideOf(before, shown.best);
    const at = atText === undefined ? ba : Number(atText);
    const other = ba === at ? bb : ba;
    const ghost = h("span", { class: "ghost-wrap", id: "better-move", title: t("g_better", { move: moveWords(shown.best), value: num(bestValue(shown)), loss: dec(shown.loss) }) },
      atText === undefined ? tile(ba, bb, "ghost") : side === 0 ? tile(other, at, "ghost") : tile(at, other, "ghost"));
    chainTiles = side === 0 ? [ghost, ...chainTiles] : [...chainTiles, ghost];
  }
  const list = hd.moves.map((mv, i) => {
    const seat = (hd.leader + i) % 4;
    const p = fair[i];
    const [tile, at] = mv.split("@");
    const said = mv === "pass" ? t("g_move_pass", { name: nameOf(seat) })
      : t(at === undefined ? "g_move_lead" : "g_move_play", { name: nameOf(seat), tile: spokenName(tile, getLang()), n: at });
    return h("li", {},
      h("button", { class: `move${i === last ? " here" : ""}${p && p.tag ? ` tag-${p.tag}` : ""}`, "data-index": i, onclick: () => step(i + 1) },
        `${i + 1}. ${said}`, mv === "pass" ? null : [" ", pic(tile)], p && p.tag ? h("span", { class: "tag", title: t(`g_tag_${p.tag}`) }, ` ${MARKS[p.tag]}`) : null));
  });
  const ended = k === n ? endLine(summary) : null;
  const key = `${G.gi}:${hd.number}`;
  const cs = G.checks[key];
  return h("section", { class: "card viewer", id: "viewer" },
    h("h2", {}, t("g_hand", { n: hd.number })),
    h("div", { class: "g-controls" },
      h("button", { id: "to-start", onclick: () => step(0), disabled: k === 0, "aria-label": t("g_start") }, "«"),
      h("button", { id: "step-back", onclick: () => step(k - 1), disabled: k === 0, "aria-label": t("g_back") }, "◀"),
      h("span", { id: "move-count", class: "g-count", "aria-live": "polite" }, t("g_move_of", { k, n })),
      h("button", { id: "step-forward", onclick: () => step(k + 1), disabled: k === n, "aria-label": t("g_next") }, "▶"),
      h("button", { id: "to-end", onclick: () => step(n), disabled: k === n, "aria-label": t("g_end") }, "»")),
    h("label", { class: "jump" }, h("span", { class: "sr" }, t("g_jump")),
      h("input", { id: "jump", type: "range", min: 0, max: n, value: k, oninput: (e) => step(Number(e.target.value)) })),
    h("p", { class: "hint" }, t("g_keys")),
    h("div", { class: "g-board" },
      seats[2], h("div", { class: "g-middle" }, seats[3],
        h("div", { class: "g-chain", id: "chain", "aria-label": t("g_chain"), "data-tiles": pos.chain.length }, chainTiles), seats[1]),
      seats[0]),
    ended ? h("p", { class: "hand-end", id: "hand-end" }, ended) : null,
    k === n ? h("div", { class: "g-sleepers", id: "sleepers" }, h("span", {}, `${t("g_sleepers")}: `),
      splitTiles(hd.sleepers || "").map((x) => { const [a, b] = parseTile(x); return h("span", { class: "gt small" }, tileSVG(a, b, { vertical: true })); })) : null,
    h("ol", { class: "moves", id: "moves" }, list),
    h("details", { class: `hand-checks ${M.handVerdict(cs) === false ? "bad" : "ok"}`, id: "checks" },
      h("summary", {}, t("g_checks"), ": ", cs ? h("span", { class: "verdict", "data-ok": String(M.handVerdict(cs)) }, M.handVerdict(cs) ? `✓ ${t("g_checks_ok")}` : `✗ ${t("g_checks_bad")}`) : t(hd.fairness ? "verifying" : "g_checks_none")),
      cs ? h("ul", {}, cs.map((c) => h("li", { class: c.ok ? "ok" : "bad", "data-check": c.id }, c.ok ? "✓ " : "✗ ", checkText(c)))) : null));
}

function checkText(c) {
  const a = c.args || {};
  return t(`chk_${c.id}`, { seat: a.seat !== undefined ? a.seat + 1 : "", status: a.status ? t(`status_${a.status}`) : "", attempt: a.attempt });
}

function endLine(s) {
  if (!s.ended) return t("g_cut");
  if (s.ended === "tied_tranque" && s.winning_pair === null) return t("g_tied");
  const pair = pairOf("AB".indexOf(s.winning_pair));
  if (s.ended === "pegarse") return t("g_pegarse", { name: nameOf(s.winner), capicua: s.capicua ? t("g_capicua") : "", points: s.points, pair });
  return t("g_tranque", { name: nameOf(s.winner), low: s.pips ? s.pips[s.winner] : "", points: s.points, pair });
}

const bestValue = (p) => (p.options.find((o) => o.move === p.best) || { value: 0 }).value;
const playedValue = (p) => (p.options.find((o) => o.move === p.played) || { value: 0 }).value;

function analysisBlock(hd) {
  const a = G.analysis;
  const box = [h("h2", {}, t("g_analysis"))];
  if (!a) return h("section", { class: "card analysis", id: "analysis" }, box, h("p", {}, t("loading")));
  const st = a.fair.status;
  if (st === "none" && !a.seats.length) box.push(h("p", { id: "analysis-none" }, t("g_analysis_none")));
  else if (st === "pending" || st === "none") box.push(h("p", { id: "analysis-pending" }, t("g_analysis_pending")));
  else if (st === "failed") box.push(h("p", { class: "bad" }, t("g_analysis_failed", { error: a.fair.error || "" })));
  const fair = fairPlays();
  const last = G.k > 0 ? G.k - 1 : null;
  if (st === "done" && last !== null) {
    const seat = (hd.leader + last) % 4;
    const p = fair[last];
    if (p) {
      box.push(h("p", { id: "play-verdict", class: p.tag ? `tag-${p.tag}` : "" },
        h("strong", {}, who(seat)), ": ", withMove("g_played", p.played, { value: num(playedValue(p)) }), " ",
        p.best === p.played ? t("g_best") : withMove("g_better", p.best, { value: num(bestValue(p)), loss: dec(p.loss) }),
        p.tag ? h("span", { class: "tag-name" }, ` (${t(`g_tag_${p.tag}`)})`) : null));
    } else if (a.seats.includes(seat) && hd.moves[last] !== "pass") {
      box.push(h("p", { id: "play-verdict" }, h("strong", {}, who(seat)), ": ", t("g_forced")));
    }
  }
  const hind = hindPlays();
  const key = `${G.gi}:${hd.number}`;
  if (hind) {
    const p = last !== null ? hind[last] : null;
    if (p) box.push(h("p", { id: "hindsight-verdict" }, withMove("g_hindsight_line", p.best, { value: num(bestValue(p)), exact: p.exact ? "" : t("g_estimate") }),
      " ", p.best === p.played ? t("g_best") : t("g_lost_by", { loss: dec(p.loss) })));
  } else {
    const pending = G.asking[key] || (a.hindsight || []).some((x) => x.game === G.gi + 1 && x.hand === hd.number && x.status === "pending");
    box.push(pending ? h("p", { id: "hindsight-pending" }, t("g_hindsight_pending"))
      : h("button", { id: "ask-hindsight", onclick: askHindsight }, t("g_hindsight")));
    if (!pending && G.busy[key]) box.push(h("p", { id: "hindsight-busy", class: "hint" }, t("g_hindsight_busy")));
  }
  if (st === "done") {
    box.push(chart(hd, fair));
    box.push(losses());
  }
  return h("section", { class: "card analysis", id: "analysis" }, box);
}

/** Our pair's expected points after each rated decision (the value of the move played, from
 *  seat 0 and 2's side), with the best option's beside it; the current move marked. */
function chart(hd, fair) {
  const W = 320, H = 120, P = 8;
  const n = Math.max(hd.moves.length, 1);
  const pts = Object.values(fair).sort((x, y) => x.index - y.index).map((p) => {
    const sign = p.seat % 2 === 0 ? 1 : -1;
    return { i: p.index, v: sign * playedValue(p), b: sign * bestValue(p), tag: p.tag };
  });
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "value-chart");
  svg.setAttribute("id", "value-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("g_chart"));
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e);
    return e;
  };
  const vals = pts.flatMap((p) => [p.v, p.b]);
  const hi = Math.max(10, ...vals.map(Math.abs));
  const x = (i) => P + ((i + 0.5) * (W - 2 * P)) / n;
  const y = (v) => H / 2 - (v * (H / 2 - P)) / hi;
  add("line", { x1: P, x2: W - P, y1: y(0), y2: y(0), class: "axis" });
  add("line", { x1: x(G.k - 1), x2: x(G.k - 1), y1: P, y2: H - P, class: "now" });
  if (pts.length > 1) add("polyline", { points: pts.map((p) => `${x(p.i).toFixed(1)},${y(p.v).toFixed(1)}`).join(" "), class: "played" });
  for (const p of pts) {
    if (p.b !== p.v) add("line", { x1: x(p.i), x2: x(p.i), y1: y(p.v), y2: y(p.b), class: "gap" });
    add("circle", { cx: x(p.i), cy: y(p.v), r: 3.5, class: `dot ${p.tag || ""}`, "data-index": p.i });
  }
  add("text", { x: P, y: P + 8 }, `+${Math.round(hi)}`);
  add("text", { x: P, y: H - P }, `−${Math.round(hi)}`);
  return h("figure", { class: "chart" }, svg, h("figcaption", {}, t("g_chart")));
}

/** Per analysed seat and hand: the points lost per decision (and the decisions counted). A row
 *  per hand and a column per person (four at most), so the total stays in sight on a phone. */
function losses() {
  const a = G.analysis.fair.analysis;
  const seats = G.analysis.seats;
  const games = a.games ? a.games.map((g) => g.hands) : [a.hands];
  const hands = games.flatMap((hs, gi) => hs.map((hd) => ({ gi, hd })));
  const cell = (plays) => {
    if (!plays.length) return "—";
    const sum = plays.reduce((s, p) => s + p.loss, 0);
    const mean = (sum / plays.length).toLocaleString(locale(), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    return `${mean} (${plays.length})`;
  };
  const label = (gi, hd) => (games.length > 1 ? `${t("g_game_short", { n: gi + 1 })} · ${t("g_hand", { n: hd.number })}` : t("g_hand", { n: hd.number }));
  return h("div", { class: "losses-wrap" }, h("table", { class: "losses", id: "losses" },
    h("caption", {}, t("g_losses")),
    h("thead", {}, h("tr", {}, h("td", {}), seats.map((s) => h("th", { scope: "col", "data-seat": s }, who(s))))),
    h("tbody", {}, hands.map(({ gi, hd }) => h("tr", {}, h("th", { scope: "row" }, label(gi, hd)),
      seats.map((s) => h("td", { "data-seat": s }, cell(hd.plays.filter((p) => p.seat === s))))))),
    h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("g_total")),
      seats.map((s) => h("td", { class: "total", "data-seat": s }, cell(hands.flatMap(({ hd }) => hd.plays.filter((p) => p.seat === s)))))))));
}

// -- lists of games ---------------------------------------------------------------------------------

/** `key`'s sentence with some of its {fields} elements (a name that is a link) in place. */
function tnodes(key, nodes) {
  const keys = Object.keys(nodes);
  const marks = Object.fromEntries(keys.map((k, i) => [k, `\u0001${i}\u0001`]));
  return t(key, marks).split(/\u0001(\d+)\u0001/).flatMap((part, j) => (j % 2 ? nodes[keys[Number(part)]] : [part]));
}

function gameItem(g) {
  // A name is a link to the person's profile when it is an account's (guests and bots: none);
  // made afresh at each use (a name can be said twice: the pairs, then the winners).
  const seats = g.seats || [];
  const names = seats.map((_, i) => () => {
    const s = seats[i];
    const name = s.kind === "bot" ? M.BOT_NAMES[i] : s.nickname || "?";
    return s.profile ? link(`/u/${encodeURIComponent(s.profile)}`, name, { class: "who" }) : name;
  });
  // To someone who was not at the table "Nosotros" means nothing: each pair goes by its players
  // (partners sit across: seats 0 and 2 are pair A, 1 and 3 pair B).
  const pair = (p) => tnodes("g_pair", { a: names[p](), b: names[p + 2]() });
  const four = names.length === 4;
  const who = four ? [...pair(0), ` ${t("g_vs")} `, ...pair(1)] : names.flatMap((x, i) => (i ? [", ", x()] : [x()]));
  const winner = g.winner && four ? tnodes("g_winner", { pair: pair("AB".indexOf(g.winner)) }) : g.aborted ? [t("g_aborted")] : g.abandoned ? [t("g_abandoned")] : [];
  const res = g.won === undefined ? winner : [t(g.won ? "g_won" : "g_lost")];
  // A person's own list (the profile's): the rating change or "unrated", and the record.
  const own = g.won === undefined ? [] : [
    g.change !== null && g.change !== undefined ? ` · ${num(g.change)}` : ` · ${t("unrated")}`,
    " · ", h("a", { href: `/api/tables/${encodeURIComponent(g.table)}/record`, class: "record" }, t("record"))];
  return h("li", { class: `game-item${g.won === undefined ? "" : g.won ? " won" : " lost"}` },
    link(`/g/${encodeURIComponent(g.table)}`, `${when(g.finished)} · ${g.preset ? t(`variant_${g.preset}`) : rulesText(g.rules)}`),
    who.length ? [" · ", ...who] : null, res.length ? [" · ", ...res] : null, own);
}

/** A paged list of finished games, newest first, with a "more" button while more follow. */
export function gameList(first, id) {
  const list = h("ul", { class: "game-list", id });
  const box = h("div", {}, list);
  const more = async (url) => {
    try {
      const page = await api(url.replace(/^https?:\/\/[^/]+/, ""));
      list.append(...page.games.map(gameItem));
      if (!list.children.length) list.replaceWith(h("p", { id: `${id}-none` }, t("g_none")));
      const old = box.querySelector(".more");
      if (old) old.remove();
      if (page.next) box.append(h("button", { class: "more", id: `${id}-more`, onclick: () => more(page.next) }, t("g_more")));
    } catch (e) {
      box.append(h("p", { class: "error" }, M.errorText(e)));
    }
  };
  more(first);
  return box;
}

/** The profile's block of every game, paged (club.js appends it once the profile is drawn). */
export function historyBlock(handle) {
  style();
  return h("section", { class: "history", id: "history" }, h("h2", {}, t("g_all_games")),
    gameList(`/api/profiles/${encodeURIComponent(handle)}/games?limit=10`, "person-games"));
}

function openRecent() {
  G = null;
  const page = () => app.root.replaceChildren(header([langSelect()]),
    h("main", { class: "game-page", id: "recent" }, h("h1", {}, t("g_recent")), gameList("/api/games?limit=20", "recent-games")));
  app.game = page;
  page();
}
