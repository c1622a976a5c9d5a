// The club's screens before a table (lobby.js: loaded when first opened, not with the page): the lobby of
// public tables, live over a socket that never says hello; and the quick-match queue ("Jugar
// ahora · Con personas"), its waiting screen and the party link that seats two friends together.
import { api } from "./net.js";
import { h, app, store, toast } from "./dom.js";
import { t, STRINGS } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import { errorText, BOT_NAMES } from "./model.js";
import { ratingText } from "./ratings.js"; // a seat's rating, the leaderboards' words
import "./talk.js"; // the club's words of the first load
import { STAKES, balance, fmt, cost } from "./chips.js"; // the chips' words, stakes, balance, numbers

const VARIANTS = ["havana", "miami", "oriente", "barrio"];

// The lobby's and the queue's words, in Spanish and English, added to i18n.js's tables.
Object.assign(STRINGS.es, {
  lobby_finished: "Partidas terminadas",
  lobby_pena: "Peña {name} · solo socios",
  lobby_pena_empty: "Ninguna mesa de la peña ahora.",
  lobby_pena_open: "Abrir una en la peña",
  lobby_public: "Mesas de todos",
  lobby_title: "Mesas públicas",
  lobby_hint: "Las mesas abiertas a todos, en vivo. Siéntate en un asiento libre o mira una partida.",
  lobby_empty: "No hay mesas públicas ahora. Crea una o entra en «Jugar ahora · Con personas».",
  lobby_free: "{n} libres",
  lobby_free_1: "1 libre",
  lobby_playing: "Jugando",
  lobby_watchers: "{n} mirando",
  lobby_seats: "Asientos",
  lobby_sit: "Sentarme",
  lobby_watch: "Mirar",
  lobby_table: "Mesa {table}: {variant}, {clock} s por jugada",
  variant_custom: "Reglas propias",
  queue_title: "Buscando mesa",
  queue_waiting: "Esperando jugadores para {variant}…",
  queue_waited: "Llevas {s} esperando.",
  queue_count: "En la cola: {n}.",
  queue_count_1: "En la cola: solo tú.",
  queue_fill: "Si nadie llega en {s} s, los bots completan la mesa.",
  queue_leave: "Salir de la cola",
  queue_left: "Saliste de la cola.",
  queue_elsewhere: "Entraste en la cola desde otra ventana.",
  queue_lost: "No se pudo abrir tu mesa. Vuelve a entrar en la cola.",
  queue_start: "Entrar en la cola",
  queue_variant: "Modalidad",
  party_make: "Jugar de pareja con un amigo",
  party_link: "Enlace para tu compañero",
  party_hint: "Mándale el enlace: cuando él también esté en la cola, os sentamos juntos de pareja.",
  party_with: "Juegas de pareja con {name}: os sentamos juntos.",
  queue_poor: "Para apostar {stake} hacen falta {need} monedas y tienes {have}. Sigues en la cola, como estabas.",
  queue_poor_unknown: "No tienes monedas suficientes para esa apuesta. Sigues en la cola, como estabas.",
  queue_still: "Sigues en la cola, como estabas.",
  stake_short: "{stake} (no te alcanza)",
  lobby_poor: "Te faltan monedas: esta mesa pide {need} y tienes {have}.",
  err_party_full: "Esa pareja ya está completa.",
  err_bad_party: "Ese enlace de pareja no es válido.",
});

Object.assign(STRINGS.en, {
  lobby_finished: "Finished games",
  lobby_pena: "Peña {name} · members only",
  lobby_pena_empty: "No table of the peña now.",
  lobby_pena_open: "Open one on the peña's page",
  lobby_public: "Tables for everyone",
  lobby_title: "Public tables",
  lobby_hint: "The tables open to everyone, live. Take a free seat or watch a game.",
  lobby_empty: "No public tables now. Create one or try “Play now · With people”.",
  lobby_free: "{n} free",
  lobby_free_1: "1 free",
  lobby_playing: "Playing",
  lobby_watchers: "{n} watching",
  lobby_seats: "Seats",
  lobby_sit: "Sit",
  lobby_watch: "Watch",
  lobby_table: "Table {table}: {variant}, {clock} s per move",
  variant_custom: "Own rules",
  queue_title: "Finding a table",
  queue_waiting: "Waiting for players for {variant}…",
  queue_waited: "You have waited {s}.",
  queue_count: "In the queue: {n}.",
  queue_count_1: "In the queue: just you.",
  queue_fill: "If nobody comes within {s} s, bots fill the table.",
  queue_leave: "Leave the queue",
  queue_left: "You left the queue.",
  queue_elsewhere: "You joined the queue from another window.",
  queue_lost: "Your table could not be opened. Join the queue again.",
  queue_start: "Join the queue",
  queue_variant: "Variant",
  party_make: "Play as partners with a friend",
  party_link: "Link for your partner",
  party_hint: "Send the link: once your friend is in the queue too, you are seated together as partners.",
  party_with: "You play as partners with {name}: you are seated together.",
  queue_poor: "A stake of {stake} needs {need} chips and you have {have}. You are still in the queue, as you were.",
  queue_poor_unknown: "You do not have enough chips for that stake. You are still in the queue, as you were.",
  queue_still: "You are still in the queue, as you were.",
  stake_short: "{stake} (not enough chips)",
  lobby_poor: "Not enough chips: this table needs {need} and you have {have}.",
  err_party_full: "That pair is complete already.",
  err_bad_party: "That partner link is not valid.",
});

