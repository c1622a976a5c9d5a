// Peñas: the list of peñas with a form to found one (/penas), and a peña's page (/pena/{name}):
// its members (online first), its board, its tables (members only: its members alone may sit),
// the admins' requests and invitations, its leaderboard, pairs and recent games. Loaded with
// import() only when such a path is opened (missing.js hands them here) or from the bell, with
// its words; its style is penas.css. The routes are docs/club.md, "Peñas".
import { api } from "./net.js";
import { h, app, store, toast } from "./dom.js";
import { t, tn, STRINGS } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import { errorText } from "./model.js";
import { ratingText } from "./ratings.js";

const PRESETS = ["havana", "miami", "oriente", "barrio"];
// Each emblem's glyph (the server keeps only its word: club/penas.py EMBLEMS).
const GLYPHS = { domino: "⚃", palma: "♣", gallo: "♞", tabaco: "♨", sol: "☀", ancla: "⚓", estrella: "★", guitarra: "♫" };

Object.assign(STRINGS.es, {
  pn_title: "Peñas",
  pn_hint: "Una peña es un grupo de jugadores: su tablón, sus mesas solo para socios, su clasificación y sus parejas.",
  pn_none: "Aún no hay ninguna peña. ¡Funda la primera!",
  pn_members: "Socios",
  pn_members_n: "{n} socios",
  pn_members_n_one: "{n} socio",
  pn_open: "Abierta",
  pn_closed: "Por invitación",
  pn_mine: "Mis peñas",
  pn_all: "Todas las peñas",
  pn_found: "Fundar una peña",
  pn_name_ph: "Nombre de la peña",
  pn_desc_ph: "De qué va la peña (opcional)",
  pn_open_label: "Abierta: cualquiera entra al momento",
  pn_emblem: "Emblema",
  pn_found_btn: "Fundar",
  pn_founded: "Peña {name} fundada.",
  pn_account: "Para fundar una peña o entrar en una hace falta una cuenta.",
  pn_no_pena: "No hay ninguna peña con ese nombre.",
  pn_founder: "Fundador",
  pn_admin: "Admin",
  pn_member: "Socio",
  pn_join: "Entrar",
  pn_ask: "Pedir entrar",
  pn_requested: "Pediste entrar: un admin te responderá.",
  pn_invited: "Te han invitado.",
  pn_withdraw: "Retirar la petición",
  pn_leave: "Salir de la peña",
  pn_joined: "Ya eres socio de {name}.",
  pn_board: "Tablón",
  pn_board_empty: "Nada en el tablón todavía.",
  pn_post_ph: "Escribe un aviso para los socios",
  pn_post: "Publicar",
  pn_tables: "Mesas de la peña",
  pn_tables_hint: "Solo los socios se sientan en estas mesas.",
  pn_no_tables: "Ninguna mesa abierta ahora.",
  pn_new_table: "Abrir una mesa de la peña",
  pn_sit: "Sentarse",
  pn_watch: "Mirar",
  pn_free: "{n} asientos libres",
  pn_free_one: "{n} asiento libre",
  pn_pending: "Peticiones",
  pn_accept: "Aceptar",
  pn_refuse: "Rechazar",
  pn_invite: "Invitar a alguien",
  pn_invite_ph: "Nombre de su cuenta",
  pn_invite_btn: "Invitar",
  pn_invite_sent: "Invitación enviada a {name}.",
  pn_promote: "Hacer admin",
  pn_demote: "Quitar admin",
  pn_remove: "Expulsar",
  pn_hand_over: "Pasarle la peña",
  pn_hand_over_sure: "¿Seguro? Será el fundador",
  pn_handed: "{name} es ahora el fundador de la peña.",
  pn_dissolve: "Disolver la peña",
  pn_dissolve_sure: "¿Seguro? Se borra la peña entera",
  pn_dissolved: "La peña {name} se disolvió.",
  pn_board_lb: "Clasificación de los socios",
  pn_no_lb: "Ningún socio tiene partidas con ranking en esta modalidad.",
  pn_pairs: "Parejas de la peña",
  pn_no_pairs: "Ninguna pareja de dos socios todavía.",
  pn_recent: "Partidas recientes de los socios",
  pn_no_recent: "Los socios aún no han terminado ninguna partida.",
  pn_online: "conectado",
  pn_by: "por {name}",
  pn_games: "{n} partidas",
  pn_games_one: "{n} partida",
  pn_pairs_link: "Parejas",
  err_not_allowed: "Tu papel en la peña no permite eso.",
  err_founder_stays: "El fundador no puede salir de su peña: pásasela a un admin o disuélvela.",
  err_not_an_admin: "Solo se le pasa la peña a un admin: hazlo admin antes.",
  err_already_founder: "Ya eres el fundador.",
  err_changed: "La peña cambió mientras tanto: mírala de nuevo.",
  err_too_many_penas: "Ya estás en 20 peñas: sal de una antes.",
  err_already_member: "Ya es socio de la peña.",
  err_already_requested: "Ya lo pediste: espera a un admin.",
  err_already_invited: "Ya está invitado.",
  err_post_too_long: "Un aviso tiene 500 caracteres como mucho.",
  err_empty_post: "Escribe algo.",
  err_bad_description: "La descripción tiene 280 caracteres como mucho.",
  err_no_pena: "No hay ninguna peña con ese nombre.",
  err_unknown_account: "Nadie tiene esa cuenta.",
  pn_emblem_domino: "Dominó", pn_emblem_palma: "Palma", pn_emblem_gallo: "Gallo", pn_emblem_tabaco: "Tabaco",
  pn_emblem_sol: "Sol", pn_emblem_ancla: "Ancla", pn_emblem_estrella: "Estrella", pn_emblem_guitarra: "Guitarra",
});
Object.assign(STRINGS.en, {
  pn_title: "Peñas",
  pn_hint: "A peña is a club of players: its board, its members-only tables, its leaderboard and its pairs.",
  pn_none: "There is no peña yet. Found the first one!",
  pn_members: "Members",
  pn_members_n: "{n} members",
  pn_members_n_one: "{n} member",
  pn_open: "Open",
  pn_closed: "By invitation",
  pn_mine: "My peñas",
  pn_all: "All the peñas",
  pn_found: "Found a peña",
  pn_name_ph: "The peña's name",
  pn_desc_ph: "What the peña is about (optional)",
  pn_open_label: "Open: anyone joins at once",
  pn_emblem: "Emblem",
  pn_found_btn: "Found",
  pn_founded: "The peña {name} is founded.",
  pn_account: "Founding or joining a peña needs an account.",
  pn_no_pena: "No peña has that name.",
  pn_founder: "Founder",
  pn_admin: "Admin",
  pn_member: "Member",
  pn_join: "Join",
  pn_ask: "Ask to join",
  pn_requested: "You asked to join: an admin will answer.",
  pn_invited: "You are invited.",
  pn_withdraw: "Withdraw the request",
  pn_leave: "Leave the peña",
  pn_joined: "You are a member of {name} now.",
  pn_board: "Notice board",
  pn_board_empty: "Nothing on the board yet.",
  pn_post_ph: "Write a notice for the members",
  pn_post: "Post",
  pn_tables: "The peña's tables",
  pn_tables_hint: "Only members sit at these tables.",
  pn_no_tables: "No table open now.",
  pn_new_table: "Open a table of the peña",
  pn_sit: "Sit",
  pn_watch: "Watch",
  pn_free: "{n} seats free",
  pn_free_one: "{n} seat free",
  pn_pending: "Requests",
  pn_accept: "Accept",
  pn_refuse: "Refuse",
  pn_invite: "Invite someone",
  pn_invite_ph: "Their account name",
  pn_invite_btn: "Invite",
  pn_invite_sent: "Invitation sent to {name}.",
  pn_promote: "Make admin",
  pn_demote: "Remove admin",
  pn_remove: "Remove",
  pn_hand_over: "Hand the peña over",
  pn_hand_over_sure: "Sure? They become the founder",
  pn_handed: "{name} is the peña's founder now.",
  pn_dissolve: "Dissolve the peña",
  pn_dissolve_sure: "Sure? The whole peña goes",
  pn_dissolved: "The peña {name} was dissolved.",
  pn_board_lb: "Members' leaderboard",
  pn_no_lb: "No member has rated games in this variant.",
  pn_pairs: "The peña's pairs",
  pn_no_pairs: "No pair of two members yet.",
  pn_recent: "Members' recent games",
  pn_no_recent: "The members have not finished a game yet.",
  pn_online: "online",
  pn_by: "by {name}",
  pn_games: "{n} games",
  pn_games_one: "{n} game",
  pn_pairs_link: "Pairs",
  err_not_allowed: "Your role in the peña does not allow that.",
  err_founder_stays: "The founder cannot leave their peña: hand it over to an admin or dissolve it.",
  err_not_an_admin: "A peña is handed over to an admin only: make them one first.",
  err_already_founder: "You are the founder already.",
  err_changed: "The peña changed meanwhile: look again.",
  err_too_many_penas: "You are in 20 peñas already: leave one first.",
  err_already_member: "Already a member of the peña.",
  err_already_requested: "You asked already: wait for an admin.",
  err_already_invited: "Already invited.",
  err_post_too_long: "A notice is 500 characters at most.",
  err_empty_post: "Write something.",
  err_bad_description: "The description is 280 characters at most.",
  err_no_pena: "No peña has that name.",
  err_unknown_account: "Nobody has that account.",
  pn_emblem_domino: "Domino", pn_emblem_palma: "Palm", pn_emblem_gallo: "Rooster", pn_emblem_tabaco: "Cigar",
  pn_emblem_sol: "Sun", pn_emblem_ancla: "Anchor", pn_emblem_estrella: "Star", pn_emblem_guitarra: "Guitar",
});

