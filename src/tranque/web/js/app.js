// The browser client: the landing, the table, the planilla, the end of a hand, the verification.
import { api, TableSocket } from "./net.js";
import { t, getLang, setLang, LANGS } from "./i18n.js";
import { tileSVG, spokenName, parseTile, pips, splitTiles, numberName } from "./tiles.js";
import { snakeLayout } from "./snake.js";
import * as F from "./fairness.js";

const $ = (sel, root = document) => root.querySelector(sel);
const LEVELS = ["facil", "normal", "fuerte"]; // the bots' levels a practice table takes
const store = {
  get(k, d = null) {
    try {
      const v = localStorage.getItem(`tranque.${k}`);
      return v === null ? d : JSON.parse(v);
    } catch {
      return d;
    }
  },
  set(k, v) {
    try {
      localStorage.setItem(`tranque.${k}`, JSON.stringify(v));
    } catch {
      /* private mode: keep going without */
    }
  },
};

function h(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    e.appendChild(typeof kid === "string" || typeof kid === "number" ? document.createTextNode(String(kid)) : kid);
  }
  return e;
}

// -- identity ------------------------------------------------------------------------------------

// A guest token expires (30 days by default) unless it is renewed while still valid: the saved
// one is renewed once per page load, and an expired or unknown one makes a new guest of the same
// nickname.
let renewed = false;

async function identity(nickname) {
  let saved = store.get("guest");
  const nick = (nickname || "").trim();
  if (saved && !renewed) {
    try {
      const g = await api("/api/guests/renew", { method: "POST", token: saved.token });
      store.set("guest", g);
      saved = g;
      renewed = true;
    } catch (e) {
      if (e.status === 401) {
        store.set("guest", null);
        return identity(nick || saved.nickname);
      }
    }
  }
  if (saved && (!nick || nick === saved.nickname)) return saved;
  const g = await api("/api/guests", { method: "POST", body: { nickname: nick || null } });
  store.set("guest", g);
  renewed = true;
  return g;
}

// -- the app -------------------------------------------------------------------------------------

const app = {
  root: null,
  sock: null,
  m: null, // the table model
  toastTimer: null,
  rejoined: false,
};

function route() {
  const path = location.pathname;
  const match = path.match(/^\/t\/([^/]+)/);
  if (app.sock) {
    app.sock.close();
    app.sock = null;
  }
  app.m = null;
  if (match) openTable(decodeURIComponent(match[1]));
  else renderLanding();
}

function go(path) {
  history.pushState(null, "", path);
  route();
}

