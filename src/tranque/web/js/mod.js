// The moderators' page (/mod): the fair-play screen's flags and the players' reports, each with
// the person's (or the partnership's) games, and the actions — mark reviewed, warn, suspend from
// rated play for a time, close the account — each with a reason, kept in the moderation log
// shown below. Loaded with import() only when opened; its words and its style come with it.
// The server answers 403 to anyone but a moderator: nothing here is ever sent to others.
import { api } from "./net.js";
import { h, app, store, toast } from "./dom.js";
import { t, STRINGS, getLang } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import { errorText } from "./model.js";
import { link, profileHref } from "./club.js";
import { REASONS, style } from "./report.js";

Object.assign(STRINGS.es, {
  md_title: "Moderación",
  md_only: "Esta página es solo para moderadores.",
  md_flags: "Señales del cribado",
  md_no_flags: "Ninguna señal por revisar.",
  md_reports: "Denuncias",
  md_no_reports: "Ninguna denuncia por revisar.",
  md_standing: "Suspendidos y cuentas cerradas",
  md_nobody: "Nadie.",
  md_log: "Registro de moderación",
  md_empty_log: "Nada todavía.",
  md_person: "Persona",
  md_partnership: "Pareja",
  md_games: "Partidas (con su análisis)",
  md_no_games: "Sin partidas terminadas.",
  md_reports_n: "{n} denuncias",
  md_reports_n_one: "1 denuncia",
  md_by: "Las hicieron: {who}",
  md_tables: "En las mesas: {list}",
  md_stats: "{games} partidas · {decisions} decisiones",
  md_reason: "Motivo (queda en el registro)",
  md_hours: "Duración",
  md_h1: "1 hora", md_h24: "1 día", md_h168: "1 semana", md_h720: "30 días",
  md_review: "Revisado", md_warn: "Avisar", md_suspend: "Suspender de las partidas puntuadas", md_close: "Cerrar la cuenta",
  md_confirm_close: "Pulsa otra vez para cerrar la cuenta de {name}: no podrá volver a entrar.",
  md_done: "Hecho: {action} — {name}.",
  md_until: "suspendido hasta el {date}",
  md_closed: "cuenta cerrada el {date}",
  md_warnings: "{n} avisos",
  md_act_review: "revisado", md_act_warn: "aviso", md_act_suspend: "suspensión", md_act_lift: "fin de la suspensión", md_act_close: "cuenta cerrada",
  "md_act_grant:moderator": "nombrado moderador", "md_act_revoke:moderator": "deja de ser moderador",
  md_line: "{when} · {who}: {action} — {target}. «{reason}»",
  md_lift: "Levantar la suspensión",
  fr_stronger_than_the_strong_bot: "juega mejor que el bot fuerte",
  fr_suddenly_stronger: "mejoró de golpe",
  fr_hindsight_edge: "acierta con lo que no ve",
  fr_partner_edge: "juega como si viera las fichas de su pareja",
  err_not_moderator: "Esta página es solo para moderadores.",
  err_bad_reason: "Di el motivo (de 3 a 500 letras).",
  err_target_is_moderator: "Es moderador: primero hay que quitarle el cargo.",
  err_account_closed: "Esa cuenta está cerrada.",
  err_own_account: "No puedes actuar sobre ti mismo.",
});
Object.assign(STRINGS.en, {
  md_title: "Moderation",
  md_only: "This page is for moderators only.",
  md_flags: "Flags of the screen",
  md_no_flags: "No flag to review.",
  md_reports: "Reports",
  md_no_reports: "No report to review.",
  md_standing: "Suspended people and closed accounts",
  md_nobody: "Nobody.",
  md_log: "Moderation log",
  md_empty_log: "Nothing yet.",
  md_person: "Person",
  md_partnership: "Partnership",
  md_games: "Games (with their analysis)",
  md_no_games: "No finished games.",
  md_reports_n: "{n} reports",
  md_reports_n_one: "1 report",
  md_by: "Sent by: {who}",
  md_tables: "At the tables: {list}",
  md_stats: "{games} games · {decisions} decisions",
  md_reason: "Reason (kept in the log)",
  md_hours: "For",
  md_h1: "1 hour", md_h24: "1 day", md_h168: "1 week", md_h720: "30 days",
  md_review: "Reviewed", md_warn: "Warn", md_suspend: "Suspend from rated play", md_close: "Close the account",
  md_confirm_close: "Press again to close {name}'s account: they will not be able to log in again.",
  md_done: "Done: {action} — {name}.",
  md_until: "suspended until {date}",
  md_closed: "account closed on {date}",
  md_warnings: "{n} warnings",
  md_act_review: "reviewed", md_act_warn: "warning", md_act_suspend: "suspension", md_act_lift: "suspension lifted", md_act_close: "account closed",
  "md_act_grant:moderator": "made a moderator", "md_act_revoke:moderator": "no longer a moderator",
  md_line: "{when} · {who}: {action} — {target}. “{reason}”",
  md_lift: "Lift the suspension",
  fr_stronger_than_the_strong_bot: "plays better than the strong bot",
  fr_suddenly_stronger: "suddenly stronger",
  fr_hindsight_edge: "gains from what they cannot see",
  fr_partner_edge: "plays as if seeing the partner's tiles",
  err_not_moderator: "This page is for moderators only.",
  err_bad_reason: "Say why (3 to 500 characters).",
  err_target_is_moderator: "A moderator: their role must be taken away first.",
  err_account_closed: "That account is closed.",
  err_own_account: "You cannot act on yourself.",
});

