// The browser client's entry: which screen a path shows, who the guest is, the landing. The table
// is table.js (drawn from model.js), its dialogs panels.js.
import { api, TableSocket } from "./net.js";
import { h, $, app, store, toast } from "./dom.js";
import { t, getLang } from "./i18n.js";
import { tileSVG, parseTile } from "./tiles.js";
import { header, iconButton, langSelect, chipsBadge, backToTable } from "./chrome.js";
import { applySettings, settingsPanel } from "./settings.js";
import { wakeOnGesture } from "./sound.js";
import { showTurn, watchVisibility } from "./alerts.js";
import { modal } from "./panels.js";
import { renderTable, layoutChain, tickClocks, motion } from "./table.js";
import * as M from "./model.js";
import { played } from "./sound.js";
import { accountCard, nameField, fieldError, NAME_CODES } from "./club.js";
// A profile (/u/...), the lobby and the queue (lobby.js), games (/g/...): loaded when opened.
const renderProfile = (handle) => import("./profile.js").then((p) => p.renderProfile(handle), (e) => toast(M.errorText(e)));
import "./talk.js"; // the club's words (with_people, practice, lobby...)

const club = () => import("./lobby.js");
const games = () => import("./game.js");

const LEVELS = ["facil", "normal", "fuerte"]; // the bots' levels a practice table takes
const VARIANTS = ["havana", "miami", "oriente", "barrio"];
const TARGETS = { havana: 100, miami: 150, oriente: 20, barrio: 100 };
// A name for whoever leaves the nickname empty: a word of the game and a number.
const NICK_WORDS = ["Capicúa", "La Gorda", "La Blanca", "Viajera", "Doble Seis", "Dormida", "Salgo", "Doble Nueve"];

// -- identity ------------------------------------------------------------------------------------

// A guest token (30 days) is renewed once per page load; an expired or unknown one makes a new
// guest of the same nickname.
let renewed = false;

function defaultNick() {
  const word = NICK_WORDS[Math.floor(Math.random() * NICK_WORDS.length)];
  return `${word} ${10 + Math.floor(Math.random() * 90)}`;
}