function toast(text) {
  const el = $("#toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(app.toastTimer);
  app.toastTimer = setTimeout(() => (el.hidden = true), 4000);
}

function header(extra = []) {
  const sel = h(
    "select",
    {
      id: "lang",
      "aria-label": t("language"),
      onchange: (e) => {
        setLang(e.target.value);
        document.documentElement.lang = getLang();
        rerender();
      },
    },
    LANGS.map((l) => h("option", { value: l.code, selected: l.code === getLang(), title: l.name }, l.code.toUpperCase())),
  );
  return h(
    "header",
    { class: "top" },
    h("a", { class: "brand", href: "/", onclick: (e) => (e.preventDefault(), go("/")) }, "tranque"),
    h("div", { class: "top-extra" }, extra),
    h("label", { class: "lang" }, h("span", { class: "sr" }, t("language")), sel),
  );
}

function rerender() {
  if (app.m) renderTable();
  else renderLanding();
}

// -- landing ---------------------------------------------------------------------------------------

const VARIANTS = ["havana", "miami", "oriente", "barrio"];
const TARGETS = { havana: 100, miami: 150, oriente: 20, barrio: 100 };

function renderLanding() {
  document.title = "tranque";
  const g = store.get("guest");
  const nick = h("input", {
    id: "nickname",
    name: "nickname",
    maxlength: 24,
    autocomplete: "nickname",
    value: (g && g.nickname && !g.nickname.startsWith("guest-") && g.nickname) || "",
    placeholder: t("nickname_ph"),
  });
  const busy = (b) => document.querySelectorAll("button").forEach((x) => (x.disabled = b));
  const start = async (body) => {
    busy(true);
    try {
      const me = await identity(nick.value);
      const tab = await api("/api/tables", { method: "POST", body, token: me.token });
      go(`/t/${encodeURIComponent(tab.table)}`);
    } catch (e) {
      busy(false);
      toast(errorText(e));
    }
  };
  const variant = h(
    "select",
    { id: "variant", onchange: () => (target.value = TARGETS[variant.value]) },
    VARIANTS.map((v) => h("option", { value: v }, t(`variant_${v}`))),
  );
  const target = h("input", { id: "target", type: "number", min: 10, max: 500, step: 5, value: 100 });
  const clock = h(
    "select",
    { id: "clock" },
    [10, 15, 25, 40, 60].map((s) => h("option", { value: s, selected: s === 25 }, t("seconds", { n: s }))),
  );
  const mode = (v, checked) =>
    h("label", { class: "radio" }, h("input", { type: "radio", name: "mode", value: v, checked }), t(`mode_${v}`));
  const link = h("input", { id: "joinlink", placeholder: t("join_ph"), autocomplete: "off" });
  // The bots' level of a practice table (Fácil / Normal / Fuerte), remembered for next time.
  const saved = LEVELS.includes(store.get("level")) ? store.get("level") : "normal";
  const levels = h("fieldset", { class: "modes levels", id: "level" },
    h("legend", {}, t("level")),
    LEVELS.map((v) => h("label", { class: "radio" },
      h("input", { type: "radio", name: "level", value: v, checked: v === saved, onchange: () => store.set("level", v) }),
      t(`level_${v}`))));
  const level = () => ($("input[name=level]:checked") || { value: saved }).value;
  app.root.replaceChildren(
    header(),
    h(
      "main",
      { class: "landing" },
      h("section", { class: "hero" },
        h("h1", {}, t("title")),
        h("p", { class: "tagline" }, t("tagline")),
        h("div", { class: "hero-tiles", "aria-hidden": "true" },
          ["99", "94", "44"].map((x, i) => {
            const [a, b] = parseTile(x);
            return h("span", { class: `hero-tile r${i}` }, tileSVG(a, b, { vertical: true }));
          })),
      ),
      h("section", { class: "card" },
        h("label", { for: "nickname" }, t("nickname")),
        nick,
        levels,
        h("button", { id: "play-now", class: "big primary", onclick: () => start({ rules: "havana", practice: true, seat: 0, bot: level() }) }, t("play_now")),
        h("p", { class: "hint" }, t("play_now_hint")),
      ),
      h("section", { class: "card" },
        h("h2", {}, t("create_table")),
        h("div", { class: "form-grid" },
          h("label", { for: "variant" }, t("variant")), variant,
          h("label", { for: "target" }, t("target")), target,
          h("label", { for: "clock" }, t("clock")), clock,
        ),
        h("fieldset", { class: "modes" }, h("legend", {}, t("mode")), mode("practice", true), mode("people", false)),
        h("button", {
          id: "create",
          class: "big",
          onclick: () => {
            const rules = { preset: variant.value };
            const n = Number(target.value);
            if (n && n !== TARGETS[variant.value]) rules.target = n;
            const practice = $("input[name=mode]:checked").value === "practice";
            const body = { rules: Object.keys(rules).length > 1 ? rules : variant.value, move_clock: Number(clock.value), practice, seat: 0 };
            if (practice) body.bot = level();
            start(body);
          },
        }, t("create")),
      ),
      h("section", { class: "card" },
        h("h2", {}, t("join")),
        h("label", { for: "joinlink", class: "sr" }, t("join_ph")),
        link,
        h("button", {
          id: "join",
          onclick: async () => {
            const v = link.value.trim();
            const m = v.match(/\/t\/([^/?#\s]+)/);
            const id = m ? m[1] : v;
            if (!id) return;
            await identity(nick.value).catch(() => null);
            go(`/t/${encodeURIComponent(decodeURIComponent(id))}`);
          },
        }, t("enter")),
      ),
      h("section", { class: "card rules-card" },
        h("h2", {}, t("how_title")),
        h("ul", {}, ["how1", "how2", "how3", "how4", "how5"].map((k) => h("li", {}, t(k))))),
    ),
  );
}

function errorText(e) {
  const key = `err_${e.code}`;
  const s = t(key);
  return s === key ? e.message || String(e) : s;
}

// -- the table model -------------------------------------------------------------------------------

function newModel(table, role) {
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
    result: null, // {view, fairness, gameOver} of the last finished hand
    showResult: false,
    gameWinner: null,
    pollona: false,
    selected: null,
    panel: null, // "sheet" | "verify" | null
    checks: store.get(`checks.${table}`, {}),
    seen: store.get(`seen.${table}`, {}),
    log: [],
    status: "connecting",
    error: null,
    redealBy: null,
  };
}

function saveSeen(m) {
  store.set(`seen.${m.table}`, m.seen);
}

function seenFor(m, hand) {
  if (!m.seen[hand]) m.seen[hand] = {};
  return m.seen[hand];
}

function mySeat(m) {
  const s = m.state && m.state.seat;
  return s === undefined || s === null ? null : s;
}

async function openTable(table) {
  const role = new URLSearchParams(location.search).get("watch") ? "spectator" : "player";
  const m = newModel(table, role);
  app.m = m;
  renderTable();
  let me;
  try {
    me = await identity();
  } catch (e) {
    m.error = errorText(e);
    renderTable();
    return;
  }
  m.me = me;
  try {
    m.info = await api(`/api/tables/${encodeURIComponent(table)}`);
  } catch (e) {
    m.error = e.status === 404 ? t("err_no_table") : errorText(e);
    renderTable();
    return;
  }
  if (m.info.over && !m.info.seats) {
    m.error = t("table_over");
    renderTable();
    return;
  }
  const sock = new TableSocket({
    table,
    token: me.token,
    role,
    onFrame: (f) => onFrame(m, f),
    onStatus: (s) => {
      m.status = s;
      renderStatus();
    },
  });
  app.sock = sock;
  window.tranque = { sock, model: m }; // for the curious, and for tests
  sock.connect();
}

function onFrame(m, f) {
  if (app.m !== m) return;
  if (f.type === "token") {
    // The server renews a token past half its life: keep the new one (same guest).
    const saved = store.get("guest");
    if (saved) store.set("guest", { ...saved, token: f.token });
    if (m.me) m.me.token = f.token;
    if (app.sock) app.sock.token = f.token; // its next hello, after a reconnect
    return;
  }
  if (f.type === "sync") {
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
    }
    if (f.commitments) {
      const s = seenFor(m, f.commitments.hand);
      s.serverCommit = f.commitments.server_commit;
      saveSeen(m);
    }
    setState(m, f.state);
    if (f.fairness && Object.keys(f.fairness).length) verifyAll(m);
    renderTable();
    return;
  }
  if (f.type === "event") {
    applyEvent(m, f.event, f.state);
    m.seq = f.seq;
    setState(m, f.state);
    renderTable();
    return;
  }
  if (f.type === "error") {
    if (f.code === "stale") {
      app.sock.sendRaw({ type: "sync", last_seq: m.seq });
      return;
    }
    if ((f.code === "token_expired" || f.code === "bad_token") && !app.rejoined) {
      // The saved identity is no longer good here: make a new one and join again (once).
      app.rejoined = true;
      store.set("guest", null);
      renewed = false;
      route();
      return;
    }
    // The table is gone (never there, expired before it started, or left the server's memory
    // while this socket was on it): say so in place of the table, and stop reconnecting.
    if (f.code === "no_table" || f.code === "table_expired" || f.code === "table_over") {
      m.error = errorText(f);
      app.sock.close();
      renderTable();
      return;
    }
    toast(errorText(f));
  }
}

function setState(m, st) {
  m.state = st || {};
  // A decision of mine is due and its clock runs: the last hand's result makes way for it.
  const due = m.state.choosing || m.state.redeal || (m.state.legal || []).length > 0;
  if (due && m.showResult && m.result && !m.result.gameOver) m.showResult = false;
  const fair = m.state.fair;
  if (fair && m.role === "player") fairDuty(m, fair);
}

async function fairDuty(m, fair) {
  const key = `${fair.hand}:${fair.do}`;
  m.fairSent = m.fairSent || new Set();
  if (m.fairSent.has(key)) return;
  m.fairSent.add(key);
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

function nameOf(m, seat) {
  const st = m.info && m.info.seats && m.info.seats[seat];
  if (!st) return t("seat_n", { n: seat + 1 });
  if (st.kind === "bot") return t("bot_name", { n: seat + 1 });
  if (st.kind === "empty") return t("empty_seat");
  return st.nickname || t("seat_n", { n: seat + 1 });
}

function logLine(m, text) {
  m.log.push(text);
  if (m.log.length > 40) m.log.shift();
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
      logLine(m, t("log_away", { name: nameOf(m, e.seat) }));
      break;
    case "back":
      if (seats) {
        seats[e.seat].away = false;
      }
      logLine(m, t("log_back", { name: nameOf(m, e.seat) }));
      break;
    case "takeover":
      if (seats) {
        seats[e.seat].taken_over = true;
        seats[e.seat].bot = e.bot;
      }
      logLine(m, t("log_takeover", { name: nameOf(m, e.seat) }));
      break;
    case "started":
      if (m.info) m.info.started = true;
      break;
    case "hand_commit": {
      const s = seenFor(m, e.hand);
      s.serverCommit = e.server_commit;
      saveSeen(m);
      break;
    }
    case "dealt": {
      m.handNumber = e.hand;
      m.chain = [];
      m.moves = [];
      m.lastBy = [null, null, null, null];
      m.chose = new Set();
      m.choices = null;
      m.selected = null;
      m.redealBy = null;
      if (mySeat({ state: st }) !== null) {
        const s = seenFor(m, e.hand);
        s.tiles = st.tiles;
        s.seat = st.seat;
        saveSeen(m);
      }
      if (e.draw) {
        const d = e.draw[e.draw.length - 1];
        logLine(m, t("log_draw", { a: d[0], b: d[1], pair: pairName(m, e.leading_pair) }));
      }
      if (e.attempt > 0) logLine(m, t("log_redealt"));
      logLine(m, t("log_dealt", { n: e.hand }));
      break;
    }
    case "redeal":
      if (e.ask) {
        m.redealBy = e.seat;
        logLine(m, t("log_redeal", { name: nameOf(m, e.seat) }));
      }
      break;
    case "chose":
      m.chose.add(e.seat);
      break;
    case "choices": {
      m.choices = { choices: e.choices, leader: e.leader };
      logLine(m, t("log_leader", { name: nameOf(m, e.leader) }));
      break;
    }
    case "played": {
      const ends = m.state.ends;
      const mv = e.move;
      if (mv === "pass") {
        m.lastBy[e.seat] = "pass";
        logLine(m, t("log_pass", { name: nameOf(m, e.seat) }));
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
        logLine(m, t("log_play", { name: nameOf(m, e.seat), tile: spokenName(tile, getLang()) }));
      }
      m.moves.push([e.seat, mv]);
      m.selected = null;
      if (e.hand_end) {
        const v = e.hand_end.view;
        m.chain = v.chain;
        m.sheet = v.sheet;
        m.gameWinner = v.game_winner;
        m.pollona = v.pollona;
        m.result = { view: v, fairness: e.hand_end.fairness, gameOver: e.hand_end.game_over, tableHand: e.hand };
        m.showResult = true;
        logLine(m, outcomeText(m, v.outcome));
        verifyAll(m);
      }
      break;
    }
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
      logLine(m, t("log_next_game", { n: e.game }));
      break;
    default:
      break;
  }
}

/** The match tally of a best-of-three table (Miami), or null for a table of one game. */
function matchOf(m) {
  const mt = m.state && m.state.match;
  return mt && mt.to_win > 1 ? mt : null;
}

/** The game is over but the match goes on: the next game starts by itself. */
function betweenGames(m) {
  const mt = matchOf(m);
  return Boolean(mt && !mt.over && m.gameWinner !== null && m.gameWinner !== undefined);
}

function tallyText(m) {
  const mt = matchOf(m);
  if (!mt) return "";
  const me = mySeat(m);
  const ours = me === null ? 0 : me % 2;
  return t("match_tally", {
    n: mt.game,
    us: me === null ? t("pair_a") : t("nosotros"),
    them: me === null ? t("pair_b") : t("ellos"),
    a: mt.wins[ours],
    b: mt.wins[1 - ours],
  });
}

function pairName(m, pair) {
  const me = mySeat(m);
  if (me === null) return t(pair === 0 ? "pair_a" : "pair_b");
  return t(pair === me % 2 ? "nosotros" : "ellos");
}

function outcomeText(m, o) {
  if (!o) return "";
  const closer = nameOf(m, o.closer);
  if (o.kind === "pegarse") return t(o.capicua ? "out_pegarse_capicua" : "out_pegarse", { name: closer, points: o.points, pair: pairName(m, o.winning_pair) });
  if (o.kind === "tranque") return t("out_tranque", { name: closer, winner: nameOf(m, o.winner), points: o.points, pair: pairName(m, o.winning_pair) });
  return t("out_tied", { name: closer });
}

// -- verification ----------------------------------------------------------------------------------

async function verifyAll(m) {
  if (m.verifying) {
    m.verifyAgain = true;
    return;
  }
  m.verifying = true;
  try {
    const record = await api(`/api/tables/${encodeURIComponent(m.table)}/record`);
    const rules = record.rules;
    const games = record.format === "tranque-match/1" ? record.games || [] : [record];
    const hands = games.flatMap((g) => g.hands || []);
    for (const hand of hands) {
      if (!hand.fairness) continue;
      // Table hand numbers (the fairness recipe's) keep counting from game to game.
      const number = hand.fairness.hand_number || hand.number;
      const seen = m.seen[number] || {};
      const checks = await F.verifyHand(hand, rules, {
        serverCommit: seen.serverCommit,
        seat: seen.seat,
        seed: seen.seed,
        tiles: seen.tiles,
      });
      m.checks[number] = checks;
    }
    store.set(`checks.${m.table}`, m.checks);
  } catch (e) {
    m.verifyError = errorText(e);
  } finally {
    m.verifying = false;
  }
  if (app.m === m) renderTable();
  if (m.verifyAgain) {
    m.verifyAgain = false;
    verifyAll(m);
  }
}

function handVerdict(checks) {
  if (!checks || !checks.length) return null;
  return checks.every((c) => c.ok);
}

function checkText(c) {
  const a = c.args || {};
  return t(`chk_${c.id}`, { seat: a.seat !== undefined ? a.seat + 1 : "", status: a.status ? t(`status_${a.status}`) : "", attempt: a.attempt });
}

// -- rendering the table ---------------------------------------------------------------------------

function tileButton(tile, { playable = false, selected = false, onclick = null, small = false } = {}) {
  const [a, b] = parseTile(tile);
  const name = spokenName(tile, getLang());
  const btn = h(
    "button",
    {
      class: `tile${playable ? " playable" : ""}${selected ? " selected" : ""}${small ? " small" : ""}`,
      "data-tile": tile,
      "aria-label": playable ? t("tile_playable", { name }) : name,
      "aria-pressed": selected ? "true" : null,
      "aria-disabled": playable ? null : "true",
      onclick: onclick || null,
      type: "button",
    },
    tileSVG(Math.max(a, b), Math.min(a, b), { vertical: true }),
  );
  return btn;
}

function staticTile(tile, { vertical = true, first = null } = {}) {
  const [a, b] = parseTile(tile);
  const x = first === null ? Math.max(a, b) : first;
  const y = a === x ? b : a;
  return h("span", { class: "tile static", role: "img", "aria-label": spokenName(tile, getLang()), "data-tile": tile }, tileSVG(x, y, { vertical }));
}

function movesFor(m, tile) {
  return (m.state.legal || []).filter((mv) => mv.split("@")[0] === tile);
}

function play(m, move) {
  m.selected = null;
  app.sock.command({ type: "play", seq: m.state.version, move });
  renderTable();
}

function onTile(m, tile) {
  const moves = movesFor(m, tile);
  if (!moves.length) return;
  if (moves.length === 1) return play(m, moves[0]);
  m.selected = m.selected === tile ? null : tile;
  renderTable();
  const first = document.querySelector(".end-choice button");
  if (first) first.focus();
}

function chainView(m) {
  const ends = m.state.ends || (m.result && m.result.view.ends);
  const sel = m.selected;
  const selMoves = sel ? movesFor(m, sel) : [];
  const endTarget = (side) => {
    if (!ends) return null;
    const n = ends[side === "left" ? 0 : 1];
    const mv = selMoves.find((x) => Number(x.split("@")[1]) === n && (side === "left" || ends[0] !== ends[1] || true));
    return mv && (ends[0] !== ends[1] || side === "left") ? mv : null;
  };
  const endBadge = (side) => {
    if (!ends) return null;
    const n = ends[side === "left" ? 0 : 1];
    const mv = endTarget(side);
    const label = t(side === "left" ? "end_left" : "end_right", { n: numberName(n, getLang()) });
    if (mv) {
      return h("button", { class: `end ${side} target`, "data-end": side, "aria-label": t("play_on_end", { name: spokenName(sel, getLang()), n: numberName(n, getLang()) }), onclick: () => play(m, mv) }, String(n));
    }
    return h("span", { class: `end ${side}`, "data-end": side, role: "img", "aria-label": label }, String(n));
  };
  const tiles = m.chain.map((p, i) => {
    const [a, b] = parseTile(p.tile);
    const dbl = a === b;
    // The halves in chain order: ``first`` touches the tile before, ``second`` the tile after.
    // Left tiles show on their left the number they opened, right tiles show it on their right;
    // the lead shows its high half first. layoutChain() draws each tile facing its row.
    let first;
    if (p.side === "left") first = p.opened;
    else if (p.side === "right") first = a === p.opened ? b : a;
    else first = Math.max(a, b);
    const second = first === a ? b : a;
    const cls = `chain-tile${dbl ? " double" : ""}${p.side === "lead" ? " lead" : ""}${i === 0 ? " first" : ""}${i === m.chain.length - 1 ? " last" : ""}`;
    return h("span", { class: cls, role: "listitem", "aria-label": spokenName(p.tile, getLang()) + (p.side === "lead" ? ` (${t("lead")})` : ""), "data-tile": p.tile, "data-halves": `${first}${second}` });
  });
  const endsLine = ends
    ? h("div", { class: "ends-line", "aria-live": "polite" }, h("span", { class: "ends-label" }, t("ends")), endBadge("left"), h("span", { class: "ends-dot" }, "·"), endBadge("right"))
    : h("div", { class: "ends-line empty" }, m.state.phase === "play" ? t("waiting_lead") : "");
  const pick = sel && selMoves.length > 1
    ? h("div", { class: "end-choice", role: "group", "aria-label": t("choose_end") },
        h("span", {}, t("choose_end_for", { name: spokenName(sel, getLang()) })),
        selMoves.map((mv) => {
          const n = Number(mv.split("@")[1]);
          return h("button", { class: "end-btn", "data-move": mv, onclick: () => play(m, mv) }, t("on_end", { n }));
        }),
        h("button", { class: "link", onclick: () => ((m.selected = null), renderTable()) }, t("cancel")))
    : null;
  return h("section", { class: "board", "aria-label": t("board") },
    endsLine,
    pick,
    h("div", { class: "chain", role: "list", "aria-label": t("chain") }, h("span", { class: "chain-unit", "aria-hidden": "true" }), tiles));
}

// The chain bends like a line of dominoes on a table (snake.js): rows computed from the width of
// the board and the size of a half, laid out again whenever that width changes.
const chainLayout = { el: null, width: -1, observer: null };

function layoutChain() {
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

function seatBadge(m, seat, rel) {
  const info = (m.info && m.info.seats && m.info.seats[seat]) || { kind: "empty" };
  const st = m.state;
  const count = (st.counts || [])[seat];
  const turn = st.turn === seat;
  const last = m.lastBy[seat];
  const isBot = info.kind === "bot" || info.taken_over;
  const meSeat = mySeat(m);
  const partner = meSeat !== null && seat % 2 === meSeat % 2;
  const kids = [
    h("div", { class: "who" },
      h("span", { class: "name" }, nameOf(m, seat)),
      isBot ? h("span", { class: "bot-mark", title: t("bot"), "aria-label": t("bot") }, "BOT") : null,
      info.away ? h("span", { class: "away-mark" }, t("away")) : null,
      rel === 0 ? null : h("span", { class: "pair-mark" }, partner ? t("partner") : t("opponent"))),
  ];
  if (info.kind === "empty" && !(m.info && m.info.started)) {
    const mine = meSeat !== null;
    kids.push(h("div", { class: "seat-actions" },
      !mine && m.role === "player" ? h("button", { class: "sit", "data-seat": seat, onclick: () => app.sock.command({ type: "sit", seat }) }, t("sit_here")) : null,
      m.me && m.info && m.info.host === m.me.guest ? h("button", { class: "add-bot", "data-seat": seat, onclick: () => app.sock.command({ type: "add_bot", seat }) }, t("add_bot")) : null));
  }
  if (count !== undefined && rel !== 0 && count > 0) {
    kids.push(h("div", { class: "backs", "aria-label": tilesLeft(count) },
      h("span", { class: "count" }, tilesLeft(count))));
  } else if (count !== undefined && rel === 0 && m.state.phase && m.state.phase !== "deal") {
    kids.push(h("div", { class: "backs" }, h("span", { class: "count" }, tilesLeft(count))));
  }
  if (last === "pass") kids.push(h("div", { class: "pass-bubble", role: "status" }, t("passed")));
  if (m.chose.has(seat) && !m.choices && st.phase === "choose") kids.push(h("div", { class: "chose-mark" }, t("has_chosen")));
  if (m.choices && st.phase === "play" && m.moves.length === 0) {
    const idx = choosingSeats(m).indexOf(seat);
    if (idx >= 0) {
      const c = m.choices.choices[idx];
      kids.push(h("div", { class: "choice-reveal" }, c === "salgo" ? t("salgo") : c === "sal_tu" ? t("sal_tu") : t("no_answer")));
    }
  }
  if (turn) kids.push(h("div", { class: "clock", "data-seat": seat }, h("div", { class: "bar" }), h("span", { class: "secs" })));
  return h("div", { class: `seat rel${rel}${turn ? " turn" : ""}${partner ? " partner" : ""}`, "data-seat": seat, "aria-current": turn ? "true" : null }, kids);
}

function tilesLeft(n) {
  return t(n === 1 ? "tiles_left_1" : "tiles_left", { n });
}

function choosingSeats(m) {
  const leader = m.choices ? m.choices.leader : null;
  if (leader === null || leader === undefined) return [];
  const pair = leader % 2;
  return [pair, pair + 2];
}

function statusLine(m) {
  const st = m.state;
  const me = mySeat(m);
  if (!m.info) return t("loading");
  if (!m.info.started) {
    const free = m.info.seats.filter((s) => s.kind === "empty").length;
    return t("waiting_players", { n: free });
  }
  if (m.gameWinner !== null && m.gameWinner !== undefined) return gameEndText(m);
  switch (st.phase) {
    case "deal":
      return t("dealing");
    case "redeal":
      return t("redeal_phase");
    case "choose":
      return st.choosing ? t("choose_now") : t("partners_choose");
    case "play":
      if (st.turn === me) return (st.legal || []).length ? t("your_turn") : t("you_pass");
      return t("turn_of", { name: nameOf(m, st.turn) });
    default:
      return "";
  }
}

function actionBar(m) {
  const st = m.state;
  const kids = [h("p", { class: "status", id: "status-line", "aria-live": "polite" }, statusLine(m))];
  if (st.choosing) {
    kids.push(h("div", { class: "choose", role: "group", "aria-label": t("who_leads") },
      h("button", { id: "salgo", class: "primary", onclick: () => app.sock.command({ type: "choose", seq: st.version, choice: "salgo" }) }, t("salgo")),
      h("button", { id: "sal-tu", onclick: () => app.sock.command({ type: "choose", seq: st.version, choice: "sal_tu" }) }, t("sal_tu"))));
  }
  if (st.redeal) {
    kids.push(h("div", { class: "redeal", role: "group" },
      h("span", {}, t("redeal_offer")),
      h("button", { id: "redeal-yes", class: "primary", onclick: () => app.sock.command({ type: "redeal", seq: st.version, ask: true }) }, t("redeal_yes")),
      h("button", { id: "redeal-no", onclick: () => app.sock.command({ type: "redeal", seq: st.version, ask: false }) }, t("redeal_no"))));
  }
  if (m.choices && st.phase === "play" && m.moves.length === 0) {
    const [s1, s2] = choosingSeats(m);
    const c = m.choices.choices;
    const word = (x) => (x === "salgo" ? t("salgo") : x === "sal_tu" ? t("sal_tu") : t("no_answer"));
    kids.push(h("p", { class: "reveal", id: "reveal" }, t("reveal_line", { a: nameOf(m, s1), ca: word(c[0]), b: nameOf(m, s2), cb: word(c[1]), leader: nameOf(m, m.choices.leader) })));
  }
  if (m.redealBy !== null && st.phase !== "play") kids.push(h("p", { class: "reveal" }, t("log_redeal", { name: nameOf(m, m.redealBy) })));
  return h("section", { class: "actions" }, kids);
}

function myHand(m) {
  const st = m.state;
  const tiles = splitTiles(st.tiles);
  const legalTiles = new Set((st.legal || []).map((mv) => mv.split("@")[0]));
  return h("section", { class: "hand", "aria-label": t("my_hand") },
    h("div", { class: "hand-tiles", role: "group", "aria-label": t("my_hand") },
      tiles.map((x) => tileButton(x, { playable: legalTiles.has(x), selected: m.selected === x, onclick: () => onTile(m, x) }))));
}

function sheetPanel(m) {
  const me = mySeat(m);
  const ours = me === null ? 0 : me % 2;
  const rows = m.sheet.map((ln) => {
    const cell = (pair) => {
      if (ln.pair !== pair) return h("td", {}, h("span", { class: "total" }, String(ln.totals[pair])));
      const viajera = ln.kind === "hand" && ln.points >= 100;
      return h("td", { class: "scored" },
        h("span", { class: "pts" }, `+${ln.points}`),
        ln.kind !== "hand" ? h("span", { class: "kind" }, t(`bonus_${ln.kind}`)) : null,
        viajera ? h("span", { class: "mark viajera" }, t("viajera")) : null,
        h("span", { class: "total" }, String(ln.totals[pair])));
    };
    return h("tr", {}, h("th", { scope: "row" }, String(ln.hand)), cell(ours), cell(1 - ours));
  });
  const scores = m.state.scores || [0, 0];
  const target = typeof m.rules === "object" && m.rules ? m.rules.target : TARGETS[m.rules] || 100;
  return h("section", { class: "panel sheet", id: "planilla", "aria-label": t("planilla") },
    h("h2", {}, t("planilla"), h("span", { class: "target" }, t("to_target", { n: target }))),
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("hand_col")), h("th", { scope: "col" }, me === null ? t("pair_a") : t("nosotros")), h("th", { scope: "col" }, me === null ? t("pair_b") : t("ellos")))),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 3, class: "none" }, t("no_hands_yet")))),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("total")), h("td", { class: "sum" }, String(scores[ours])), h("td", { class: "sum" }, String(scores[1 - ours]))))),
    m.gameWinner !== null && m.gameWinner !== undefined
      ? h("p", { class: "winner" }, gameEndText(m), m.pollona ? h("span", { class: "mark pollona" }, t("pollona")) : null)
      : null,
    h("button", { class: "link close", onclick: () => ((m.panel = null), renderTable()) }, t("close")));
}

