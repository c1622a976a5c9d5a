// Tournaments (a Swiss of fixed pairs, or an arena: arena.js draws its page): the list with a form to create one (/tournaments), and a
// tournament's page (/tournament/{id}: its rules, entrants, registration, live standings, the
// round's tables with a link to every game, the time left to come to one's table, and "your
// table is ready" with the seat's link, the tab's title and the turn's sound). Loaded with
// import() only when such a path is opened (missing.js hands them here), with its words and
// tournaments.css. The routes are docs/protocol.md §12. The page reads the tournament again
// when the bell's socket says a round moved (friends.js passes on the "tournament" frames),
// and every few seconds while a round is on.
import { api } from "./net.js";
import { h, app, store, toast } from "./dom.js";
import { t, tn, STRINGS, getLang } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import { errorText } from "./model.js";
import { play } from "./sound.js";
import { drawArena } from "./arena.js";

const PRESETS = ["havana", "miami", "oriente", "barrio"];
const CAPS = [20, 30, 40, 60]; // a game's time cap in minutes (the server's CAP_MINUTES)
const EVERY = 4000; // ms between two reads while a round is on

Object.assign(STRINGS.es, {
  tn_title: "Torneos",
  tn_upcoming: "Próximos",
  tn_running: "En juego",
  tn_finished: "Terminados",
  tn_none: "Ninguno.",
  tn_create: "Crear un torneo",
  tn_name_ph: "Nombre del torneo",
  tn_rules: "Modalidad",
  tn_rounds: "Rondas",
  tn_no_show: "Segundos para llegar a la mesa",
  tn_public: "Público (en la lista); si no, solo por el enlace",
  tn_make: "Crear",
  tn_account: "Para crear torneos o inscribirse hace falta una cuenta.",
  tn_kind: "Suizo por parejas",
  tn_arena: "Arena",
  tn_kind_pick: "Tipo",
  tn_minutes: "Minutos (30 a 180)",
  tn_people: "{n} jugadores",
  tn_state_registering: "Inscripción abierta",
  tn_state_running: "En juego",
  tn_state_finished: "Terminado",
  tn_facts: "{rules} · a {target} tantos · {n} rondas · {no_show} s para llegar",
  tn_facts_one: "{rules} · a {target} tantos · {n} ronda · {no_show} s para llegar",
  tn_by: "Creado por {name}",
  tn_pairs: "{n} parejas",
  tn_entrants: "Parejas inscritas",
  tn_no_entrants: "Aún no se ha inscrito ninguna pareja.",
  tn_withdrawn: "retirada",
  tn_register: "Inscribir mi pareja",
  tn_pick: "Tu pareja",
  tn_no_pairs: "Para inscribirte necesitas una pareja formada.",
  tn_make_pair: "Formar una pareja",
  tn_withdraw: "Retirarse",
  tn_start: "Empezar el torneo",
  tn_entered: "Tu pareja está inscrita.",
  tn_standings: "Clasificación",
  tn_rank: "#",
  tn_pair: "Pareja",
  tn_wins: "Ganadas",
  tn_diff: "Diferencia",
  tn_for: "A favor",
  tn_buchholz: "Buchholz",
  tn_round: "Ronda {n} de {of}",
  tn_tables: "Mesas de la ronda",
  tn_bye: "Descansa (cuenta como ganada): {pair}",
  tn_watch: "Ver la partida",
  tn_done: "terminada",
  tn_forfeit: "no presentada",
  tn_left: "Quedan {s} s para llegar a la mesa; quien no llegue pierde por no presentarse.",
  tn_ready: "¡Tu mesa está lista!",
  tn_go: "Ir a mi mesa (asiento {seat})",
  tn_ready_title: "¡Tu mesa! · {name}",
  tn_none_found: "No hay ningún torneo con esa dirección.",
  tn_file: "El archivo del torneo",
  tn_vs: "contra",
  tn_cap_pick: "Tiempo por partida",
  tn_no_cap: "Sin límite",
  tn_cap: "{m} min",
  tn_facts_cap: " · {m} min por partida",
  tn_time_left: "Quedan {t} de la ronda: al acabarse, la mano en juego se termina y gana la pareja que va delante (empatados, se juega otra mano).",
  tn_time_up: "Se acabó el tiempo de la ronda: las mesas terminan la mano en juego.",
  tn_scheduled: "Programados",
  tn_scheduled_line: "empieza {when} · inscripción desde {opens}",
  tn_by_tranque: "Creado por tranque (torneo programado)",
  tn_auto: "programado",
  tn_starts: "Empieza {when}",
});
Object.assign(STRINGS.en, {
  tn_title: "Tournaments",
  tn_upcoming: "Upcoming",
  tn_running: "Running",
  tn_finished: "Finished",
  tn_none: "None.",
  tn_create: "Create a tournament",
  tn_name_ph: "Tournament name",
  tn_rules: "Variant",
  tn_rounds: "Rounds",
  tn_no_show: "Seconds to come to the table",
  tn_public: "Public (listed); otherwise by its link only",
  tn_make: "Create",
  tn_account: "Creating or entering tournaments needs an account.",
  tn_kind: "Swiss of pairs",
  tn_arena: "Arena",
  tn_kind_pick: "Kind",
  tn_minutes: "Minutes (30 to 180)",
  tn_people: "{n} players",
  tn_state_registering: "Registration open",
  tn_state_running: "Running",
  tn_state_finished: "Finished",
  tn_facts: "{rules} · to {target} points · {n} rounds · {no_show} s to come",
  tn_facts_one: "{rules} · to {target} points · {n} round · {no_show} s to come",
  tn_by: "Created by {name}",
  tn_pairs: "{n} pairs",
  tn_entrants: "Pairs entered",
  tn_no_entrants: "No pair has entered yet.",
  tn_withdrawn: "withdrawn",
  tn_register: "Enter my pair",
  tn_pick: "Your pair",
  tn_no_pairs: "To enter you need a formed pair.",
  tn_make_pair: "Form a pair",
  tn_withdraw: "Withdraw",
  tn_start: "Start the tournament",
  tn_entered: "Your pair is entered.",
  tn_standings: "Standings",
  tn_rank: "#",
  tn_pair: "Pair",
  tn_wins: "Wins",
  tn_diff: "Difference",
  tn_for: "For",
  tn_buchholz: "Buchholz",
  tn_round: "Round {n} of {of}",
  tn_tables: "The round's tables",
  tn_bye: "Sits out (counts as a win): {pair}",
  tn_watch: "Watch the game",
  tn_done: "finished",
  tn_forfeit: "no-show",
  tn_left: "{s} s left to come to the table; a pair that does not come loses by forfeit.",
  tn_ready: "Your table is ready!",
  tn_go: "Go to my table (seat {seat})",
  tn_ready_title: "Your table! · {name}",
  tn_none_found: "No tournament has that address.",
  tn_file: "The tournament's file",
  tn_vs: "vs",
  tn_cap_pick: "Time per game",
  tn_no_cap: "No limit",
  tn_cap: "{m} min",
  tn_facts_cap: " · {m} min per game",
  tn_time_left: "{t} left in the round: when time is up, the hand in play is finished and the pair ahead wins (level scores play one more hand).",
  tn_time_up: "The round's time is up: the tables finish the hand in play.",
  tn_scheduled: "Scheduled",
  tn_scheduled_line: "starts {when} · registration from {opens}",
  tn_by_tranque: "Created by tranque (a scheduled tournament)",
  tn_auto: "scheduled",
  tn_starts: "Starts {when}",
});