if (!document.getElementById("penas-css")) {
  document.head.appendChild(h("link", { id: "penas-css", rel: "stylesheet", href: new URL("../css/penas.css", import.meta.url).href }));
}

const go = (href, text, attrs = {}) => h("a", { href, onclick: (e) => (e.preventDefault(), app.go(href)), ...attrs }, text);
const penaHref = (name) => `/pena/${encodeURIComponent(name)}`;
const path = (name, what = "") => `/api/penas/${encodeURIComponent(name)}${what}`;
const me = () => {
  const g = store.get("guest");
  return g && g.account ? g : null;
};
const when = (ts) => new Date(ts * 1000).toLocaleDateString(document.documentElement.lang === "en" ? "en-GB" : "es-ES", { year: "numeric", month: "short", day: "numeric" });
const emblem = (e) => h("span", { class: `emblem emblem-${e}`, role: "img", "aria-label": t(`pn_emblem_${e}`), title: t(`pn_emblem_${e}`) }, GLYPHS[e] || "?");

function screen(main) {
  app.root.replaceChildren(header([langSelect()]), main);
}

async function act(url, body = undefined, method = "POST") {
  const g = me();
  try {
    return await api(url, { method, token: g && g.token, body });
  } catch (e) {
    toast(errorText(e));
    return null;
  }
}