function verifyPanel(m) {
  const hands = Object.keys(m.checks).map(Number).sort((a, b) => b - a);
  return h("section", { class: "panel verify", id: "verificacion", "aria-label": t("verification") },
    h("h2", {}, t("verification")),
    h("p", { class: "hint" }, t("verify_intro", { engine: F.hashEngine() === "webcrypto" ? "WebCrypto" : "JS" })),
    hands.length ? null : h("p", {}, t("verify_none")),
    m.verifyError ? h("p", { class: "bad" }, m.verifyError) : null,
    hands.map((n) => {
      const cs = m.checks[n];
      const ok = handVerdict(cs);
      return h("details", { class: `hand-checks ${ok ? "ok" : "bad"}`, "data-hand": n, open: !ok || n === hands[0] },
        h("summary", {}, h("span", { class: "verdict", "data-ok": String(ok) }, ok ? "✓" : "✗"), " ", t("hand_n", { n })),
        h("ul", {}, cs.map((c) => h("li", { class: c.ok ? "ok" : "bad", "data-check": c.id }, h("span", { class: "mark-ok", "aria-hidden": "true" }, c.ok ? "✓" : "✗"), " ", checkText(c), h("span", { class: "sr" }, c.ok ? t("ok") : t("failed"))))));
    }),
    h("button", { class: "link close", onclick: () => ((m.panel = null), renderTable()) }, t("close")));
}