const HOURS = [1, 24, 168, 720];
const token = () => (store.get("guest") || {}).token;
const said = (e) => (STRINGS.es[`err_${e.code}`] ? t(`err_${e.code}`) : errorText(e));
const date = (ts) => new Date(ts * 1000).toLocaleString(getLang() === "en" ? "en-GB" : "es-ES", { dateStyle: "medium", timeStyle: "short" });
const who = (p) => (p.profile ? link(profileHref(p.profile), p.nickname) : h("span", {}, p.nickname));
const plural = (key, n) => t(n === 1 ? `${key}_one` : key, { n });
let page = null;

function games(list, id) {
  if (!list.length) return h("p", { class: "muted" }, t("md_no_games"));
  return h("details", { class: "mod-games" }, h("summary", {}, `${t("md_games")} (${list.length})`),
    h("ul", { id }, list.map((g) => h("li", {}, link(g.page, `${g.table} · ${date(g.finished)}`)))));
}

/** The actions on `people` ([{profile, nickname}]): a reason, then one button each. */
function actions(people, subject, key) {
  const reason = h("input", { type: "text", id: `reason-${key}`, maxlength: "500", autocomplete: "off" });
  const person = h("select", { id: `person-${key}`, "aria-label": t("md_person") }, people.map((p) => h("option", { value: p.profile }, p.nickname)));
  const hours = h("select", { id: `hours-${key}`, "aria-label": t("md_hours") }, HOURS.map((n) => h("option", { value: String(n) }, t(`md_h${n}`))));
  const error = h("p", { class: "error", role: "alert" });
  let closing = false;
  const act = (action) => async () => {
    const target = people.find((p) => p.profile === person.value) || people[0];
    if (action === "close" && !closing) {
      closing = true;
      error.textContent = t("md_confirm_close", { name: target.nickname });
      return;
    }
    const body = { action, person: target.profile, reason: reason.value, ...(action === "suspend" ? { hours: Number(hours.value) } : {}), ...(action === "review" && subject ? { subject } : {}) };
    try {
      await api("/api/mod/actions", { method: "POST", token: token(), body });
      toast(t("md_done", { action: t(`md_act_${action}`), name: target.nickname }));
      load();
    } catch (e) {
      error.textContent = said(e);
    }
  };
  const button = (action, cls = "") => h("button", { type: "button", class: cls, id: `${action}-${key}`, onclick: act(action) }, t(`md_${action}`));
  return h("div", { class: "mod-actions" },
    people.length > 1 ? h("label", {}, t("md_person"), " ", person) : null,
    h("label", { for: `reason-${key}` }, t("md_reason")), reason,
    h("div", { class: "mod-buttons" }, button("review", "primary"), button("warn"),
      h("span", { class: "mod-suspend" }, button("suspend"), " ", hours), button("close", "danger")),
    error);
}