/**
 * A socket before any hello: it sends its first message (`lobby` or `queue`) on every connect,
 * so a cut line comes back listing (or queued) again; `close` stops it for good.
 */
export class ClubSocket {
  constructor(first, onFrame) {
    this.first = first;
    this.onFrame = onFrame;
    this.retry = 0;
    this.closed = false;
    this.connect();
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = (this.ws = new WebSocket(`${proto}//${location.host}/ws`));
    ws.onopen = () => ws.send(JSON.stringify(this.first));
    ws.onmessage = (e) => {
      this.retry = 0;
      try {
        this.onFrame(JSON.parse(e.data));
      } catch {
        /* not JSON: nothing to show */
      }
    };
    ws.onclose = () => {
      if (this.closed || this.ws !== ws) return;
      this.timer = setTimeout(() => this.connect(), Math.min(5000, 300 * 2 ** this.retry++));
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }
}

/** The screen the club draws now; `app.club` holds it while it is up (app.js routes). */
function screen(draw, sock) {
  const s = { render: () => draw(s), sock, close: () => sock && sock.close() };
  app.club = s;
  return s;
}

const page = (main) => app.root.replaceChildren(header([langSelect()]), main);

const variantName = (v) => t(`variant_${VARIANTS.includes(v) ? v : "custom"}`);

function go(path) {
  return (e) => {
    e.preventDefault();
    app.go(path);
  };
}

// -- the lobby ------------------------------------------------------------------------------------

export function openLobby() {
  const s = screen(drawLobby, null);
  s.tables = null;
  s.lines = new Map(); // table id -> its line, as the server's frames left it
  s.penas = new Map(); // my peñas' names -> their tables (members only: docs/club.md)
  balance().then((b) => ((s.chips = b), app.club === s && s.render()));
  const g = store.get("guest");
  // An account's token: his peñas' tables come too. A guest has none: the public ones only.
  const first = g && g.account ? { type: "lobby", token: g.token } : { type: "lobby" };
  s.sock = new ClubSocket(first, (f) => {
    if (app.club !== s || !(applyLobby(s.lines, f) || applyPenas(s.penas, f))) return;
    s.tables = orderedLines(s.lines);
    s.render();
  });
  s.render();
}

/**
 * The listing comes whole once per connection (`lobby`), then as the lines that changed and the
 * tables that left (`lobby_changes`, docs/protocol.md §5.1); false for any other frame.
 */
function applyLobby(lines, f) {
  if (f.type === "lobby") {
    lines.clear();
    for (const x of f.tables) lines.set(x.table, x);
    return true;
  }
  if (f.type !== "lobby_changes") return false;
  for (const x of f.tables) lines.set(x.table, x);
  for (const id of f.gone) lines.delete(id);
  return true;
}

/**
 * My peñas' tables: all of them once (`pena_lobby`), then one peña's whole list at each change
 * (`pena_tables`; `member` false: I no longer belong, its section goes). Exported for the peña's
 * own page, which follows its tables the same way. False for any other frame.
 */
export function applyPenas(penas, f) {
  if (f.type === "pena_lobby") {
    penas.clear();
    for (const x of f.penas) penas.set(x.pena, x.tables);
    return true;
  }
  if (f.type !== "pena_tables") return false;
  if (f.member) penas.set(f.pena, f.tables);
  else penas.delete(f.pena);
  return true;
}

/** The server's order: tables with free seats first (fewest free first), then the ones being
 * played; by id within each. */
function orderedLines(lines) {
  const key = (x) => [x.status !== "waiting" ? 1 : 0, x.free];
  return [...lines.values()].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return ka[0] - kb[0] || ka[1] - kb[1] || (a.table < b.table ? -1 : a.table > b.table ? 1 : 0);
  });
}