function resultPanel(m) {
  const r = m.result;
  const v = r.view;
  const o = v.outcome;
  const me = mySeat(m);
  const order = me === null ? [0, 1, 2, 3] : [me, (me + 1) % 4, (me + 2) % 4, (me + 3) % 4];
  const checks = m.checks[r.tableHand || v.hand_number];
  const ok = handVerdict(checks);
  const kind = o.kind === "pegarse" ? t("pegarse") : o.kind === "tranque" ? t("tranque") : t("tied_tranque");
  const marks = [];
  if (o.capicua) marks.push(h("span", { class: "mark capicua" }, t("capicua")));
  if (o.viajera) marks.push(h("span", { class: "mark viajera" }, t("viajera")));
  return h("div", { class: "overlay", role: "dialog", "aria-modal": "true", "aria-labelledby": "result-title" },
    h("section", { class: "panel result", id: "result" },
      h("h2", { id: "result-title" }, t("hand_over", { n: v.hand_number }), " — ", h("span", { class: `kind kind-${o.kind}` }, kind), marks),
      h("p", { class: "outcome" }, outcomeText(m, o)),
      o.winning_pair !== null ? h("p", { class: "points" }, t("points_for", { points: o.points, pair: pairName(m, o.winning_pair) })) : h("p", { class: "points" }, t("nobody_scores")),
      h("div", { class: "final-hands" }, order.map((s) => {
        const tiles = splitTiles(v.final_hands[s]);
        return h("div", { class: `final-hand${o.winner === s ? " winner" : ""}`, "data-seat": s },
          h("div", { class: "fh-who" }, h("span", { class: "name" }, nameOf(m, s)), h("span", { class: "fh-pips" }, t("pips", { n: o.pips[s] })),
            s === o.closer ? h("span", { class: "mark closer" }, o.kind === "pegarse" ? t("went_out") : t("closer")) : null),
          h("div", { class: "fh-tiles" }, tiles.length ? tiles.map((x) => staticTile(x)) : h("span", { class: "none" }, t("no_tiles"))));
      })),
      v.sleepers ? h("div", { class: "sleepers" }, h("div", { class: "fh-who" }, t("sleepers")), h("div", { class: "fh-tiles" }, splitTiles(v.sleepers).map((x) => staticTile(x)))) : null,
      h("p", { class: "score-line" }, t("score_now", { a: (m.state.scores || v.scores)[me === null ? 0 : me % 2], b: (m.state.scores || v.scores)[me === null ? 1 : 1 - (me % 2)] })),
      h("p", { class: `verify-line ${ok === null ? "" : ok ? "ok" : "bad"}` },
        ok === null ? t("verifying") : ok ? t("verified_ok") : t("verified_bad"),
        " ", h("button", { class: "link", onclick: () => ((m.panel = "verify"), (m.showResult = false), renderTable()) }, t("see_checks"))),
      r.gameOver ? gameOverBlock(m) : null,
      h("div", { class: "row" },
        r.gameOver && !betweenGames(m)
          ? h("button", { id: "see-sheet", onclick: () => ((m.showResult = false), (m.panel = "sheet"), renderTable()) }, t("planilla"))
          : h("button", { id: "continue", class: "primary", onclick: () => ((m.showResult = false), renderTable()) }, t("continue")))));
}

