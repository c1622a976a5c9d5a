// The bell in the header, for people with an account: friends (who is online and where), their
// requests, invitations to a table, and who may invite me. Loaded with import() only for an
// account holder (app.js), never with the first page; its words and its style come with it.
// Its socket says `notices` and then only listens: every change is pushed by the server.
import { h, app, store, toast } from "./dom.js";
import { t, STRINGS } from "./i18n.js";
import { api } from "./net.js";
import { modal } from "./panels.js";
import { mySeat } from "./seats.js";

Object.assign(STRINGS.es, {
  bell: "Avisos y amigos",
  fr_title: "Amigos y avisos",
  fr_notices: "Avisos",
  fr_none: "No tienes avisos.",
  fr_more: "Ver más",
  fr_friends: "Amigos",
  fr_no_friends: "Aún no tienes amigos aquí. Pídele a alguien su nombre de cuenta.",
  fr_add: "Añadir amigo",
  fr_add_ph: "Nombre de su cuenta",
  fr_send: "Enviar solicitud",
  fr_sent: "Solicitud enviada a {name}.",
  fr_now: "{name} y tú ya son amigos.",
  fr_incoming: "Te quieren de amigo",
  fr_outgoing: "Esperando respuesta",
  fr_accept: "Aceptar",
  fr_decline: "Rechazar",
  fr_remove: "Quitar",
  fr_withdraw: "Retirar",
  fr_invite: "Invitar a mi mesa",
  fr_partner: "Invitar de compañero",
  fr_invited: "Invitación enviada a {name}.",
  fr_go: "Ir a la mesa",
  fr_take_seat: "Sentarme de compañero",
  fr_read: "Marcar todo leído",
  fr_offline: "Desconectado",
  fr_online: "En línea",
  fr_playing: "Jugando",
  fr_queued: "Buscando mesa",
  fr_watching: "Mirando una mesa",
  fr_privacy: "Privacidad",
  fr_who_invites: "Quién puede invitarme",
  fr_inv_everyone: "Todos",
  fr_inv_friends: "Solo mis amigos",
  fr_inv_nobody: "Nadie",
  fr_show_online: "Mostrar a mis amigos cuándo estoy conectado",
  fr_n_friend_request: "{from} quiere ser tu amigo.",
  fr_n_friend_accepted: "{from} aceptó tu amistad.",
  fr_n_invite: "{from} te invita a su mesa.",
  fr_n_invite_seat: "{from} te invita a sentarte de compañero.",
  fr_close: "Cerrar",
  fr_together: "Jugar juntos",
  fr_n_party: "{from} te invita a jugar ahora de pareja.",
  fr_play: "Jugar",
  fr_n_pair_proposal: "{from} te propone formar la pareja {pair}.",
  fr_n_pair_formed: "{from} aceptó: ya son la pareja {pair}.",
  fr_n_pair_declined: "{from} no quiso formar la pareja {pair}.",
  fr_n_pair_dissolved: "{from} deshizo la pareja {pair}.",
  fr_see_pair: "Ver la pareja",
  fr_n_tournament_table: "Tu mesa de la ronda {round} de {name} está lista.",
  fr_n_arena_table: "Tu mesa en la arena {name} está lista.",
  fr_answer: "Responder",
  fr_n_pena_request: "{from} pide entrar en la peña {pena}.",
  fr_n_pena_invite: "{from} te invita a la peña {pena}.",
  fr_n_pena_accepted: "{from} te aceptó en la peña {pena}.",
  fr_n_pena_founder: "{from} te pasó la peña {pena}: ahora eres su fundador.",
  fr_n_pena_dissolved: "{from} disolvió la peña {pena}.",
  fr_see_pena: "Ver la peña",
  fr_penas: "Peñas",
  fr_pairs: "Parejas",
});
Object.assign(STRINGS.en, {
  bell: "Notices and friends",
  fr_title: "Friends and notices",
  fr_notices: "Notices",
  fr_none: "You have no notices.",
  fr_more: "Show more",
  fr_friends: "Friends",
  fr_no_friends: "No friends here yet. Ask someone for their account name.",
  fr_add: "Add a friend",
  fr_add_ph: "Their account name",
  fr_send: "Send request",
  fr_sent: "Request sent to {name}.",
  fr_now: "You and {name} are friends now.",
  fr_incoming: "Friend requests",
  fr_outgoing: "Waiting for an answer",
  fr_accept: "Accept",
  fr_decline: "Decline",
  fr_remove: "Remove",
  fr_withdraw: "Withdraw",
  fr_invite: "Invite to my table",
  fr_partner: "Invite as my partner",
  fr_invited: "Invitation sent to {name}.",
  fr_go: "Go to the table",
  fr_take_seat: "Sit as partner",
  fr_read: "Mark all read",
  fr_offline: "Offline",
  fr_online: "Online",
  fr_playing: "Playing",
  fr_queued: "Looking for a table",
  fr_watching: "Watching a table",
  fr_privacy: "Privacy",
  fr_who_invites: "Who may invite me",
  fr_inv_everyone: "Everyone",
  fr_inv_friends: "Only my friends",
  fr_inv_nobody: "Nobody",
  fr_show_online: "Show my friends when I am online",
  fr_n_friend_request: "{from} wants to be your friend.",
  fr_n_friend_accepted: "{from} accepted your friend request.",
  fr_n_invite: "{from} invites you to their table.",
  fr_n_invite_seat: "{from} invites you to sit as their partner.",
  fr_close: "Close",
  fr_together: "Play together",
  fr_n_party: "{from} invites you to play now as partners.",
  fr_play: "Play",
  fr_n_pair_proposal: "{from} proposes to form the pair {pair} with you.",
  fr_n_pair_formed: "{from} accepted: you are the pair {pair} now.",
  fr_n_pair_declined: "{from} declined to form the pair {pair}.",
  fr_n_pair_dissolved: "{from} dissolved the pair {pair}.",
  fr_see_pair: "See the pair",
  fr_n_tournament_table: "Your table of round {round} of {name} is ready.",
  fr_n_arena_table: "Your table in the arena {name} is ready.",
  fr_answer: "Answer",
  fr_n_pena_request: "{from} asks to join the peña {pena}.",
  fr_n_pena_invite: "{from} invites you to the peña {pena}.",
  fr_n_pena_accepted: "{from} accepted you in the peña {pena}.",
  fr_n_pena_founder: "{from} handed the peña {pena} over to you: you are its founder now.",
  fr_n_pena_dissolved: "{from} dissolved the peña {pena}.",
  fr_see_pena: "See the peña",
  fr_penas: "Peñas",
  fr_pairs: "Pairs",
});

