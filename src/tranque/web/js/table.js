// The table screen: the seats around the felt, the chain, the player's hand, what is due now,
// the log; the dialogs over it (panels.js). Drawn again from the model after every frame.
import { h, $, app, store, toast, secondsTo } from "./dom.js";
import { t, getLang } from "./i18n.js";
import { tileSVG, spokenName, parseTile, splitTiles, numberName } from "./tiles.js";
import { snakeLayout } from "./snake.js";
import { header, iconButton } from "./chrome.js";
import { settings, aidAllowed } from "./settings.js";
import { play as sound } from "./sound.js";
import { showTurn } from "./alerts.js";
import { openDialog, gameOverBlock, staticTile, withSlots, endingModule } from "./panels.js";
import * as M from "./model.js";
import { phrasesBar, saidBubble, seatRating, spectatorsLine, watchRow } from "./talk.js";

// How far the played tile slides, for the curious and the tests: one count per tile that slid.
export const motion = { slides: 0 };
const SLIDE_MS = 380;

// -- deciding ----------------------------------------------------------------------------------

function movesFor(m, tile) {
  return (m.state.legal || []).filter((mv) => mv.split("@")[0] === tile);
}

function play(m, move) {
  const tile = move.split("@")[0];
  const from = document.querySelector(`.hand .tile[data-tile="${tile}"]`);
  m.slideFrom = from ? from.getBoundingClientRect() : null;
  m.selected = null;
  app.sock.command({ type: "play", seq: m.state.version, move });
  app.render();
}

function onTile(m, tile) {
  const moves = movesFor(m, tile);
  if (!moves.length) return;
  // One move and no wish to confirm: a tap plays it. Otherwise the tile is selected and the
  // choice (the end, or "Jugar") is offered.
  if (moves.length === 1 && !settings().confirm) return play(m, moves[0]);
  m.selected = m.selected === tile ? null : tile;
  app.render();
  const first = document.querySelector(".end-choice button");
  if (first) first.focus();
}

function myDecisionDue(m) {
  const st = m.state;
  return Boolean(st.choosing || M.redealOffered(m) || (st.legal || []).length);
}

// -- the seats -----------------------------------------------------------------------------------

function tilesLeft(n) {
  return t(n === 1 ? "tiles_left_1" : "tiles_left", { n });
}

function choosingSeats(m) {
  const leader = m.choices ? m.choices.leader : null;
  if (leader === null || leader === undefined) return [];
  const pair = leader % 2;
  return [pair, pair + 2];
}

/** A countdown bar with its seconds, to a server time (drawn again by `tickClocks`). */
function clock(deadline, total, extra = {}) {
  return h("div", { class: "clock", "data-deadline": deadline, "data-total": total, ...extra },
    h("div", { class: "track" }, h("div", { class: "bar" })), h("span", { class: "secs" }));
}

function pairMark(m, seat, rel) {
  const me = M.mySeat(m);
  if (me === null) return h("span", { class: "pair-mark" }, t(seat % 2 === 0 ? "pair_a" : "pair_b"));
  if (rel === 0) return null;
  return h("span", { class: "pair-mark" }, seat % 2 === me % 2 ? t("partner") : t("opponent"));
}

/** A seat's name; an account holder's links to his profile, in a new tab (the game goes on). */
function seatName(m, seat) {
  const handle = m.ratings && m.ratings.profiles && m.ratings.profiles[seat];
  if (!handle) return h("span", { class: "name" }, M.nameOf(m, seat));
  return h("a", { class: "name", href: `/u/${encodeURIComponent(handle)}`, target: "_blank", rel: "noopener" }, M.nameOf(m, seat));
}