/** What the end of a game means: the game's winner, and under match rules the match's. */
function gameEndText(m) {
  const mt = matchOf(m);
  const game = t("game_over_line", { pair: pairName(m, m.gameWinner) });
  if (!mt) return game;
  const me = mySeat(m);
  const ours = me === null ? 0 : me % 2;
  if (mt.over) {
    return t("match_over_line", { pair: pairName(m, mt.winner), a: mt.wins[ours], b: mt.wins[1 - ours] });
  }
  return `${t("game_n_won", { n: mt.game, pair: pairName(m, m.gameWinner) })} ${t("next_game_soon", { n: mt.game + 1 })}`;
}

function gameOverBlock(m) {
  const between = betweenGames(m);
  return h("div", { class: `game-over${between ? " between" : ""}`, id: between ? "next-game" : "game-over" },
    h("p", { class: "winner" }, gameEndText(m), m.pollona ? h("span", { class: "mark pollona" }, t(matchOf(m) ? "pollona_double" : "pollona")) : null),
    matchOf(m) ? h("p", { class: "tally", id: "match-tally-end" }, tallyText(m)) : null,
    between ? null : h("button", { id: "play-again", class: "primary big", onclick: () => playAgain(m) }, t("play_again")));
}

async function playAgain(m) {
  try {
    const s = (m.info && m.info.settings) || {};
    const tab = await api("/api/tables", { method: "POST", token: m.me.token, body: { rules: s.rules || "havana", move_clock: s.move_clock || 25, practice: s.practice !== false, seat: 0, ...(m.info && m.info.bot ? { bot: m.info.bot } : {}) } });
    go(`/t/${encodeURIComponent(tab.table)}`);
  } catch (e) {
    toast(errorText(e));
  }
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
      }, t("copy"))));
}