if (!document.getElementById("tournaments-css")) {
  document.head.appendChild(h("link", { id: "tournaments-css", rel: "stylesheet", href: new URL("../css/tournaments.css", import.meta.url).href }));
}

export const go = (href, text, attrs = {}) => h("a", { href, onclick: (e) => (e.preventDefault(), app.go(href)), ...attrs }, text);
export const me = () => {
  const g = store.get("guest");
  return g && g.account ? g : null;
};
export const screen = (main) => app.root.replaceChildren(header([langSelect()]), main);
const href = (id) => `/tournament/${encodeURIComponent(id)}`;

export async function act(path, body = undefined) {
  try {
    return await api(path, { method: "POST", token: me() && me().token, body });
  } catch (e) {
    toast(errorText(e));
    return null;
  }
}

/** The screen for the path opened: the list, or one tournament's page. */
export function openTournaments() {
  const found = location.pathname.match(/^\/tournament\/([^/]+)/);
  if (found) openTournament(decodeURIComponent(found[1]));
  else openList();
}

// -- the list and the form ------------------------------------------------------------------

function openList() {
  const s = { list: null, error: null, closed: false };
  s.render = () => !s.closed && drawList(s);
  s.close = () => (s.closed = true);
  app.club = s;
  s.render();
  api("/api/tournaments").then((l) => (s.list = l), (e) => (s.error = errorText(e))).then(s.render);
}