function seatBadge(m, seat, rel) {
  const info = (m.info && m.info.seats && m.info.seats[seat]) || { kind: "empty" };
  const st = m.state;
  const count = (st.counts || [])[seat];
  const turn = st.turn === seat;
  const me = M.mySeat(m);
  const partner = me !== null && seat % 2 === me % 2;
  const kids = [
    h("div", { class: "who" },
      seatName(m, seat),
      info.kind === "bot" || info.taken_over ? h("span", { class: "bot-mark", title: t("bot") }, "BOT") : null,
      seatRating(m, seat),
      info.away ? h("span", { class: "away-mark" }, t("away")) : null,
      pairMark(m, seat, rel)),
  ];
  if (rel === 0 && me === seat && m.info && !m.info.started && m.status === "online" && m.me && !m.me.account) {
    kids.push(h("div", { class: "seat-actions" }, h("button", { class: "change-name", onclick: () => rename(m, seat) }, t("change_name"))));
  }
  // Seats are offered once the socket has the table (a click before would have nowhere to go).
  if (info.kind === "empty" && m.info && !m.info.started && m.status === "online") {
    kids.push(h("div", { class: "seat-actions" },
      me === null && m.role === "player" && !m.sitting ? h("button", { class: "sit", "data-seat": seat, onclick: () => sit(m, seat) }, t("sit_here")) : null,
      m.me && m.info.host === m.me.guest ? h("button", { class: "add-bot", "data-seat": seat, onclick: () => app.sock.command({ type: "add_bot", seat }) }, t("add_bot")) : null));
  }
  if (count !== undefined && m.state.phase && m.state.phase !== "deal") {
    kids.push(h("div", { class: "backs", role: "img", "aria-label": tilesLeft(count) },
      rel === 0 ? null : Array.from({ length: count }, () => h("span", { class: "back" })),
      h("span", { class: "count", "aria-hidden": "true" }, tilesLeft(count))));
  }
  kids.push(saidBubble(m, seat));
  if (m.lastBy[seat] === "pass") kids.push(h("div", { class: "pass-bubble", role: "status" }, t("passed")));
  if (m.chose.has(seat) && !m.choices && st.phase === "choose") kids.push(h("div", { class: "chose-mark" }, t("has_chosen")));
  if (m.choices && st.phase === "play" && m.moves.length === 0) {
    const idx = choosingSeats(m).indexOf(seat);
    if (idx >= 0) {
      const c = m.choices.choices[idx];
      kids.push(h("div", { class: "choice-reveal" }, c === "salgo" ? t("salgo") : c === "sal_tu" ? t("sal_tu") : t("no_answer")));
    }
  }
  if (turn && st.deadline) kids.push(clock(st.deadline, (m.info && m.info.settings && m.info.settings.move_clock) || 25, { "data-seat": seat }));
  return h("div", { class: `seat rel${rel}${turn ? " turn" : ""}${partner ? " partner" : ""}`, "data-seat": seat, "aria-current": turn ? "true" : null }, kids);
}

async function sit(m, seat) {
  m.sitting = seat; // one click: the buttons go until the server answers (or refuses)
  app.render();
  // A guest sits by the name he chose (asked for here the first time: naming.js).
  const g = await app.ensureNamed().catch(() => null);
  if (!g || app.m !== m) {
    m.sitting = null;
    return app.render();
  }
  app.sock.command(g.account ? { type: "sit", seat } : { type: "sit", seat, nickname: g.nickname });
}

/** A seated guest's new name, before the first hand: the same seat, "sat" again by that name. */
async function rename(m, seat) {
  const { askName } = await import("./naming.js");
  const g = await askName({ prefill: m.info.seats[seat].nickname || "", change: true });
  if (g && app.m === m) app.sock.command({ type: "sit", seat, nickname: g.nickname });
}

// -- the chain ----------------------------------------------------------------------------------