function renderStatus() {
  const m = app.m;
  const n = $("#conn");
  if (!m || !n) return;
  const away = m.status === "reconnecting";
  n.hidden = !away;
  n.textContent = away ? t("reconnecting") : "";
  document.body.classList.toggle("offline", away);
}

function renderTable() {
  const m = app.m;
  if (!m) return;
  const focused = document.activeElement;
  const focusKey = focused && (focused.id || (focused.dataset && focused.dataset.tile));
  const scores = m.state.scores || [0, 0];
  const me = mySeat(m);
  const ours = me === null ? 0 : me % 2;
  document.title = `tranque · ${m.table}`;
  const top = [
    h("button", { id: "open-sheet", class: "score-chip", "aria-label": t("planilla"), onclick: () => ((m.panel = m.panel === "sheet" ? null : "sheet"), renderTable()) },
      h("span", { class: "lbl" }, me === null ? t("pair_a") : t("nosotros")), h("b", { id: "score-ours" }, String(scores[ours])),
      h("span", { class: "sep" }, "–"),
      h("b", { id: "score-theirs" }, String(scores[1 - ours])), h("span", { class: "lbl" }, me === null ? t("pair_b") : t("ellos"))),
    matchOf(m) ? h("span", { id: "match-tally", class: "score-chip match-tally", role: "status" }, tallyText(m)) : null,
    m.result ? h("button", { id: "open-result", class: "icon-btn", onclick: () => ((m.showResult = true), renderTable()) }, t("last_hand")) : null,
    h("button", { id: "open-verify", class: "icon-btn", onclick: () => ((m.panel = m.panel === "verify" ? null : "verify"), renderTable()) }, t("verification"), verifyBadge(m)),
  ];
  const kids = [header(top), h("div", { id: "conn", class: "conn", role: "status", hidden: true })];
  if (m.error) {
    kids.push(h("main", { class: "table-error" }, h("p", {}, m.error), h("a", { href: "/", onclick: (e) => (e.preventDefault(), go("/")) }, t("back_home"))));
    app.root.replaceChildren(...kids);
    return;
  }
  const rel = (r) => (me === null ? r : (me + r) % 4);
  kids.push(h("main", { class: `table phase-${m.state.phase || "none"}` },
    inviteBox(m),
    h("div", { class: "felt" },
      seatBadge(m, rel(2), 2),
      seatBadge(m, rel(3), 3),
      chainView(m),
      seatBadge(m, rel(1), 1),
      seatBadge(m, rel(0), 0)),
    actionBar(m),
    me !== null && splitTiles(m.state.tiles).length ? myHand(m) : null,
    h("section", { class: "log", "aria-label": t("log") }, h("ol", {}, m.log.slice(-6).map((x) => h("li", {}, x)))),
    m.panel === "sheet" ? sheetPanel(m) : null,
    m.panel === "verify" ? verifyPanel(m) : null,
    (m.gameWinner !== null && m.gameWinner !== undefined && !m.showResult && m.panel === null && m.result) ? h("section", { class: "panel" }, gameOverBlock(m)) : null));
  if (m.showResult && m.result) kids.push(resultPanel(m));
  app.root.replaceChildren(...kids);
  layoutChain();
  renderStatus();
  if (focusKey) {
    const again = document.getElementById(focusKey) || document.querySelector(`[data-tile="${focusKey}"].tile`);
    if (again && again.focus) again.focus();
  }
  if (m.showResult && m.result && !focusKey) {
    const b = $("#continue") || $("#play-again") || $("#see-sheet");
    if (b) b.focus();
  }
  tickClocks();
}