/** The screen for the path opened: a peña's page or the list. */
export function openPenas() {
  const found = location.pathname.match(/^\/pena\/([^/]+)/);
  if (found) openPena(decodeURIComponent(found[1]));
  else openList();
}

// -- the list, mine, and founding one ---------------------------------------------------------

export function openList() {
  const s = { list: null, mine: null, error: null, closed: false };
  s.render = () => !s.closed && drawList(s);
  s.close = () => (s.closed = true);
  app.club = s;
  s.render();
  api("/api/penas").then((b) => (s.list = b), (e) => (s.error = errorText(e))).then(s.render);
  if (me()) api("/api/me/penas", { token: me().token }).then((m) => ((s.mine = m.penas), s.render()), () => {});
}

function foundForm() {
  const name = h("input", { id: "pena-name-input", maxlength: 20, autocomplete: "off", placeholder: t("pn_name_ph"), "aria-label": t("pn_name_ph") });
  const desc = h("textarea", { id: "pena-desc-input", maxlength: 280, rows: 2, placeholder: t("pn_desc_ph"), "aria-label": t("pn_desc_ph") });
  const open = h("input", { id: "pena-open-input", type: "checkbox", checked: true });
  const pick = h("select", { id: "pena-emblem-input", "aria-label": t("pn_emblem") },
    Object.keys(GLYPHS).map((e) => h("option", { value: e }, `${GLYPHS[e]} ${t(`pn_emblem_${e}`)}`)));
  return h("form", { class: "pena-form", id: "pena-form", onsubmit: async (e) => {
    e.preventDefault();
    const body = { name: name.value.trim(), description: desc.value, open: open.checked, emblem: pick.value };
    const r = await act("/api/penas", body);
    if (r) (toast(t("pn_founded", { name: r.pena })), app.go(penaHref(r.pena)));
  } }, h("h2", {}, t("pn_found")), name, desc,
  h("label", { class: "check" }, open, t("pn_open_label")),
  h("label", { class: "row" }, t("pn_emblem"), pick),
  h("button", { type: "submit", class: "primary" }, t("pn_found_btn")));
}