/** A person's name in a table's line; an account holder's opens his profile. */
function personName(seat) {
  if (!seat.profile) return seat.nickname;
  const href = `/u/${encodeURIComponent(seat.profile)}`;
  return h("a", { class: "seat-name", href, onclick: (e) => (e.preventDefault(), app.go(href)) }, seat.nickname);
}

function seatLine(seat, n) {
  if (seat.kind === "empty") return h("li", { class: "free" }, t("empty_seat"));
  // Bots go by their seat's name, as at the table (model.js).
  // A person who has gone (his page closed, or away in the game) is marked: his seat is his.
  return h("li", { class: seat.away ? "away" : null }, seat.kind === "bot" ? BOT_NAMES[n] : personName(seat), " ", seat.kind === "bot" ? h("span", { class: "bot-mark", title: t("bot") }, "BOT") : null,
    seat.away ? h("span", { class: "away-mark" }, t("away")) : null,
    // No number before the first rated game, as at the table and on the profile ("No rating yet").
    seat.rating && seat.rating.games > 0 ? h("span", { class: "seat-rating" }, ratingText(seat.rating)) : null);
}

/** Whether the balance (`/api/chips`, null if unknown) cannot cover a stake's escrow. */
const shortOf = (chips, stake) => Boolean(stake && chips && chips.balance < cost(stake));

function lobbyRow(x, chips) {
  const id = encodeURIComponent(x.table);
  const title = t("lobby_table", { table: x.table, variant: variantName(x.variant), clock: x.move_clock }) + (x.stake ? ` · ${t("chips_stake", { stake: fmt(x.stake) })}` : "");
  const status = x.status === "waiting" ? t(x.free === 1 ? "lobby_free_1" : "lobby_free", { n: x.free }) : t("lobby_playing");
  const open = x.status === "waiting" && x.free > 0;
  // A seat you cannot cover is not offered as a plain "Sit": the table says what it needs.
  const poor = open && shortOf(chips, x.stake);
  return h("li", { class: `lobby-table ${x.status}${poor ? " unaffordable" : ""}`, "data-table": x.table, "data-free": x.free },
    h("h2", {}, title),
    h("p", { class: "lobby-status" }, h("b", {}, status), x.spectators ? ` · ${t("lobby_watchers", { n: x.spectators })}` : null),
    h("ul", { class: "lobby-seats", "aria-label": t("lobby_seats") }, x.seats.map(seatLine)),
    poor ? h("p", { class: "lobby-poor" }, t("lobby_poor", { need: fmt(cost(x.stake)), have: fmt(chips.balance) })) : null,
    h("div", { class: "row" },
      open && !poor
        ? h("a", { class: "btn primary sit-link", href: `/t/${id}`, onclick: go(`/t/${id}`), "aria-label": `${t("lobby_sit")} · ${title}` }, t("lobby_sit"))
        : null,
      h("a", { class: "btn watch-link", href: `/t/${id}?watch=1`, onclick: go(`/t/${id}?watch=1`), "aria-label": `${t("lobby_watch")} · ${title}` }, t("lobby_watch"))));
}

/** One of my peñas, above the public tables: its open tables (only its members see them). */
function penaSection(name, tables, chips) {
  const href = `/pena/${encodeURIComponent(name)}`;
  return h("section", { class: "lobby-pena", "data-pena": name },
    h("h2", {}, h("a", { href, onclick: go(href) }, t("lobby_pena", { name }))),
    tables.length
      ? h("ul", { class: "lobby-list" }, tables.map((x) => lobbyRow(x, chips)))
      : h("p", { class: "hint" }, t("lobby_pena_empty"), " ", h("a", { href, onclick: go(href) }, t("lobby_pena_open"))));
}