function chainView(m) {
  // The finished hand's ends only over its chain: the next deal empties the chain, and its ends.
  const ends = m.state.ends || (m.result && m.chain.length ? m.result.view.ends : null);
  const sel = m.selected;
  const selMoves = sel ? movesFor(m, sel) : [];
  const endBadge = (side) => {
    const n = ends[side === "left" ? 0 : 1];
    const mv = selMoves.length > 1 && (ends[0] !== ends[1] || side === "left") ? selMoves.find((x) => Number(x.split("@")[1]) === n) : null;
    if (mv) {
      // Its name says what it shows (the number), then what it does.
      return h("button", { class: `end ${side} target`, "data-end": side, "aria-label": t("play_on_end", { name: spokenName(sel, getLang()), n }), onclick: () => play(m, mv) }, String(n));
    }
    return h("span", { class: `end ${side}`, "data-end": side, role: "img", "aria-label": t(side === "left" ? "end_left" : "end_right", { n: numberName(n, getLang()) }) }, String(n));
  };
  let newest = null;
  for (let i = m.moves.length - 1; i >= 0 && newest === null; i--) if (m.moves[i][1] !== "pass") newest = m.moves[i][1].split("@")[0];
  const tiles = m.chain.map((p, i) => {
    const [a, b] = parseTile(p.tile);
    // The halves in chain order: `first` touches the tile before, `second` the tile after.
    // Left tiles show on their left the number they opened, right tiles show it on their right;
    // the lead shows its high half first. layoutChain() draws each tile facing its row.
    let first;
    if (p.side === "left") first = p.opened;
    else if (p.side === "right") first = a === p.opened ? b : a;
    else first = Math.max(a, b);
    const second = first === a ? b : a;
    const mark = p.tile === newest;
    const cls = `chain-tile${a === b ? " double" : ""}${p.side === "lead" ? " lead" : ""}${i === 0 ? " first" : ""}${i === m.chain.length - 1 ? " last" : ""}${mark ? " newest" : ""}`;
    const label = spokenName(p.tile, getLang()) + (p.side === "lead" ? ` (${t("lead")})` : "") + (mark ? ` (${t("newest")})` : "");
    return h("span", { class: cls, role: "listitem", "aria-label": label, "data-tile": p.tile, "data-halves": `${first}${second}` });
  });
  const endsLine = ends
    ? h("div", { class: "ends-line" }, h("span", { class: "ends-label" }, t("ends")), endBadge("left"), h("span", { class: "ends-dot" }, "·"), endBadge("right"))
    : h("div", { class: "ends-line empty" }, m.state.phase === "play" ? t("waiting_lead") : "");
  let pick = null;
  if (sel && selMoves.length > 1) {
    pick = h("div", { class: "end-choice", role: "group", "aria-label": t("choose_end") },
      h("span", {}, t("choose_end_for", { name: spokenName(sel, getLang()) })),
      selMoves.map((mv) => h("button", { class: "end-btn", "data-move": mv, onclick: () => play(m, mv) }, t("on_end", { n: Number(mv.split("@")[1]) }))),
      h("button", { class: "link", onclick: () => ((m.selected = null), app.render()) }, t("cancel")));
  } else if (sel && selMoves.length === 1) {
    pick = h("div", { class: "end-choice", role: "group", "aria-label": t("confirm_play") },
      h("button", { id: "confirm-play", class: "end-btn", onclick: () => play(m, selMoves[0]) }, t("play_tile", { name: spokenName(sel, getLang()) })),
      h("button", { class: "link", onclick: () => ((m.selected = null), app.render()) }, t("cancel")));
  }
  return h("section", { class: "board", "aria-label": t("board") },
    endsLine,
    pick,
    h("div", { class: "chain", role: "list", "aria-label": t("chain") }, h("span", { class: "chain-unit", "aria-hidden": "true" }), tiles));
}

// The chain bends like a line of dominoes on a table (snake.js): rows computed from the width of
// the board and the size of a half, laid out again whenever that width changes.
const chainLayout = { el: null, width: -1, observer: null };

export function layoutChain() {
  const chain = document.querySelector(".chain");
  if (!chain) return;
  const width = chain.clientWidth;
  if (chain === chainLayout.el && width === chainLayout.width) return;
  if (chain !== chainLayout.el && typeof ResizeObserver === "function") {
    // In the next frame, not inside the observer: the new height would be a change it cannot
    // deliver in this one ("ResizeObserver loop completed with undelivered notifications").
    if (!chainLayout.observer) chainLayout.observer = new ResizeObserver(() => requestAnimationFrame(layoutChain));
    chainLayout.observer.disconnect();
    chainLayout.observer.observe(chain);
  }
  chainLayout.el = chain;
  chainLayout.width = width;
  const tiles = [...chain.querySelectorAll(".chain-tile")];
  const u = chain.querySelector(".chain-unit").getBoundingClientRect().width || 22;
  const [gap, rowGap] = u < 28 ? [2, 3] : [3, 4];
  const halves = tiles.map((el) => parseTile(el.dataset.halves));
  const lay = snakeLayout(halves.map(([x, y]) => x === y), width, u, { gap, rowGap });
  lay.items.forEach((b, i) => {
    const el = tiles[i];
    const [first, second] = halves[i];
    const upright = b.dir === 0 || first === second;
    // Touching halves match: a right-to-left row shows each tile's second half on the left; the
    // tile at a bend shows its first half on top, level with the row it ends.
    const svg = b.dir < 0 && !upright ? tileSVG(second, first) : tileSVG(first, second, { vertical: upright });
    el.replaceChildren(svg);
    el.dataset.row = String(b.row);
    el.dataset.dir = String(b.dir);
    el.classList.toggle("bend", b.dir === 0);
    Object.assign(el.style, { left: `${b.x}px`, top: `${b.y}px`, width: `${b.w}px`, height: `${b.h}px` });
  });
  chain.style.height = `${Math.ceil(lay.height)}px`;
  chain.dataset.rows = String(lay.rows);
}