function drawList(s) {
  const rows = s.list ? s.list.penas : [];
  const mine = s.mine || [];
  screen(h("main", { class: "club penas-list", id: "penas" },
    h("h1", {}, t("pn_title")),
    h("p", { class: "hint" }, t("pn_hint")),
    mine.length ? h("section", { id: "penas-mine" }, h("h2", {}, t("pn_mine")),
      h("ul", { class: "pena-cards" }, mine.map((p) => h("li", {}, emblem(p.emblem), go(penaHref(p.name), p.name),
        h("span", { class: "role" }, p.role ? t(`pn_${p.role}`) : t(p.state === "invite" ? "pn_invited" : "pn_requested")))))) : null,
    s.error ? h("p", { class: "error", role: "alert" }, s.error)
      : !s.list ? h("p", { role: "status" }, t("loading"))
      : rows.length ? h("section", {}, h("h2", {}, t("pn_all")), h("ul", { class: "pena-cards", id: "penas-all" }, rows.map((p) => h("li", { "data-pena": p.name },
        emblem(p.emblem), go(penaHref(p.name), p.name),
        h("span", { class: "role" }, tn("pn_members_n", p.members), " · ", t(p.open ? "pn_open" : "pn_closed")),
        p.description ? h("span", { class: "desc" }, p.description) : null))))
      : h("p", { class: "notice", id: "penas-empty" }, t("pn_none")),
    me() ? foundForm() : h("p", { class: "hint", id: "penas-account" }, t("pn_account")),
    h("p", { class: "row" }, go("/pairs", t("pn_pairs_link")), " · ", go("/lobby", t("lobby")), " · ", go("/", t("back_home")))));
}

// -- a peña's page ----------------------------------------------------------------------------

// The socket that keeps a peña's page's tables live (its members only); one at a time.
let live = null;

/** A member's page follows its peña's tables as the lobby does (`pena_lobby`, `pena_tables`
 * over a lobby socket with his token): a table opened, filled or ended shows without a reload. */
async function follow(p, s) {
  const { ClubSocket, applyPenas } = await import("./lobby.js");
  if (app.club !== s || !me()) return;
  const penas = new Map();
  live = s.sock = new ClubSocket({ type: "lobby", token: me().token }, (f) => {
    if (app.club !== s || !applyPenas(penas, f)) return;
    p.tables = penas.get(p.name) || [];
    const el = document.getElementById("pena-tables");
    if (el) el.replaceWith(tables(p));
  });
}

export async function openPena(name) {
  if (live) live.close();
  live = null;
  const main = h("main", { class: "pena-page", id: "pena" }, h("p", { role: "status" }, t("loading")));
  const s = { render: () => openPena(name), close: () => s.sock && s.sock.close(), preset: "havana", sock: null };
  app.club = s;
  screen(main);
  let p;
  try {
    const g = me();
    p = await api(path(name), { token: g && g.token });
  } catch (e) {
    main.replaceChildren(h("p", { class: "error", id: "pena-error" }, e.status === 404 ? t("pn_no_pena") : errorText(e)),
      h("p", {}, go("/penas", t("pn_title"))));
    return;
  }
  if (app.club !== s) return;
  const again = () => openPena(p.name);
  const role = ["founder", "admin", "member"].includes(p.me) ? p.me : null;
  const admin = role === "founder" || role === "admin";
  main.replaceChildren(...[
    h("div", { class: "pena-head" }, emblem(p.emblem),
      h("div", {}, h("h1", { id: "pena-name" }, p.name),
        h("p", { class: "meta" }, t(p.open ? "pn_open" : "pn_closed"), " · ", tn("pn_members_n", p.members.length), " · ", t("pn_by", { name: p.founder || "—" }), " · ", when(p.created)))),
    p.description ? h("p", { class: "desc", id: "pena-desc" }, p.description) : null,
    actions(p, role, again),
    role ? tables(p, again) : null,
    board(p, admin, again),
    h("section", { id: "pena-members" }, h("h2", {}, t("pn_members")),
      h("ul", { class: "pena-members" }, p.members.map((m) => memberRow(p, m, role, again)))),
    admin ? adminBlock(p, again) : null,
    leaderboard(p, s),
    h("section", { id: "pena-pairs" }, h("h2", {}, t("pn_pairs")),
      p.pairs.length ? h("ul", { class: "pena-list" }, p.pairs.map((x) => h("li", {}, go(`/pair/${encodeURIComponent(x.name)}`, x.name), h("span", { class: "who" }, x.partners.join(" · ")))))
        : h("p", { class: "empty" }, t("pn_no_pairs"))),
    h("section", { id: "pena-recent" }, h("h2", {}, t("pn_recent")),
      p.recent.length ? h("ul", { class: "pena-list" }, p.recent.map((g) => h("li", {}, go(g.page, `${when(g.finished)} · ${g.preset ? t(`short_${g.preset}`) : "—"}`), h("span", { class: "who" }, g.members.join(", ")))))
        : h("p", { class: "empty" }, t("pn_no_recent"))),
    h("p", { class: "row" }, go("/penas", t("pn_title")), " · ", go("/", t("back_home")))].filter(Boolean));
  if (role) follow(p, s);
}