function flagCard(f, i) {
  const people = f.people.map((p) => ({ profile: p, nickname: p.startsWith("~") ? p.slice(0, 9) : p }));
  const s = f.stats || {};
  const zs = ["z_strength", "z_sudden", "z_edge", "z_partner"].filter((k) => typeof s[k] === "number").map((k) => `${k} ${s[k].toFixed(1)}`);
  return h("li", { class: "card mod-card", id: `flag-${i}` },
    h("h3", {}, t(f.kind === "partnership" ? "md_partnership" : "md_person"), ": ", people.flatMap((p, j) => (j ? [" + ", who(p)] : [who(p)]))),
    h("p", { class: "mod-reasons" }, f.reasons.map((r) => t(`fr_${r}`)).join(" · ")),
    h("p", { class: "muted" }, t("md_stats", { games: s.games ?? "?", decisions: s.decisions ?? "?" }), zs.length ? ` · ${zs.join(" · ")}` : ""),
    games(f.games, `flag-games-${i}`),
    actions(people, f.subject, `f${i}`));
}

function reportCard(r, i) {
  const reasons = REASONS.filter((x) => r.reasons[x]).map((x) => `${t(`rp_${x}`)} (${r.reasons[x]})`).join(" · ");
  return h("li", { class: "card mod-card", id: `report-${i}` },
    h("h3", {}, who(r.person), " · ", plural("md_reports_n", r.count)),
    h("p", { class: "mod-reasons" }, reasons),
    h("p", { class: "muted" }, t("md_by", { who: r.reporters.map((p) => p.nickname).join(", ") })),
    r.tables.length ? h("p", { class: "muted" }, t("md_tables", { list: "" }), r.tables.flatMap((x, j) => [j ? ", " : "", link(`/g/${encodeURIComponent(x)}`, x)])) : null,
    games(r.games, `report-games-${i}`),
    actions([r.person], null, `r${i}`));
}

function standingLine(s, i) {
  const bits = [s.closed ? t("md_closed", { date: date(s.closed) }) : t("md_until", { date: date(s.suspended_until) })];
  if (s.warnings) bits.push(t("md_warnings", { n: s.warnings }));
  const lift = async () => {
    try {
      await api("/api/mod/actions", { method: "POST", token: token(), body: { action: "lift", person: s.person.profile, reason: t("md_lift") } });
      load();
    } catch (e) {
      toast(said(e));
    }
  };
  return h("li", { id: `standing-${i}` }, who(s.person), ` · ${bits.join(" · ")} `,
    s.closed ? null : h("button", { type: "button", class: "link", onclick: lift }, t("md_lift")));
}

function logLine(e) {
  const action = STRINGS.es[`md_act_${e.action}`] ? t(`md_act_${e.action}`) : e.action;
  const until = e.until ? ` (${t("md_until", { date: date(e.until) })})` : "";
  return h("li", {}, t("md_line", { when: date(e.ts), who: e.moderator.nickname, action: action + until, target: e.target.nickname, reason: e.reason }));
}

function section(id, title, items, none) {
  return h("section", { class: "mod-section", id, "aria-labelledby": `${id}-title` }, h("h2", { id: `${id}-title` }, title),
    items.length ? h("ul", { class: id === "mod-log" || id === "mod-standing" ? "mod-lines" : "mod-cards" }, items) : h("p", { class: "muted" }, none));
}

function draw() {
  const main = h("main", { class: "mod", id: "mod" }, h("h1", {}, t("md_title")));
  if (page && page.error) main.append(h("p", { class: "error", id: "mod-error" }, page.error));
  else if (page) {
    main.append(
      section("mod-flags", t("md_flags"), page.flags.map(flagCard), t("md_no_flags")),
      section("mod-reports", t("md_reports"), page.reports.map(reportCard), t("md_no_reports")),
      section("mod-standing", t("md_standing"), page.standing.map(standingLine), t("md_nobody")),
      section("mod-log", t("md_log"), page.log.map(logLine), t("md_empty_log")));
  } else main.append(h("p", {}, t("loading")));
  app.root.replaceChildren(header([langSelect()]), main);
}

async function load() {
  try {
    if (!token()) throw Object.assign(new Error("403"), { code: "not_moderator" });
    page = await api("/api/mod", { token: token() });
  } catch (e) {
    page = { error: e.code === "not_moderator" || e.status === 401 ? t("md_only") : said(e) };
  }
  if (app.game === draw) draw();
}

export function openMod() {
  style();
  page = null;
  app.game = draw;
  draw();
  load();
}