function line(x) {
  const arena = x.kind === "arena";
  return h("li", { class: "tn-line", "data-id": x.id }, go(href(x.id), x.name), " · ", t(arena ? "tn_arena" : "tn_kind"), " · ", t(`variant_${x.rules}`), " · ", t(arena ? "tn_people" : "tn_pairs", { n: x.entrants }),
    x.starts ? ` · ${when(x.starts)}` : "", x.scheduled ? h("span", { class: "sub" }, ` (${t("tn_auto")})`) : null);
}

function when(seconds) {
  // A start in the reader's own time and language (the schedule's zone is the server's business).
  return new Date(seconds * 1000).toLocaleString(getLang() === "en" ? "en-GB" : "es-ES",
    { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
}

function scheduledLine(x) {
  // A schedule's next tournament, not created yet: its name, start, and when registration opens.
  const cap = x.minutes ? t("tn_facts_cap", { m: x.minutes }) : "";
  return h("li", { class: "tn-line tn-scheduled", "data-schedule": x.schedule },
    h("strong", {}, x.name), " · ", t(`variant_${x.rules}`), cap, " · ",
    t("tn_scheduled_line", { when: when(x.starts), opens: when(x.opens) }));
}

function drawList(s) {
  const part = (key) => h("section", { class: "tn-part", id: `tn-${key}` }, h("h2", {}, t(`tn_${key}`)),
    s.list[key].length ? h("ul", {}, s.list[key].map(line)) : h("p", { class: "hint" }, t("tn_none")));
  screen(h("main", { class: "club tournaments", id: "tournaments" },
    h("h1", {}, t("tn_title")),
    s.error ? h("p", { class: "error", role: "alert" }, s.error) : s.list ? h("div", { class: "tn-parts" }, part("upcoming"), scheduledPart(s), part("running"), part("finished")) : h("p", { role: "status" }, t("loading")),
    me() ? createForm() : h("p", { class: "hint", id: "tn-account" }, t("tn_account")),
    h("p", { class: "row" }, go("/pairs", t("tn_make_pair")), " · ", go("/", t("back_home")))));
}

function scheduledPart(s) {
  const items = s.list.scheduled || [];
  if (!items.length) return null;
  return h("section", { class: "tn-part", id: "tn-scheduled" }, h("h2", {}, t("tn_scheduled")), h("ul", {}, items.map(scheduledLine)));
}

function createForm() {
  const name = h("input", { id: "tn-name", maxlength: 64, autocomplete: "off", placeholder: t("tn_name_ph"), "aria-label": t("tn_name_ph"), required: true });
  const rules = h("select", { id: "tn-rules", "aria-label": t("tn_rules") }, PRESETS.map((p) => h("option", { value: p }, t(`variant_${p}`))));
  const rounds = h("input", { id: "tn-rounds", type: "number", min: 1, max: 15, value: 3, "aria-label": t("tn_rounds") });
  const noShow = h("input", { id: "tn-no-show", type: "number", min: 1, max: 3600, value: 120, "aria-label": t("tn_no_show") });
  const pub = h("input", { id: "tn-public", type: "checkbox", checked: true });
  // A Swiss's time cap on each game; an arena's length.
  const cap = h("select", { id: "tn-cap", "aria-label": t("tn_cap_pick") }, h("option", { value: "" }, t("tn_no_cap")), CAPS.map((m) => h("option", { value: String(m) }, t("tn_cap", { m }))));
  const minutes = h("input", { id: "tn-minutes", type: "number", min: 30, max: 180, value: 60, "aria-label": t("tn_minutes") });
  const roundsRow = h("label", {}, t("tn_rounds"), " ", rounds);
  const capRow = h("label", {}, t("tn_cap_pick"), " ", cap);
  const minutesRow = h("label", { hidden: true }, t("tn_minutes"), " ", minutes);
  const kind = h("select", { id: "tn-kind", "aria-label": t("tn_kind_pick"), onchange: () => {
    roundsRow.hidden = capRow.hidden = kind.value === "arena";
    minutesRow.hidden = kind.value !== "arena";
  } }, h("option", { value: "swiss-pairs" }, t("tn_kind")), h("option", { value: "arena" }, t("tn_arena")));
  return h("form", { class: "tn-form card", id: "tn-form", onsubmit: async (e) => {
    e.preventDefault();
    const body = { name: name.value.trim(), kind: kind.value, rules: rules.value, no_show: Number(noShow.value), public: pub.checked };
    if (kind.value === "arena") body.minutes = Number(minutes.value);
    else Object.assign(body, { rounds: Number(rounds.value), minutes: cap.value ? Number(cap.value) : null });
    const made = await act("/api/tournaments", body);
    if (made) app.go(made.page);
  } },
  h("h2", {}, t("tn_create")), name,
  h("label", {}, t("tn_kind_pick"), " ", kind),
  h("label", {}, t("tn_rules"), " ", rules),
  roundsRow, capRow, minutesRow,
  h("label", {}, t("tn_no_show"), " ", noShow),
  h("label", { class: "check" }, pub, " ", t("tn_public")),
  h("button", { type: "submit", class: "primary", id: "tn-make" }, t("tn_make")));
}

// -- a tournament's page --------------------------------------------------------------------

function openTournament(id) {
  const s = { id, page: null, error: null, mine: null, closed: false, rung: null, title: document.title };
  const read = async () => {
    try {
      s.page = await api(`/api/tournaments/${encodeURIComponent(id)}`, { token: me() && me().token });
      s.readAt = Date.now(); // an arena's time left counts down from here
      s.error = null;
    } catch (e) {
      s.error = e.status === 404 ? t("tn_none_found") : errorText(e);
    }
    s.render();
  };
  const onFrame = (e) => (!e.detail || e.detail.tournament === id) && read();
  s.render = () => !s.closed && drawPage(s);
  s.close = () => {
    s.closed = true;
    clearInterval(s.timer);
    window.removeEventListener("tranque:tournament", onFrame);
    document.title = s.title;
  };
  s.timer = setInterval(() => {
    if (s.page && s.page.state !== "finished") read();
    else s.render(); // the clock of the no-show time
  }, EVERY);
  window.addEventListener("tranque:tournament", onFrame);
  app.club = s;
  s.render();
  read();
  if (me()) api("/api/me/pairs", { token: me().token }).then((m) => ((s.mine = m.pairs), s.render()), () => {});
}

function facts(p) {
  const cap = p.minutes ? t("tn_facts_cap", { m: p.minutes }) : "";
  return tn("tn_facts", p.rounds, { rules: t(`variant_${p.rules}`), target: p.target, no_show: Math.round(p.no_show) }) + cap;
}

function registration(s) {
  const p = s.page;
  const you = p.you;
  const out = [];
  if (!me()) return p.state === "registering" ? [h("p", { class: "hint", id: "tn-account" }, t("tn_account"))] : [];
  if (you && you.entrant) {
    out.push(h("p", { class: "tn-entered", id: "tn-entered" }, t("tn_entered")));
    if (p.state !== "finished") out.push(h("button", { type: "button", id: "tn-withdraw", onclick: async () => (await act(`/api/tournaments/${s.id}/withdraw`)) && s.reread() }, t("tn_withdraw")));
  } else if (p.state === "registering") {
    const pairs = s.mine || [];
    if (!pairs.length) out.push(h("p", { class: "hint", id: "tn-no-pairs" }, t("tn_no_pairs"), " ", go("/pairs", t("tn_make_pair"))));
    else {
      const pick = h("select", { id: "tn-pair", "aria-label": t("tn_pick") }, pairs.map((x) => h("option", { value: x.name }, x.name)));
      out.push(h("form", { class: "tn-register", id: "tn-register", onsubmit: async (e) => {
        e.preventDefault();
        if (await act(`/api/tournaments/${s.id}/register`, { pair: pick.value })) s.reread();
      } }, h("label", {}, t("tn_pick"), " ", pick), h("button", { type: "submit", class: "primary" }, t("tn_register"))));
    }
  }
  if (you && you.creator && p.state === "registering") {
    out.push(h("button", { type: "button", class: "primary", id: "tn-start", onclick: async () => (await act(`/api/tournaments/${s.id}/start`)) && s.reread() }, t("tn_start")));
  }
  return out;
}

export function ready(s) {
  // "Your table is ready": the link to the seat, the tab's title, and the turn's sound once.
  const mine = s.page.you && s.page.you.table;
  if (!mine || mine.done) {
    document.title = s.title;
    return null;
  }
  if (s.rung !== mine.table) {
    s.rung = mine.table;
    play("turn");
  }
  document.title = t("tn_ready_title", { name: s.page.name });
  return h("section", { class: "tn-ready", id: "tn-ready", role: "alert" },
    h("strong", {}, t("tn_ready")), " ",
    go(mine.link, t("tn_go", { seat: mine.seat + 1 }), { class: "btn primary", id: "tn-go" }));
}

function standingsTable(p, names) {
  return h("table", { class: "leaderboard tn-standings", id: "tn-standings" },
    h("thead", {}, h("tr", {}, ...["tn_rank", "tn_pair", "tn_wins", "tn_diff", "tn_for", "tn_buchholz"].map((k, i) => h("th", { scope: "col", class: i > 3 ? "num wide" : i > 1 ? "num" : null }, t(k))))),
    h("tbody", {}, p.standings.map((x) => h("tr", { "data-id": x.id },
      h("td", { class: "rank" }, String(x.rank)),
      h("td", { class: "name" }, names[x.id] || x.id, names.withdrawn.has(x.id) ? h("span", { class: "sub" }, ` (${t("tn_withdrawn")})`) : null),
      h("td", { class: "num" }, String(x.wins)),
      h("td", { class: "num" }, String(x.difference)),
      h("td", { class: "num wide" }, String(x.points_for)),
      h("td", { class: "num wide" }, String(x.buchholz))))));
}

function roundBlock(p, names) {
  const r = p.round;
  if (!r) return null;
  const left = Math.max(0, Math.round(r.no_show_until - Date.now() / 1000));
  return h("section", { class: "tn-round", id: "tn-round" },
    h("h2", {}, t("tn_round", { n: r.number, of: p.rounds })),
    left > 0 ? h("p", { class: "tn-left", id: "tn-left" }, t("tn_left", { s: left })) : null,
    timeLeft(r),
    h("ul", { class: "tn-tables" }, r.tables.map((tb) => h("li", { "data-table": tb.table || "" },
      h("span", { class: "tn-match" }, names[tb.a], ` ${t("tn_vs")} `, names[tb.b]),
      tb.done ? h("span", { class: "tn-result" }, ` · ${tb.forfeit ? t("tn_forfeit") : t("tn_done")} ${tb.points ? tb.points.join("–") : ""}`) : null,
      tb.link ? h("span", {}, " · ", go(tb.link, t("tn_watch"))) : null))),
    r.byes.length ? h("p", { class: "tn-bye" }, t("tn_bye", { pair: r.byes.map((b) => names[b]).join(", ") })) : null);
}

function clock(seconds) {
  const m = Math.floor(seconds / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return `${m}:${s}`;
}

function timeLeft(r) {
  // The round's time cap: a countdown (redrawn with the page every few seconds), then "up".
  if (r.time_up == null) return null;
  const left = Math.max(0, Math.round(r.time_up - Date.now() / 1000));
  return h("p", { class: "tn-time", id: "tn-time", "data-left": String(left) },
    left > 0 ? t("tn_time_left", { t: clock(left) }) : t("tn_time_up"));
}

function drawPage(s) {
  s.reread = () => openTournament(s.id);
  if (s.error) {
    screen(h("main", { class: "club tournament", id: "tournament" }, h("p", { class: "error", id: "tn-error" }, s.error), h("p", {}, go("/tournaments", t("tn_title")))));
    return;
  }
  const p = s.page;
  if (!p) {
    screen(h("main", { class: "club tournament", id: "tournament" }, h("p", { role: "status" }, t("loading"))));
    return;
  }
  if (p.kind === "arena") {
    drawArena(s);
    return;
  }
  const names = { withdrawn: new Set(p.entrants.filter((e) => e.withdrawn).map((e) => e.id)) };
  for (const e of p.entrants) names[e.id] = e.pair || e.id;
  screen(h("main", { class: "club tournament", id: "tournament", "data-state": p.state },
    h("h1", { id: "tn-name-title" }, p.name),
    h("p", { class: "tn-state", id: "tn-state" }, t("tn_kind"), " · ", t(`tn_state_${p.state}`)),
    h("p", { class: "tn-facts" }, facts(p)),
    p.starts && p.state === "registering" ? h("p", { class: "tn-starts", id: "tn-starts" }, t("tn_starts", { when: when(p.starts) })) : null,
    p.creator ? h("p", { class: "hint" }, t("tn_by", { name: p.creator })) : p.schedule ? h("p", { class: "hint", id: "tn-by-tranque" }, t("tn_by_tranque")) : null,
    ready(s),
    ...registration(s),
    roundBlock(p, names),
    p.standings.length && p.state !== "registering" ? h("section", { class: "tn-scroll" }, h("h2", {}, t("tn_standings")), standingsTable(p, names)) : null,
    h("section", { class: "tn-entrants", id: "tn-entrants" }, h("h2", {}, t("tn_entrants")),
      p.entrants.length ? h("ul", {}, p.entrants.map((e) => h("li", { "data-id": e.id, class: e.withdrawn ? "withdrawn" : null },
        h("strong", {}, e.pair || e.id), " · ", e.players.filter(Boolean).join(" & "), ` · ${e.rating}`, e.withdrawn ? ` · ${t("tn_withdrawn")}` : "")))
        : h("p", { class: "hint", id: "tn-no-entrants" }, t("tn_no_entrants"))),
    h("p", { class: "row" }, go("/tournaments", t("tn_title")), " · ", h("a", { href: `/api/tournaments/${encodeURIComponent(p.id)}/file` }, t("tn_file")), " · ", go("/", t("back_home")))));
}