function actions(p, role, again) {
  if (!me()) return h("p", { class: "hint", id: "pena-account" }, t("pn_account"));
  const leave = (label) => h("button", { type: "button", id: "pena-leave", onclick: async () => (await act(path(p.name, "/leave"))) && again() }, t(label));
  if (role === "founder") {
    const dissolve = sure("pena-dissolve", "pn_dissolve", "pn_dissolve_sure", async () => {
      if (await act(path(p.name), undefined, "DELETE")) (toast(t("pn_dissolved", { name: p.name })), app.go("/penas"));
    });
    return h("p", { class: "row pena-actions" }, dissolve);
  }
  if (role) return h("p", { class: "row pena-actions" }, leave("pn_leave"));
  if (p.me === "request") return h("p", { class: "row pena-actions" }, h("span", {}, t("pn_requested")), leave("pn_withdraw"));
  const join = async () => {
    const r = await act(path(p.name, "/join"));
    if (r) (toast(r.state === "joined" ? t("pn_joined", { name: p.name }) : t("pn_requested")), again());
  };
  return h("p", { class: "row pena-actions" }, p.me === "invite" ? h("span", {}, t("pn_invited")) : null,
    h("button", { type: "button", class: "primary", id: "pena-join", onclick: join }, t(p.open || p.me === "invite" ? "pn_join" : "pn_ask")));
}

function tables(p) {
  const open = async () => {
    const r = await act("/api/tables", { practice: false, seat: 0, pena: p.name });
    if (r) app.go(`/t/${encodeURIComponent(r.table)}`);
  };
  const rows = p.tables || [];
  return h("section", { id: "pena-tables" }, h("h2", {}, t("pn_tables")),
    h("p", { class: "hint" }, t("pn_tables_hint")),
    rows.length ? h("ul", { class: "pena-list" }, rows.map((x) => h("li", { "data-table": x.table },
      h("span", { class: "who" }, x.seats.filter((seat) => seat.nickname).map((seat) => seat.nickname).join(", ")),
      " ", h("span", { class: "role" }, tn("pn_free", x.free)), " ",
      go(`/t/${encodeURIComponent(x.table)}${x.free ? "" : "?watch=1"}`, t(x.free ? "pn_sit" : "pn_watch"), { class: "btn" }))))
      : h("p", { class: "empty" }, t("pn_no_tables")),
    h("button", { type: "button", class: "primary", id: "pena-new-table", onclick: open }, t("pn_new_table")));
}

function board(p, admin, again) {
  const text = h("textarea", { id: "pena-post-input", maxlength: 500, rows: 2, placeholder: t("pn_post_ph"), "aria-label": t("pn_post_ph") });
  const form = admin ? h("form", { class: "pena-form", id: "pena-post", onsubmit: async (e) => {
    e.preventDefault();
    if (await act(path(p.name, "/board"), { text: text.value })) again();
  } }, text, h("button", { type: "submit", class: "primary" }, t("pn_post"))) : null;
  // Posts are plain text: put in as text nodes (h), never as markup.
  return h("section", { id: "pena-board" }, h("h2", {}, t("pn_board")), form,
    p.board.length ? h("ul", { class: "pena-board" }, p.board.map((x) => h("li", {},
      h("p", { class: "post" }, x.text), h("span", { class: "meta" }, `${x.author || "—"} · ${when(x.created)}`))))
      : h("p", { class: "empty" }, t("pn_board_empty")));
}