function drawLobby(s) {
  const penas = [...s.penas.entries()].sort(([a], [b]) => a.localeCompare(b));
  // The sections' style is the peñas' (penas.css): only members see them, so not a byte of the
  // first load goes to it.
  if (penas.length && !document.getElementById("penas-css")) {
    document.head.appendChild(h("link", { id: "penas-css", rel: "stylesheet", href: new URL("../css/penas.css", import.meta.url).href }));
  }
  page(h("main", { class: "club lobby", id: "lobby" },
    h("h1", {}, t("lobby_title")),
    h("p", { class: "hint" }, t("lobby_hint")),
    h("p", { class: "to-leaderboards" }, h("a", { href: "/leaderboards/havana", id: "leaderboards-link", onclick: go("/leaderboards/havana") }, t("leaderboards"))),
    penas.length ? h("div", { id: "lobby-penas" }, penas.map(([name, tables]) => penaSection(name, orderedLines(new Map(tables.map((x) => [x.table, x]))), s.chips))) : null,
    penas.length ? h("h2", { id: "lobby-public" }, t("lobby_public")) : null,
    s.tables === null
      ? h("p", { role: "status" }, t("loading"))
      : s.tables.length
        ? h("ul", { class: "lobby-list", id: "lobby-list" }, s.tables.map((x) => lobbyRow(x, s.chips)))
        : h("p", { class: "notice", id: "lobby-empty", role: "status" }, t("lobby_empty")),
    chipTableForm(),
    h("p", {}, h("a", { id: "finished-games", href: "/games", onclick: go("/games") }, t("lobby_finished"))),
    h("p", {}, h("a", { href: "/", onclick: go("/") }, t("back_home")))));
}

/** A public chip table of people, its creator in seat 0 (his escrow taken as he sits). */
function chipTableForm() {
  const stake = h("select", { id: "chip-table-stake" }, STAKES.map((n) => h("option", { value: n }, fmt(n))));
  const create = async () => {
    try {
      const g = await app.ensureNamed(); // he sits at seat 0: by the name he chose
      if (!g) return;
      const body = { rules: "havana", practice: false, seat: 0, public: true, stake: Number(stake.value) };
      const made = await api("/api/tables", { method: "POST", token: g.token, body });
      app.go(`/t/${encodeURIComponent(made.table)}`);
    } catch (e) {
      toast(errorText(e));
    }
  };
  return h("section", { class: "card", id: "chip-table" },
    h("h2", {}, t("chips_new_table")),
    h("p", { class: "hint" }, t("chips_play_money")),
    h("div", { class: "form-grid" }, h("label", { for: "chip-table-stake" }, t("chips_queue_stake")), stake),
    h("button", { id: "create-chip-table", onclick: create }, t("create")));
}

// -- the queue ------------------------------------------------------------------------------------

/** Queue for a variant (with a party's id or none) as the guest `me`: the waiting screen. */
export function openQueue(me, variant = "havana", party = null, stake = null) {
  const s = screen(drawQueue, null);
  Object.assign(s, { me, variant, party, stake, queued: null, link: null, start: Date.now(), chips: null });
  balance().then((b) => ((s.chips = b), app.club === s && s.render()));
  s.sock = new ClubSocket(queueMessage(s), (f) => onQueueFrame(s, f));
  s.tick = setInterval(() => {
    const el = document.getElementById("queue-waited");
    if (app.club !== s) clearInterval(s.tick);
    else if (el) el.textContent = waitedText(s);
  }, 1000);
  s.render();
}

const queueMessage = (s) => ({ type: "queue", token: s.me.token, variant: s.variant, party: s.party, stake: s.stake });

function requeue(s) {
  s.sock.first = queueMessage(s);
  s.refusal = null;
  s.wanted = s.stake;
  s.queued = null;
  s.sock.send(s.sock.first);
  s.render();
}

/** A requeue the server refused (a stake not covered, say): the ticket the person had is still
 * in the queue, so the page stays on it, as it was, and says why the change was not made. */
function refused(s, f) {
  const q = s.last;
  s.variant = q.variant;
  s.stake = q.stake || null;
  s.sock.first = queueMessage(s);
  s.queued = q;
  const wanted = Number(f.stake) || null;
  if (f.code === "too_few_chips" && wanted) {
    s.refusal = s.chips
      ? t("queue_poor", { stake: fmt(wanted), need: fmt(cost(wanted)), have: fmt(s.chips.balance) })
      : t("queue_poor_unknown");
  } else {
    s.refusal = `${errorText(f)} ${t("queue_still")}`;
  }
  s.render();
  const el = document.getElementById("queue-refusal");
  if (el) el.focus();
}