function verifyBadge(m) {
  const hands = Object.values(m.checks);
  if (!hands.length) return null;
  const ok = hands.every((cs) => handVerdict(cs));
  return h("span", { class: `vbadge ${ok ? "ok" : "bad"}`, id: "verify-badge" }, ok ? "✓" : "✗");
}

function tickClocks() {
  const m = app.m;
  if (!m || !app.sock) return;
  const st = m.state;
  const el = document.querySelector(".clock");
  if (!el || !st.deadline) return;
  const left = Math.max(0, st.deadline - app.sock.now());
  const total = (m.info && m.info.settings && m.info.settings.move_clock) || 25;
  const frac = Math.max(0, Math.min(1, left / total));
  el.querySelector(".bar").style.width = `${(frac * 100).toFixed(1)}%`;
  el.classList.toggle("low", left < 6);
  el.querySelector(".secs").textContent = left >= 1 ? `${Math.ceil(left)} s` : "";
}

export function start() {
  app.root = document.getElementById("app");
  document.documentElement.lang = getLang();
  window.addEventListener("popstate", route);
  window.addEventListener("resize", () => layoutChain());
  setInterval(tickClocks, 250);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && app.m) {
      if (app.m.selected) app.m.selected = null;
      else if (app.m.showResult) app.m.showResult = false;
      else app.m.panel = null;
      renderTable();
    }
  });
  route();
}