/**
 * The tile just played slides from the hand that played it to its place in the chain. A
 * redraw in the middle takes the slide up where it was; reduced motion means no slide at all.
 */
function slideNewest(m) {
  const s = m.slide;
  if (!s || matchMedia("(prefers-reduced-motion: reduce)").matches) {
    m.slide = null;
    return;
  }
  const el = document.querySelector(`.chain-tile[data-tile="${s.tile}"]`);
  if (!el || typeof el.animate !== "function") return;
  if (s.start === undefined) {
    const to = el.getBoundingClientRect();
    const seat = document.querySelector(`.seat[data-seat="${s.seat}"]`);
    const from = s.seat === M.mySeat(m) && m.slideFrom ? m.slideFrom : seat && seat.getBoundingClientRect();
    m.slideFrom = null;
    if (!from || !to.width) return;
    s.dx = from.left + from.width / 2 - (to.left + to.width / 2);
    s.dy = from.top + from.height / 2 - (to.top + to.height / 2);
    s.start = performance.now();
    motion.slides += 1;
  }
  const elapsed = performance.now() - s.start;
  if (elapsed >= SLIDE_MS) {
    m.slide = null;
    return;
  }
  el.animate([{ transform: `translate(${s.dx}px, ${s.dy}px) scale(1.15)` }, { transform: "none" }],
    { duration: SLIDE_MS, delay: -elapsed, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" });
}

// -- the hand, what is due, the aid, the log --------------------------------------------------------

function tileButton(tile, { playable, selected, onclick }) {
  const [a, b] = parseTile(tile);
  const name = spokenName(tile, getLang());
  return h("button", {
    class: `tile${playable ? " playable" : ""}${selected ? " selected" : ""}`,
    "data-tile": tile,
    "aria-label": playable ? t("tile_playable", { name }) : name,
    "aria-pressed": selected ? "true" : null,
    "aria-disabled": playable ? null : "true",
    onclick,
    type: "button",
  }, tileSVG(Math.max(a, b), Math.min(a, b), { vertical: true }));
}

function myHand(m) {
  const st = m.state;
  const legal = new Set((st.legal || []).map((mv) => mv.split("@")[0]));
  // Only on the player's own turn are the tiles that do not fit dimmed: deciding anything else
  // (Salgo / Sal tú, a redeal) is done looking at the whole hand.
  return h("section", { class: `hand${legal.size ? " my-turn" : ""}`, "aria-label": t("my_hand") },
    h("div", { class: "hand-tiles", role: "group", "aria-label": t("my_hand") },
      splitTiles(st.tiles).map((x) => tileButton(x, { playable: legal.has(x), selected: m.selected === x, onclick: () => onTile(m, x) }))));
}

function statusLine(m) {
  const st = m.state;
  const me = M.mySeat(m);
  if (!m.info) return t("loading");
  if (!m.info.started) return t("waiting_players", { n: m.info.seats.filter((s) => s.kind === "empty").length });
  if (m.gameWinner !== null && m.gameWinner !== undefined) return M.gameEndText(m);
  switch (st.phase) {
    case "deal":
      return t("dealing");
    case "redeal":
      return t("redeal_phase");
    case "choose":
      return choosingLine(m);
    case "play":
      if (st.turn === me) return (st.legal || []).length ? t("your_turn") : t("you_pass");
      return t("turn_of", { name: M.nameOf(m, st.turn) });
    default:
      return "";
  }
}

/** Who is choosing Salgo / Sal tú, said to each reader in his own terms: a spectator by the
 * pair's names (he has no "other pair"), a player of the pair who has chosen by his partner. */
function choosingLine(m) {
  const st = m.state;
  if (st.choosing) return t("choose_now");
  const me = M.mySeat(m);
  const pair = m.leadingPair;
  if (pair === null || pair === undefined) return t("choosing_someone");
  if (me === null) return t("pair_choosing", { a: M.nameOf(m, pair), b: M.nameOf(m, pair + 2) });
  if (me % 2 === pair) return t("partner_choosing", { name: M.nameOf(m, (me + 2) % 4) });
  return t("partners_choose");
}

function actionBar(m) {
  const st = m.state;
  const windows = (m.info && m.info.settings) || {};
  const kids = [h("p", { class: "status", id: "status-line", "aria-live": "polite" }, statusLine(m))];
  if (M.matchOf(m)) kids.push(h("p", { id: "match-tally", class: "match-tally", role: "status" }, M.tallyText(m)));
  if (st.choosing) {
    kids.push(h("div", { class: "choose", role: "group", "aria-label": t("who_leads") },
      h("button", { id: "salgo", class: "primary", onclick: () => app.sock.command({ type: "choose", seq: st.version, choice: "salgo" }) }, t("salgo")),
      h("button", { id: "sal-tu", onclick: () => app.sock.command({ type: "choose", seq: st.version, choice: "sal_tu" }) }, t("sal_tu")),
      st.my_deadline ? clock(st.my_deadline, windows.choose_window || 15) : null));
  }
  if (M.redealOffered(m)) {
    const no = () => {
      m.redealSaidNo = true;
      app.sock.command({ type: "redeal", seq: st.version, ask: false });
      app.render();
    };
    kids.push(h("div", { class: "redeal", role: "group" },
      h("span", {}, t("redeal_offer")),
      h("button", { id: "redeal-yes", class: "primary", onclick: () => app.sock.command({ type: "redeal", seq: st.version, ask: true }) }, t("redeal_yes")),
      h("button", { id: "redeal-no", onclick: no }, t("redeal_no")),
      st.my_deadline ? clock(st.my_deadline, windows.redeal_window || 3) : null));
  } else if (st.phase === "redeal" && st.deadline) {
    // Every deal is on show this long, for everybody alike (whoever may ask for a redeal).
    kids.push(clock(st.deadline, windows.redeal_window || 3, { id: "deal-clock" }));
  }
  if (m.choices && st.phase === "play" && m.moves.length === 0) {
    const [s1, s2] = choosingSeats(m);
    const c = m.choices.choices;
    const word = (x) => (x === "salgo" ? t("salgo") : x === "sal_tu" ? t("sal_tu") : t("no_answer"));
    kids.push(h("p", { class: "reveal", id: "reveal" }, t("reveal_line", { a: M.nameOf(m, s1), ca: word(c[0]), b: M.nameOf(m, s2), cb: word(c[1]), leader: M.nameOf(m, m.choices.leader) })));
  }
  if (m.redealBy !== null && st.phase !== "play") kids.push(h("p", { class: "reveal" }, t("log_redeal", { name: M.nameOf(m, m.redealBy) })));
  if (!(m.showResult && m.result)) kids.push(phrasesBar(m)); // the end of a hand has its own (panels.js)
  return h("section", { class: "actions" }, kids);
}

/** The beginner's aid: how many tiles of each number are already on the table. */
function aidPanel(m) {
  if (!aidAllowed(m.info) || !m.chain.length) return null;
  const top = (typeof m.rules === "object" && m.rules && m.rules.max_pip) || (m.rules === "oriente" ? 6 : 9);
  const played = Array(top + 1).fill(0);
  for (const p of m.chain) {
    const [a, b] = parseTile(p.tile);
    played[a] += 1;
    if (b !== a) played[b] += 1;
  }
  return h("section", { class: "aid", id: "aid", "aria-label": t("aid_title") },
    h("h2", {}, t("aid_title")),
    h("ul", {}, played.map((n, k) => h("li", { "data-n": k, title: t("aid_item", { k, n, of: top + 1 }) },
      h("b", {}, String(k)), h("span", {}, `${n}/${top + 1}`)))));
}

function logView(m) {
  const line = (x) => h("li", { class: x.cls || null },
    x.tiles ? withSlots(x.text, { a: staticTile(x.tiles[0]), b: staticTile(x.tiles[1]) }) : x.text);
  const grouped = m.logBySeat === true;
  const tab = (id, on, label) => h("button", { id, type: "button", class: "log-tab", "aria-pressed": String(on),
    onclick: () => ((m.logBySeat = id === "log-seats"), store.set("logBySeat", m.logBySeat), app.render()) }, label);
  return h("section", { class: "log", "aria-label": t("log") },
    h("h2", { class: "sr" }, t("log")),
    h("div", { class: "log-tabs", role: "group", "aria-label": t("log") },
      tab("log-order", !grouped, t("log_in_order")), tab("log-seats", grouped, t("log_by_seat"))),
    grouped ? (endingModule() ? endingModule().bySeatList(m) : h("p", {}, t("loading")))
      // Newest first; it scrolls, so it takes the focus (a keyboard scrolls it too).
      : h("ol", { reversed: true, tabindex: 0, "aria-label": t("log") }, m.log.slice().reverse().map(line)));
}

function inviteBox(m) {
  if (!m.info || m.info.started || m.info.settings.practice) return null;
  const url = `${location.origin}/t/${encodeURIComponent(m.table)}`;
  return h("section", { class: "invite card" },
    h("label", { for: "invite-link" }, t("invite")),
    h("div", { class: "row" },
      h("input", { id: "invite-link", readonly: true, value: url, onfocus: (e) => e.target.select() }),
      h("button", {
        id: "copy-invite",
        onclick: async () => {
          try {
            await navigator.clipboard.writeText(url);
            toast(t("copied"));
          } catch {
            $("#invite-link").select();
            toast(t("copy_by_hand"));
          }
        },
      }, t("copy"))),
    watchRow(m));
}

function verifyBadge(m) {
  const hands = Object.values(m.checks);
  if (!hands.length || m.checking) return null;
  const ok = hands.every((cs) => M.handVerdict(cs));
  return h("span", { class: `vbadge ${ok ? "ok" : "bad"}`, id: "verify-badge" }, ok ? "✓" : "✗");
}

function tableHeader(m) {
  const scores = m.state.scores || [0, 0];
  const { ours, us, them } = M.columns(m);
  const toggle = (panel) => (e) => {
    m.panel = m.panel === panel ? null : panel;
    m.returnFocus = e.currentTarget.id; // where the focus goes back when the dialog closes
    app.render();
  };
  return header([
    // No aria-label: its name is what it shows (a planilla's two columns and their scores).
    h("button", { id: "open-sheet", class: "score-chip", title: t("planilla"), onclick: toggle("sheet") },
      h("span", { class: "lbl" }, us), h("b", { id: "score-ours" }, String(scores[ours])),
      h("span", { class: "sep" }, "–"),
      h("b", { id: "score-theirs" }, String(scores[1 - ours])), h("span", { class: "lbl" }, them)),
    m.result ? iconButton("open-result", "last", t("last_hand"), () => ((m.showResult = true), (m.returnFocus = "open-result"), app.render())) : null,
    iconButton("open-verify", "verify", t("verification"), toggle("verify"), verifyBadge(m)),
    iconButton("open-settings", "settings", t("settings"), toggle("settings")),
  ], { table: true });
}

/** A game this person plays is under way here: every other screen offers the way back to it
 * ("Volver a tu mesa", chrome.js); once it is over, no more. */
function keepMyTable(m) {
  if (!m.info || m.role !== "player") return;
  const on = m.info.started && !m.info.over && M.mySeat(m) !== null && (m.gameWinner === null || M.betweenGames(m));
  const mine = store.get("myTable");
  if (on && mine !== m.table) store.set("myTable", m.table);
  else if (!on && mine === m.table) store.set("myTable", null);
}

// -- the whole screen -----------------------------------------------------------------------------

export function renderTable() {
  const m = app.m;
  if (!m) return;
  const focused = document.activeElement;
  const focusKey = focused && (focused.id || (focused.dataset && focused.dataset.tile));
  const overlay = $(".overlay");
  const scrolled = overlay ? overlay.scrollTop : 0;
  const me = M.mySeat(m);
  const due = myDecisionDue(m);
  if (due && !m.wasDue) sound("turn");
  m.wasDue = due;
  showTurn(`tranque · ${m.table}`, due);
  const kids = [tableHeader(m), h("div", { id: "conn", class: "conn", role: "status", hidden: true })];
  if (m.error) {
    kids.push(h("main", { class: "table-error" }, h("h1", {}, m.error), h("a", { href: "/", onclick: (e) => (e.preventDefault(), app.go("/")) }, t("back_home"))));
    app.root.replaceChildren(...kids);
    return;
  }
  if (m.sitting !== undefined && (me !== null || (m.info && m.info.seats[m.sitting].kind !== "empty"))) m.sitting = undefined;
  const rel = (r) => (me === null ? r : (me + r) % 4);
  const over = m.gameWinner !== null && m.gameWinner !== undefined;
  kids.push(h("main", { class: `table phase-${m.state.phase || "none"}` },
    h("h1", { class: "sr" }, t("table_title", { table: m.table })),
    m.info && m.info.rematch && !m.info.started && endingModule() ? endingModule().rematchSeatBox(m) : null,
    inviteBox(m),
    m.watching ? h("p", { class: "notice", id: "watching", role: "status" }, t(m.watching === "full" ? "watching_full" : "watching")) : null,
    m.info && m.info.aborted ? h("p", { class: "notice", id: "aborted", role: "status" }, t("table_aborted", { name: M.nameOf(m, m.info.aborted.seat) }))
      : m.info && m.info.abandoned ? h("p", { class: "notice", id: "abandoned", role: "status" }, t("table_abandoned")) : null,
    h("div", { class: "felt" },
      seatBadge(m, rel(2), 2),
      seatBadge(m, rel(3), 3),
      chainView(m),
      seatBadge(m, rel(1), 1),
      seatBadge(m, rel(0), 0)),
    actionBar(m),
    me !== null && splitTiles(m.state.tiles).length ? myHand(m) : null,
    over && !m.showResult && m.panel === null && m.result ? h("section", { class: "panel game-end" }, gameOverBlock(m)) : null,
    h("aside", { class: "side" },
      spectatorsLine(m),
      aidPanel(m),
      logView(m),
      h("p", { class: "help-line" }, h("a", { id: "help-link", href: "/help.html", target: "_blank", rel: "noopener" }, t("help_link"))))));
  const dialog = openDialog(m);
  if (dialog) {
    // Behind a dialog the table can be seen, not used (nor read out).
    for (const k of kids) k.inert = true;
    kids.push(dialog);
  }
  app.root.replaceChildren(...kids);
  keepMyTable(m);
  if (app.onTable) app.onTable(m); // a chip table's stake and payout (chips.js)
  layoutChain();
  slideNewest(m);
  app.renderStatus();
  const quiet = { preventScroll: true };
  if (dialog) {
    const again = focusKey && document.getElementById(focusKey);
    if (again && dialog.contains(again)) again.focus(quiet);
    else ($("#continue", dialog) || $("#play-again", dialog) || $("#rematch-yes", dialog) || $("#rematch-go", dialog) || $("#back-to-result", dialog) || $("#see-sheet", dialog) || $(".close", dialog) || dialog).focus(quiet);
    dialog.scrollTop = scrolled; // a redraw while the player reads keeps his place
  } else {
    const back = m.returnFocus && overlay ? m.returnFocus : focusKey;
    if (overlay) m.returnFocus = null;
    const again = back && (document.getElementById(back) || document.querySelector(`[data-tile="${back}"].tile`));
    if (again && again.focus) again.focus(quiet);
  }
  tickClocks();
}

/** Every countdown on screen, from the server's clock: a bar and its seconds, or seconds alone. */
export function tickClocks() {
  for (const el of document.querySelectorAll("[data-deadline]")) {
    const left = secondsTo(Number(el.dataset.deadline));
    const text = left >= 1 ? `${Math.ceil(left)} s` : "";
    if (!el.classList.contains("clock")) {
      el.textContent = text || "0 s";
      continue;
    }
    const total = Number(el.dataset.total) || 25;
    el.querySelector(".bar").style.width = `${(Math.max(0, Math.min(1, left / total)) * 100).toFixed(1)}%`;
    el.classList.toggle("low", left < 6);
    el.querySelector(".secs").textContent = text;
  }
}
