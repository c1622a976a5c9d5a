// The club's screens before a table (loaded when first opened, not with the page): the lobby of
// public tables, live over a socket that never says hello; and the quick-match queue ("Jugar
// ahora · Con personas"), its waiting screen and the party link that seats two friends together.
import { api } from "./net.js";
import { h, app, toast } from "./dom.js";
import { t } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import { errorText, BOT_NAMES } from "./model.js";
import "./club-words.js";

const VARIANTS = ["havana", "miami", "oriente", "barrio"];

/**
 * A socket before any hello: it sends its first message (`lobby` or `queue`) on every connect,
 * so a cut line comes back listing (or queued) again; `close` stops it for good.
 */
class ClubSocket {
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
  s.sock = new ClubSocket({ type: "lobby" }, (f) => {
    if (f.type !== "lobby" || app.club !== s) return;
    s.tables = f.tables;
    s.render();
  });
  s.render();
}

function seatLine(seat, n) {
  if (seat.kind === "empty") return h("li", { class: "free" }, t("empty_seat"));
  // Bots go by their seat's name, as at the table (model.js).
  return h("li", {}, seat.kind === "bot" ? BOT_NAMES[n] : seat.nickname, " ", seat.kind === "bot" ? h("span", { class: "bot-mark", title: t("bot") }, "BOT") : null);
}

function lobbyRow(x) {
  const id = encodeURIComponent(x.table);
  const title = t("lobby_table", { table: x.table, variant: variantName(x.variant), clock: x.move_clock });
  const status = x.status === "waiting" ? t(x.free === 1 ? "lobby_free_1" : "lobby_free", { n: x.free }) : t("lobby_playing");
  return h("li", { class: `lobby-table ${x.status}`, "data-table": x.table, "data-free": x.free },
    h("h2", {}, title),
    h("p", { class: "lobby-status" }, h("b", {}, status), x.spectators ? ` · ${t("lobby_watchers", { n: x.spectators })}` : null),
    h("ul", { class: "lobby-seats", "aria-label": t("lobby_seats") }, x.seats.map(seatLine)),
    h("div", { class: "row" },
      x.status === "waiting" && x.free > 0
        ? h("a", { class: "btn primary sit-link", href: `/t/${id}`, onclick: go(`/t/${id}`), "aria-label": `${t("lobby_sit")} · ${title}` }, t("lobby_sit"))
        : null,
      h("a", { class: "btn watch-link", href: `/t/${id}?watch=1`, onclick: go(`/t/${id}?watch=1`), "aria-label": `${t("lobby_watch")} · ${title}` }, t("lobby_watch"))));
}

function drawLobby(s) {
  page(h("main", { class: "club lobby", id: "lobby" },
    h("h1", {}, t("lobby_title")),
    h("p", { class: "hint" }, t("lobby_hint")),
    s.tables === null
      ? h("p", { role: "status" }, t("loading"))
      : s.tables.length
        ? h("ul", { class: "lobby-list", id: "lobby-list" }, s.tables.map(lobbyRow))
        : h("p", { class: "notice", id: "lobby-empty", role: "status" }, t("lobby_empty")),
    h("p", {}, h("a", { href: "/", onclick: go("/") }, t("back_home")))));
}

// -- the queue ------------------------------------------------------------------------------------

/** Queue for a variant (with a party's id or none) as the guest `me`: the waiting screen. */
export function openQueue(me, variant = "havana", party = null) {
  const s = screen(drawQueue, null);
  Object.assign(s, { me, variant, party, queued: null, link: null, start: Date.now() });
  s.sock = new ClubSocket(queueMessage(s), (f) => onQueueFrame(s, f));
  s.tick = setInterval(() => {
    const el = document.getElementById("queue-waited");
    if (app.club !== s) clearInterval(s.tick);
    else if (el) el.textContent = waitedText(s);
  }, 1000);
  s.render();
}

const queueMessage = (s) => ({ type: "queue", token: s.me.token, variant: s.variant, party: s.party });

function requeue(s) {
  s.sock.first = queueMessage(s);
  s.queued = null;
  s.sock.send(s.sock.first);
  s.render();
}

function onQueueFrame(s, f) {
  if (app.club !== s) return;
  if (f.type === "queued") {
    s.queued = f;
    s.start = Date.now();
  } else if (f.type === "matched") {
    s.sock.close();
    app.go(`/t/${encodeURIComponent(f.table)}`);
    return;
  } else if (f.type === "unqueued") {
    s.sock.close();
    if (f.reason !== "left") toast(t(f.reason === "elsewhere" ? "queue_elsewhere" : "queue_lost"));
    app.go("/");
    return;
  } else if (f.type === "error") {
    s.sock.close();
    toast(errorText(f));
    app.go("/");
    return;
  }
  s.render();
}

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
    : s.party
      ? h("p", { class: "notice", id: "party-joined" }, t("party_joined"))
      : h("button", { id: "party-make", onclick: () => makeParty(s) }, t("party_make"));
  page(h("main", { class: "club queue", id: "queue" },
    h("section", { class: "card" },
      h("h1", {}, t("queue_title")),
      h("p", { class: "queue-state", id: "queue-state", role: "status" },
        q ? t("queue_waiting", { variant: variantName(q.variant) }) : t("loading")),
      q ? h("p", { id: "queue-waited", class: "queue-waited" }, waitedText(s)) : null,
      q ? h("p", { class: "hint", id: "queue-count" }, q.waiting > 1 ? t("queue_count", { n: q.waiting }) : t("queue_count_1")) : null,
      q ? h("p", { class: "hint" }, t("queue_fill", { s: Math.round(q.fill) })) : null,
      h("div", { class: "form-grid" }, h("label", { for: "queue-variant" }, t("queue_variant")), variant),
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