if (!document.getElementById("friends-css")) {
  document.head.appendChild(h("link", { id: "friends-css", rel: "stylesheet", href: new URL("../css/friends.css", import.meta.url).href }));
}

const NS = "http://www.w3.org/2000/svg";
const s = { ws: null, token: null, unread: 0, notices: [], next: null, friends: null, privacy: null, open: false, retry: 0, title: document.title };

const token = () => (store.get("guest") || {}).token;

/** Called by app.js at every screen: the bell in the header, and its socket (once). */
export function start() {
  const g = store.get("guest") || {};
  if (!g.account) return stop();
  if (s.token !== g.token) {
    stop();
    s.token = g.token;
    connect();
  }
  app.bell = bellButton;
  const bar = document.querySelector("header.top .top-extra");
  if (bar && !document.getElementById("bell")) bar.prepend(bellButton());
}

function stop() {
  app.bell = null;
  s.token = null;
  if (s.ws) s.ws.close();
  s.ws = null;
}

function connect() {
  const mine = s.token;
  if (!mine) return;
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`);
  s.ws = ws;
  ws.onopen = () => ws.send(JSON.stringify({ type: "notices", token: mine }));
  ws.onmessage = (e) => {
    try {
      take(JSON.parse(e.data));
    } catch {
      /* a frame we cannot read: the next ones still come */
    }
  };
  ws.onclose = () => {
    if (s.ws !== ws || s.token !== mine) return;
    s.ws = null;
    setTimeout(connect, Math.min(10000, 500 * 2 ** s.retry++)); // it comes back by itself
  };
}

function take(m) {
  // A tournament's round moved, or my table of it is ready: its page (tournaments.js) reads again.
  if (m.type === "tournament" || (m.type === "notice" && m.notice.kind === "tournament_table")) {
    window.dispatchEvent(new CustomEvent("tranque:tournament", { detail: { tournament: m.tournament || m.notice.tournament } }));
  }
  if (m.type === "notices") {
    s.retry = 0;
    s.notices = m.latest;
    s.next = m.latest.length >= 20 ? m.latest[m.latest.length - 1].id : null;
    counted(m.unread);
    return redraw(); // the bell may be open already, showing the list as it was before
  }
  if (m.type === "notice") {
    s.notices = [m.notice, ...s.notices.filter((n) => n.id !== m.notice.id)];
    counted(m.unread);
    announce(m.notice);
    if (m.notice.kind !== "invite") s.friends = null; // a request or a new friend: read again
    return redraw();
  }
  if (m.type === "unread") return counted(m.unread);
  if (m.type === "presence" && s.friends) {
    const f = s.friends.friends.find((x) => x.name === m.friend);
    if (f) Object.assign(f, { status: m.status, table: m.table });
    return redraw();
  }
  if (m.type === "unfriended" && s.friends) {
    s.friends.friends = s.friends.friends.filter((x) => x.name !== m.friend);
    return redraw();
  }
  if (m.type === "error" && m.code === "logged_out") stop();
}

function counted(n) {
  s.unread = n;
  const b = document.getElementById("bell");
  if (b) b.replaceWith(bellButton());
  // The page's title shows the count, as a tab in the background can.
  document.title = n ? `(${n}) ${s.title.replace(/^\(\d+\) /, "")}` : s.title.replace(/^\(\d+\) /, "");
}

function text(n) {
  const arena = n.kind === "tournament_table" && n.game !== undefined; // an arena's table: no rounds
  const key = n.party ? "fr_n_party" : n.kind === "invite" && n.seat !== null && n.seat !== undefined ? "fr_n_invite_seat" : arena ? "fr_n_arena_table" : `fr_n_${n.kind}`;
  return t(key, { from: n.from, pair: n.pair, pena: n.pena, round: n.round, name: n.name });
}

function announce(n) {
  toast(text(n));
  if (document.hidden && typeof Notification !== "undefined" && Notification.permission === "granted") {
    try {
      new Notification("tranque", { body: text(n), tag: `tranque-notice-${n.id}`, icon: "/favicon.svg" });
    } catch {
      /* no notification here: the title and the bell still say it */
    }
  }
}

function bellIcon() {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(NS, "path");
  path.setAttribute("d", "M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0");
  svg.appendChild(path);
  return svg;
}

function bellButton() {
  const label = s.unread ? `${t("bell")} (${s.unread})` : t("bell");
  return h("button", { id: "bell", class: "icon-btn bell", type: "button", title: label, "aria-label": label, onclick: openPanel },
    bellIcon(), s.unread ? h("span", { class: "count", "aria-hidden": "true" }, String(s.unread)) : null);
}

// -- the dialog ----------------------------------------------------------------------------------

async function openPanel() {
  s.open = true;
  redraw();
  await Promise.all([loadFriends(), loadPrivacy()]);
  redraw();
}

async function loadFriends() {
  try {
    s.friends = await api("/api/friends", { token: token() });
  } catch (e) {
    toast(e.message);
  }
}

async function loadPrivacy() {
  if (s.privacy) return;
  try {
    s.privacy = await api("/api/privacy", { token: token() });
  } catch {
    s.privacy = null;
  }
}

function close() {
  s.open = false;
  document.getElementById("friends-dialog")?.remove();
  document.getElementById("bell")?.focus();
}

function redraw() {
  if (!s.open) return;
  if (!s.friends) loadFriends().then(() => s.friends && redraw());
  const old = document.getElementById("friends-dialog");
  const focused = document.activeElement && document.activeElement.id;
  const typed = document.getElementById("fr-name")?.value || "";
  const dialog = h("div", { id: "friends-dialog", class: "friends" }, modal(panel(), "fr-title", close));
  if (old) old.replaceWith(dialog);
  else document.body.appendChild(dialog);
  const name = document.getElementById("fr-name");
  if (name) name.value = typed;
  (document.getElementById(focused) || document.getElementById("fr-close"))?.focus();
}

async function act(path, method) {
  try {
    await api(path, { method, token: token() });
  } catch (e) {
    toast(e.message);
  }
  await loadFriends();
  redraw();
}

function myTable() {
  const at = location.pathname.match(/^\/t\/([^/]+)/);
  return at ? decodeURIComponent(at[1]) : app.myTable;
}

async function invite(name, seat) {
  try {
    await api("/api/invites", { method: "POST", token: token(), body: { name, table: myTable(), seat } });
    toast(t("fr_invited", { name }));
  } catch (e) {
    toast(e.message);
  }
}

// The quick match with a friend as partner: a party (as the queue's own link makes), its id sent
// to the friend's bell instead of a link to pass, and me in the queue with it.
async function together(name) {
  try {
    const me = store.get("guest");
    const p = await api("/api/parties", { method: "POST", token: token() });
    await api("/api/invites", { method: "POST", token: token(), body: { name, party: p.party } });
    close();
    toast(t("fr_invited", { name }));
    (await import("./lobby.js")).openQueue(me, "havana", p.party);
    if (app.club) ((app.club.link = p.link), app.club.render()); // the link too, for anyone else
  } catch (e) {
    toast(e.message);
  }
}

function friendRow(f) {
  const table = myTable();
  const me = app.m ? mySeat(app.m) : null;
  const status = f.status ? t(`fr_${f.status}`) : t("fr_offline");
  return h("li", {},
    h("span", { class: "who" }, h("span", { class: `dot${f.status ? " on" : ""}`, "aria-hidden": "true" }), f.name),
    h("span", { class: "where" }, status),
    f.table && (f.status === "playing" || f.status === "watching") ? h("a", { href: `/t/${encodeURIComponent(f.table)}` }, t("fr_go")) : null,
    table ? h("button", { type: "button", onclick: () => invite(f.name, null) }, t("fr_invite")) : null,
    !table && f.status === "online" ? h("button", { type: "button", onclick: () => together(f.name) }, t("fr_together")) : null,
    table && me !== null ? h("button", { type: "button", onclick: () => invite(f.name, (me + 2) % 4) }, t("fr_partner")) : null,
    h("button", { type: "button", onclick: () => act(`/api/friends/${encodeURIComponent(f.name)}`, "DELETE") }, t("fr_remove")));
}

function noticeRow(n) {
  return h("li", { class: n.read ? "" : "unread" },
    h("span", { class: "who" }, text(n)),
    n.party ? h("button", { type: "button", class: "primary", onclick: () => (close(), app.go(`/?party=${encodeURIComponent(n.party)}&by=${encodeURIComponent(n.from)}`)) }, t("fr_play"))
      : n.kind === "invite" ? h("button", { type: "button", class: "primary", onclick: () => takeSeat(n.table, n.seat) }, t(seated(n) ? "fr_take_seat" : "fr_go"))
      : n.kind === "tournament_table" ? h("button", { type: "button", class: "primary", onclick: () => (close(), app.go(`/t/${encodeURIComponent(n.table)}`)) }, t("fr_go"))
      : n.kind === "pair_proposal" || n.kind === "pair_formed" ? h("button", { type: "button", onclick: () => (close(), app.go(n.kind === "pair_formed" ? `/pair/${encodeURIComponent(n.pair)}` : "/pairs")) }, t(n.kind === "pair_formed" ? "fr_see_pair" : "fr_answer"))
      : n.pena && n.kind !== "pena_dissolved" ? h("button", { type: "button", class: "see-pena", onclick: () => (close(), app.go(`/pena/${encodeURIComponent(n.pena)}`)) }, t("fr_see_pena")) : null);
}

const seated = (n) => n.seat !== null && n.seat !== undefined;

/** An invitation opens its table; one to a seat sits him there too, one tap, as the table's own
 * "Sit" button would (still free: else he sees the table as it is and chooses). */
function takeSeat(table, seat) {
  close();
  const path = `/t/${encodeURIComponent(table)}`;
  app.go(path);
  if (!seated({ seat })) return;
  const button = () => location.pathname === path && document.querySelector(`button.sit[data-seat="${seat}"]`);
  const found = () => {
    const b = button();
    if (!b) return false;
    watch.disconnect();
    clearTimeout(done);
    b.click();
    return true;
  };
  const watch = new MutationObserver(found);
  const done = setTimeout(() => watch.disconnect(), 15000); // the table never offered it
  if (!found()) watch.observe(document.body, { childList: true, subtree: true });
}

async function more() {
  try {
    const page = await api(`/api/notices?before=${s.next}`, { token: token() });
    s.notices = [...s.notices, ...page.notices];
    s.next = page.next;
  } catch (e) {
    toast(e.message);
  }
  redraw();
}

async function setPrivacy(change) {
  try {
    s.privacy = await api("/api/privacy", { method: "PUT", token: token(), body: change });
  } catch (e) {
    toast(e.message);
  }
  redraw();
}

function panel() {
  const f = s.friends || { friends: [], incoming: [], outgoing: [] };
  const ask = async (e) => {
    e.preventDefault();
    const input = document.getElementById("fr-name");
    const name = input.value.trim();
    if (!name) return;
    input.value = "";
    try {
      const r = await api("/api/friends", { method: "POST", token: token(), body: { name } });
      toast(t(r.state === "friends" ? "fr_now" : "fr_sent", { name }));
    } catch (err) {
      toast(err.message);
    }
    await loadFriends();
    redraw();
  };
  const p = s.privacy;
  return h("div", { class: "panel" },
    h("h2", { id: "fr-title" }, t("fr_title")),
    h("section", { "aria-labelledby": "fr-n" },
      h("div", { class: "row" }, h("h3", { id: "fr-n" }, t("fr_notices")),
        s.unread ? h("button", { type: "button", id: "fr-read", onclick: () => api("/api/notices/read", { method: "POST", token: token(), body: {} }).then(() => (s.notices = s.notices.map((n) => ({ ...n, read: true }))), redraw()) }, t("fr_read")) : null),
      s.notices.length ? h("ul", { id: "fr-notices" }, s.notices.map(noticeRow)) : h("p", { class: "empty" }, t("fr_none")),
      s.next ? h("button", { type: "button", onclick: more }, t("fr_more")) : null),
    f.incoming.length ? h("section", { "aria-labelledby": "fr-in" }, h("h3", { id: "fr-in" }, t("fr_incoming")),
      h("ul", {}, f.incoming.map((name) => h("li", {}, h("span", { class: "who" }, name),
        h("button", { type: "button", class: "primary", onclick: () => act(`/api/friends/${encodeURIComponent(name)}/accept`, "POST") }, t("fr_accept")),
        h("button", { type: "button", onclick: () => act(`/api/friends/${encodeURIComponent(name)}/decline`, "POST") }, t("fr_decline")))))) : null,
    h("section", { "aria-labelledby": "fr-f" }, h("h3", { id: "fr-f" }, t("fr_friends")),
      f.friends.length ? h("ul", { id: "fr-list" }, f.friends.map(friendRow)) : h("p", { class: "empty" }, t("fr_no_friends")),
      f.outgoing.length ? h("p", { class: "empty" }, `${t("fr_outgoing")}: `, f.outgoing.map((name, i) => [i ? ", " : "", name, " ",
        h("button", { type: "button", onclick: () => act(`/api/friends/${encodeURIComponent(name)}`, "DELETE") }, t("fr_withdraw"))]).flat()) : null,
      h("form", { class: "row", onsubmit: ask },
        h("label", { class: "sr", for: "fr-name" }, t("fr_add")),
        h("input", { id: "fr-name", type: "text", placeholder: t("fr_add_ph"), autocomplete: "off", maxlength: "20" }),
        h("button", { type: "submit", class: "primary" }, t("fr_send")))),
    p ? h("section", { "aria-labelledby": "fr-p" }, h("h3", { id: "fr-p" }, t("fr_privacy")),
      h("label", { class: "row" }, t("fr_who_invites"),
        h("select", { id: "fr-invites", onchange: (e) => setPrivacy({ invites: e.target.value }) },
          ["everyone", "friends", "nobody"].map((v) => h("option", { value: v, selected: p.invites === v }, t(`fr_inv_${v}`))))),
      h("label", { class: "check" },
        h("input", { id: "fr-online", type: "checkbox", checked: p.show_online, onchange: (e) => setPrivacy({ show_online: e.target.checked }) }),
        t("fr_show_online"))) : null,
    h("p", { class: "row" }, h("a", { href: "/penas", id: "fr-penas", onclick: (e) => (e.preventDefault(), close(), app.go("/penas")) }, t("fr_penas")),
      " · ", h("a", { href: "/pairs", id: "fr-pairs", onclick: (e) => (e.preventDefault(), close(), app.go("/pairs")) }, t("fr_pairs"))),
    h("button", { type: "button", id: "fr-close", class: "close", onclick: close }, t("fr_close")));
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && s.open) close();
});