/** A button that asks once more before what cannot be undone: the first press says "sure?",
 * the second does it. */
function sure(id, label, sureLabel, run) {
  const b = h("button", { type: "button", id, class: "danger", onclick: async () => {
    if (!b.dataset.sure) {
      b.dataset.sure = "1";
      b.textContent = t(sureLabel);
      return;
    }
    await run();
  } }, t(label));
  return b;
}

function memberRow(p, m, role, again) {
  const act2 = (what, label) => h("button", { type: "button", onclick: async () => (await act(path(p.name, `/${what}/${encodeURIComponent(m.name)}`))) && again() }, t(label));
  const self = me() && me().account === m.name;
  const buttons = [];
  if (!self && role === "founder" && m.role === "member") buttons.push(act2("promote", "pn_promote"));
  if (!self && role === "founder" && m.role === "admin") {
    buttons.push(act2("demote", "pn_demote"));
    buttons.push(sure(null, "pn_hand_over", "pn_hand_over_sure", async () => {
      if (await act(path(p.name, "/founder"), { name: m.name })) (toast(t("pn_handed", { name: m.name })), again());
    }));
  }
  if (!self && ((role === "founder" && m.role !== "founder") || (role === "admin" && m.role === "member"))) buttons.push(act2("remove", "pn_remove"));
  return h("li", { "data-member": m.name },
    h("span", { class: `dot${m.status ? " on" : ""}`, title: m.status ? t("pn_online") : "", "aria-hidden": "true" }),
    go(`/u/${encodeURIComponent(m.name)}`, m.name),
    h("span", { class: `role role-${m.role}` }, t(`pn_${m.role}`)), ...buttons);
}

function adminBlock(p, again) {
  const name = h("input", { id: "pena-invite-input", maxlength: 20, autocomplete: "off", placeholder: t("pn_invite_ph"), "aria-label": t("pn_invite_ph") });
  const pending = (p.pending || []).filter((x) => x.kind === "request");
  return h("section", { id: "pena-admin" },
    pending.length ? h("div", { id: "pena-pending" }, h("h2", {}, t("pn_pending")),
      h("ul", { class: "pena-members" }, pending.map((x) => h("li", {}, h("strong", {}, x.name),
        h("button", { type: "button", class: "primary", onclick: async () => (await act(path(p.name, `/accept/${encodeURIComponent(x.name)}`))) && again() }, t("pn_accept")),
        h("button", { type: "button", onclick: async () => (await act(path(p.name, `/remove/${encodeURIComponent(x.name)}`))) && again() }, t("pn_refuse")))))) : null,
    h("form", { class: "pena-form row", id: "pena-invite", onsubmit: async (e) => {
      e.preventDefault();
      const who = name.value.trim();
      if (who && (await act(path(p.name, "/invite"), { name: who }))) (toast(t("pn_invite_sent", { name: who })), again());
    } }, h("h2", {}, t("pn_invite")), name, h("button", { type: "submit" }, t("pn_invite_btn"))));
}

function leaderboard(p, s) {
  const rows = p.leaderboards[s.preset] || [];
  const tabs = h("nav", { class: "preset-tabs", "aria-label": t("pn_board_lb") },
    PRESETS.map((x) => h("button", { type: "button", class: "preset-tab", "aria-pressed": x === s.preset ? "true" : "false",
      onclick: () => ((s.preset = x), document.getElementById("pena-lb").replaceWith(leaderboard(p, s))) }, t(`short_${x}`))));
  return h("section", { id: "pena-lb" }, h("h2", {}, t("pn_board_lb")), tabs,
    rows.length ? h("ol", { class: "pena-list" }, rows.map((r, i) => h("li", {}, h("span", { class: "rank" }, `${i + 1}.`), go(`/u/${encodeURIComponent(r.name)}`, r.name), ` · ${ratingText(r)} · `, tn("pn_games", r.games))))
      : h("p", { class: "empty" }, t("pn_no_lb")));
}