function onQueueFrame(s, f) {
  if (app.club !== s) return;
  if (f.type === "queued") {
    // The same ticket queued again (a party made, a cut line) keeps its clock: the server
    // answers with the same `since`.
    if (!s.last || s.last.since !== f.since) s.start = Date.now();
    s.queued = s.last = f;
    if (f.partner) s.partner = f.partner;
  } else if (f.type === "queue_count") {
    // Pushed whenever the count of the queue changes: written in place (a redraw would close
    // a select being opened).
    if (!s.queued) return;
    s.queued = s.last = { ...s.queued, waiting: f.waiting };
    const el = document.getElementById("queue-count");
    if (el) el.textContent = countText(s.queued);
    return;
  } else if (f.type === "matched") {
    s.sock.close();
    app.go(`/t/${encodeURIComponent(f.table)}`);
    return;
  } else if (f.type === "unqueued") {
    s.sock.close();
    if (f.reason !== "left") toast(unqueuedText(f.reason));
    app.go("/");
    return;
  } else if (f.type === "error") {
    if (s.last) return refused(s, { ...f, stake: s.wanted }); // still queued, as before
    s.sock.close();
    toast(errorText(f));
    app.go("/");
    return;
  }
  s.render();
}

/** Why the queue let this socket go: its own words for a reason that is an error's code (the
 * chips ran out, or the cap of unfinished tables was reached meanwhile), else "lost". */
function unqueuedText(reason) {
  if (reason === "elsewhere") return t("queue_elsewhere");
  if (reason === "too_few_chips" || reason === "too_many_tables") return errorText({ code: reason, message: t("queue_lost") });
  return t("queue_lost");
}

const countText = (q) => (q.waiting > 1 ? t("queue_count", { n: fmt(q.waiting) }) : t("queue_count_1"));

function waitedText(s) {
  const secs = Math.floor((Date.now() - s.start) / 1000);
  const m = Math.floor(secs / 60);
  return t("queue_waited", { s: m ? `${m} min ${secs % 60} s` : `${secs} s` });
}

async function makeParty(s) {
  try {
    const p = await api("/api/parties", { method: "POST", token: s.me.token });
    s.party = p.party;
    s.link = p.link;
    requeue(s);
  } catch (e) {
    toast(errorText(e));
  }
}

function drawQueue(s) {
  const q = s.queued;
  const variant = h("select", { id: "queue-variant", onchange: (e) => ((s.variant = e.target.value), requeue(s)) },
    VARIANTS.map((v) => h("option", { value: v, selected: v === s.variant }, t(`variant_${v}`))));
  const partyBox = s.link
    ? h("div", { class: "invite", id: "party-box" },
        h("label", { for: "party-link" }, t("party_link")),
        h("input", { id: "party-link", readonly: true, value: s.link, onfocus: (e) => e.target.select() }),
        h("p", { class: "hint" }, t("party_hint")))
    : s.party && s.partner
      ? h("p", { class: "notice", id: "party-with" }, t("party_with", { name: s.partner }))
      : s.party
        ? h("p", { class: "notice", id: "party-joined" }, t("party_joined"))
      : h("button", { id: "party-make", onclick: () => makeParty(s) }, t("party_make"));
  const stake = h("select", { id: "queue-stake", onchange: (e) => ((s.stake = Number(e.target.value) || null), requeue(s)) },
    h("option", { value: "" }, t("chips_free")),
    STAKES.map((n) => h("option", { value: n, selected: n === s.stake }, shortOf(s.chips, n) ? t("stake_short", { stake: fmt(n) }) : fmt(n))));
  page(h("main", { class: "club queue", id: "queue" },
    h("section", { class: "card" },
      h("h1", {}, t("queue_title")),
      h("p", { class: "queue-state", id: "queue-state", role: "status" },
        q ? t("queue_waiting", { variant: variantName(q.variant) }) : t("loading")),
      q ? h("p", { id: "queue-waited", class: "queue-waited" }, waitedText(s)) : null,
      q ? h("p", { class: "hint", id: "queue-count", "aria-live": "polite" }, countText(q)) : null,
      q ? h("p", { class: "hint" }, t("queue_fill", { s: Math.round(q.fill) })) : null,
      h("div", { class: "form-grid" }, h("label", { for: "queue-variant" }, t("queue_variant")), variant,
        h("label", { for: "queue-stake" }, t("chips_queue_stake")), stake),
      s.refusal ? h("p", { class: "error", id: "queue-refusal", role: "alert", tabindex: -1 }, s.refusal) : null,
      s.stake ? h("p", { class: "notice", id: "queue-chips" }, t("chips_stake", { stake: fmt(s.stake) }), " · ", t("chips_play_money")) : null,
      partyBox,
      h("button", {
        id: "queue-leave",
        class: "big primary",
        onclick: () => {
          s.sock.send({ type: "unqueue" });
          s.sock.close(); // closing leaves the queue too: one tap is enough even offline
          app.go("/");
        },
      }, t("queue_leave")))));
}