async function identity(nickname) {
  let saved = store.get("guest");
  const nick = (nickname || "").trim();
  if (saved && !renewed) {
    try {
      // An account's name stays with the renewed token (the answer has no "account").
      const g = { ...saved, ...(await api("/api/guests/renew", { method: "POST", token: saved.token })) };
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
  if (saved && (saved.account || !nick || nick === saved.nickname)) return saved;
  if (saved) {
    // A new name for the same guest: his games, chips and seats stay his.
    const g = { ...saved, ...(await api("/api/guests/nickname", { method: "POST", body: { nickname: nick }, token: saved.token })), named: true };
    store.set("guest", g);
    return g;
  }
  // `named`: the person chose the name (else he is asked for one where he first sits: naming.js).
  const g = { ...(await api("/api/guests", { method: "POST", body: { nickname: nick || defaultNick() } })), named: Boolean(nick) };
  store.set("guest", g);
  renewed = true;
  return g;
}

/** The guest, named: with the name typed on the landing, or, for one who never chose a name,
 * the one he gives when asked (naming.js); null if he would not give one. Where a person sits
 * with others (the queue, a table for people, the lobby's and an invite's seats). */
async function ensureNamed(typed = "") {
  const nick = (typed || "").trim();
  const g = await identity(nick);
  if (nick || g.account || g.named) return g;
  const { askName } = await import("./naming.js");
  const prefill = store.get("typed") || (g.named === false || /^guest-\d+$/.test(g.nickname) ? "" : g.nickname);
  return askName({ prefill });
}

// The party link names who made it (`by`, the server's words for the inviter): shown only if it
// has a nickname's form, as anyone may edit a link.
function invitedBy() {
  const by = (new URLSearchParams(location.search).get("by") || "").trim();
  return /^[\p{L}\p{N}_ .'-]{1,24}$/u.test(by) ? t("party_invited_by", { name: by }) : t("party_joined");
}

// -- screens -------------------------------------------------------------------------------------

function route() {
  const match = location.pathname.match(/^\/t\/([^/]+)/);
  const profile = location.pathname.match(/^\/u\/([^/]+)/);
  const board = location.pathname.match(/^\/leaderboards\/(\w+)/);
  if (app.sock) {
    app.sock.close();
    app.sock = null;
  }
  if (app.club) app.club.close();
  app.club = null;
  readChips();
  readMyTable();
  if ((store.get("guest") || {}).account) import("./friends.js").then((f) => f.start(), () => {}); // the bell
  app.game = null;
  app.m = app.onTable = null;
  app.dialog = null;
  if (board) import("./ratings.js").then((r) => r.openLeaderboard(board[1]), (e) => toast(M.errorText(e)));
  else if (match) openTable(decodeURIComponent(match[1]));
  else if (profile) renderProfile(decodeURIComponent(profile[1]));
  else if (/^\/g(ames$|\/)/.test(location.pathname)) games().then((g) => g.open(location.pathname), (e) => toast(M.errorText(e)));
  else if (location.pathname === "/lobby") club().then((c) => c.openLobby(), (e) => toast(M.errorText(e)));
  else if (location.pathname === "/chips") import("./chips.js").then((c) => c.openChips());
  else if (location.pathname === "/mod") import("./mod.js").then((x) => x.openMod(), (e) => toast(M.errorText(e)));
  else if (/^\/(index\.html)?$/.test(location.pathname)) renderLanding();
  else import("./missing.js").then((x) => x.openMissing(), (e) => toast(M.errorText(e)));
}

function go(path) {
  history.pushState(null, "", path);
  route();
}

// The balance in the header moves at the end of chip tables: read again at each screen, and put
// in place in the header drawn meanwhile (a redraw would lose what is being typed).
function readChips() {
  const g = store.get("guest");
  if (!g) return;
  api("/api/chips", { token: g.token }).then((b) => {
    app.chips = b;
    const bar = document.querySelector("header.top:not(.on-table) .top-extra");
    if (!bar) return;
    const old = document.getElementById("chip-balance");
    if (old) old.replaceWith(chipsBadge());
    else bar.prepend(chipsBadge());
  }, () => {});
}

// The game this person is playing, kept by the table screen (table.js) while it is on: asked
// again at each screen (it may have ended meanwhile), and its link put in the header drawn.
function readMyTable() {
  const id = store.get("myTable");
  app.myTable = null;
  if (!id || location.pathname.startsWith("/t/")) return;
  api(`/api/tables/${encodeURIComponent(id)}`).then((info) => {
    if (!info.started || info.over) return store.set("myTable", null);
    app.myTable = id;
    const top = document.querySelector("header.top:not(.on-table)");
    if (top && !document.getElementById("back-to-table")) top.querySelector(".brand").after(backToTable());
  }, (e) => {
    if (e.status === 404 || e.status === 410) store.set("myTable", null);
  });
}

function render() {
  const profile = location.pathname.match(/^\/u\/([^/]+)/);
  if (app.m) renderTable();
  else if (profile) renderProfile(decodeURIComponent(profile[1]));
  else if (app.club) app.club.render();
  else if (app.game) app.game();
  else renderLanding();
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

function renderLanding() {
  showTurn("tranque", false);
  const focused = document.activeElement && document.activeElement.id;
  const g = store.get("guest");
  const typed = $("#nickname");
  // No maxlength: a name too long is said so at the field, not cut (club.js nameField).
  const nick = nameField(h("input", {
    id: "nickname",
    name: "nickname",
    autocomplete: "nickname",
    value: typed ? typed.value : (g && g.named !== false && g.nickname && !g.nickname.startsWith("guest-") && g.nickname) || store.get("typed") || "",
    placeholder: t("nickname_ph"),
    // Kept as it is typed: offered again where the guest first sits (naming.js), wherever that is.
    oninput: (e) => store.set("typed", e.target.value.trim()),
  }), 24, "err_bad_nickname");
  // A refused nickname is said at its field; anything else in a toast.
  const refused = (e) => (NAME_CODES.has(e.code) ? (fieldError(nick, M.errorText(e)), nick.focus()) : toast(M.errorText(e)));
  const busy = (b) => document.querySelectorAll("button").forEach((x) => (x.disabled = b));
  const start = async (body) => {
    if (nick.tooLong()) return nick.focus();
    busy(true);
    try {
      // A table for people: the name they will see (a practice table asks none).
      const me = body.practice ? await identity(nick.value) : await ensureNamed(nick.value);
      if (!me) return busy(false);
      const tab = await api("/api/tables", { method: "POST", body, token: me.token });
      go(`/t/${encodeURIComponent(tab.table)}`);
    } catch (e) {
      busy(false);
      refused(e);
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
  // "Con personas": the queue (a friend's party link, /?party=..., seats the two as partners).
  const party = new URLSearchParams(location.search).get("party");
  const queue = async () => {
    if (nick.tooLong()) return nick.focus();
    busy(true);
    try {
      const me = await ensureNamed(nick.value);
      if (!me) return busy(false);
      (await club()).openQueue(me, "havana", party);
    } catch (e) {
      busy(false);
      refused(e);
    }
  };
  const closeSettings = () => ((app.dialog = null), renderLanding(), $("#open-settings").focus());
  const page = [
    header([
      iconButton("open-settings", "settings", t("settings"), () => ((app.dialog = "settings"), renderLanding())),
      langSelect(),
    ]),
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
        h("h2", { id: "play-title" }, t("play_now")),
        h("label", { for: "nickname" }, t("nickname")),
        nick,
        party ? h("p", { class: "notice", id: "party-invite" }, invitedBy()) : null,
        h("button", { id: "play-people", class: "big primary", onclick: queue }, t("with_people")),
        h("p", { class: "hint" }, t("with_people_hint")),
        levels,
        h("button", { id: "play-now", class: "big", onclick: () => start({ rules: "havana", practice: true, seat: 0, bot: level() }) }, t("practice")),
        h("p", { class: "hint" }, t("play_now_hint")),
        h("p", {}, h("a", { id: "lobby-link", href: "/lobby", onclick: (e) => (e.preventDefault(), go("/lobby")) }, t("lobby")),
          " · ", h("a", { id: "chips-link", href: "/chips", onclick: (e) => (e.preventDefault(), go("/chips")) }, t("chips"))),
      ),
      h("section", { class: "card" },
        h("h2", {}, t("create_table")),
        h("div", { class: "form-grid" },
          h("label", { for: "variant" }, t("variant")), variant,
          h("label", { for: "target" }, t("target")), target,
          h("label", { for: "clock" }, t("clock")), clock,
        ),
        h("fieldset", { class: "modes" }, h("legend", {}, t("mode")), mode("practice", true), mode("people", false)),
        h("label", { class: "radio" }, h("input", { type: "checkbox", id: "public" }), t("public_table")),
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
            if ($("#public").checked) body.public = true;
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
      accountCard(() => identity(nick.value)),
      h("section", { class: "card rules-card" },
        h("h2", {}, t("how_title")),
        h("ul", {}, ["how1", "how2", "how3", "how4", "how5"].map((k) => h("li", {}, t(k)))),
        h("p", {}, h("a", { id: "help-link", href: "/help.html" }, t("help_link")))),
    ),
  ];
  if (app.dialog === "settings") {
    const body = settingsPanel(closeSettings, renderLanding); // null while its module comes
    if (body) {
      for (const k of page) k.inert = true;
      page.push(modal(body, "settings-title", closeSettings));
    }
  }
  app.root.replaceChildren(...page);
  const again = focused && document.getElementById(focused);
  if (again) again.focus();
}

async function openTable(table) {
  const role = new URLSearchParams(location.search).get("watch") ? "spectator" : "player";
  const m = M.newModel(table, role);
  app.m = m;
  renderTable();
  let me;
  try {
    me = await identity();
  } catch (e) {
    m.error = M.errorText(e);
    renderTable();
    return;
  }
  m.me = me;
  try {
    m.info = await api(`/api/tables/${encodeURIComponent(table)}`);
  } catch (e) {
    m.error = e.status === 404 ? t("err_no_table") : M.errorText(e);
    renderTable();
    return;
  }
  if (m.info.chips) import("./chips.js").then((c) => c.atTable(m));
  if ("time_up" in m.info) import("./timecap.js").then((c) => c.atTable(m));
  if (m.info.over && !m.info.seats) {
    m.error = t("table_over");
    renderTable();
    return;
  }
  const sock = new TableSocket({
    table,
    token: me.token,
    role,
    onFrame: (f) => M.onFrame(m, f),
    onStatus: (s) => {
      m.status = s;
      renderStatus();
    },
  });
  app.sock = sock;
  window.tranque = { sock, model: m, sound: { played }, motion }; // for the curious, and tests
  sock.connect();
}

export function start() {
  app.root = document.getElementById("app");
  app.go = go;
  app.render = render;
  app.ensureNamed = ensureNamed;
  app.renderStatus = renderStatus;
  app.rejoin = () => {
    store.set("guest", null);
    renewed = false;
    route();
  };
  document.documentElement.lang = getLang();
  applySettings();
  wakeOnGesture();
  watchVisibility();
  window.addEventListener("popstate", route);
  window.addEventListener("resize", () => layoutChain());
  setInterval(tickClocks, 250);
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    const m = app.m;
    if (!m) {
      if (app.dialog) {
        app.dialog = null;
        renderLanding();
      }
      return;
    }
    if (m.selected) m.selected = null;
    else if (m.showResult) M.closeResult(m);
    else m.panel = null;
    renderTable();
  });
  route();
  // sw.js, once loaded (maybe already: i18n.js awaits its words; docs/web.md).
  const sw = () => navigator.serviceWorker?.register("/sw.js").catch(() => {});
  document.readyState === "complete" ? sw() : addEventListener("load", sw);
}
