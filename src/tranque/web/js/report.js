// Reporting a person to the moderators (a reason from a short list) and blocking one, from a
// profile or a game's page. Loaded with those pages (never with the first page); its words come
// with it. What a report says is seen by moderators only; whom one blocks, by oneself only.
import { api } from "./net.js";
import { h, app, store, toast } from "./dom.js";
import { t, STRINGS } from "./i18n.js";
import { modal } from "./panels.js";
import { errorText } from "./model.js";

export const REASONS = ["partner_signals", "program", "abandons", "abuse", "other"];

Object.assign(STRINGS.es, {
  rp_open: "Denunciar",
  mod_link: "Página de moderación",
  rp_title: "Denunciar a un jugador",
  rp_who: "¿A quién?",
  rp_why: "¿Por qué?",
  rp_partner_signals: "Se pasa señas con su pareja",
  rp_program: "Juega con un programa",
  rp_abandons: "Abandona las partidas",
  rp_abuse: "Nombre o conducta ofensiva",
  rp_other: "Otra cosa",
  rp_send: "Enviar la denuncia",
  rp_cancel: "Cancelar",
  rp_sent: "Gracias: un moderador mirará sus partidas. Nadie más verá tu denuncia.",
  rp_need_guest: "Juega una partida primero: solo quien juega puede denunciar.",
  err_reported_already: "Ya denunciaste a esta persona hoy.",
  err_reports_limited: "Ya enviaste muchas denuncias hoy: vuelve mañana.",
  err_own_report: "No puedes denunciarte a ti mismo.",
  bl_block: "Bloquear",
  bl_unblock: "Desbloquear",
  bl_blocked: "Bloqueado: la búsqueda rápida no os sentará juntos y no verás sus frases.",
  bl_unblocked: "Desbloqueado.",
  err_own_block: "No puedes bloquearte a ti mismo.",
});
Object.assign(STRINGS.en, {
  rp_open: "Report",
  mod_link: "Moderators' page",
  rp_title: "Report a player",
  rp_who: "Who?",
  rp_why: "Why?",
  rp_partner_signals: "Signals to their partner",
  rp_program: "Plays with a program",
  rp_abandons: "Abandons games",
  rp_abuse: "Offensive name or behaviour",
  rp_other: "Something else",
  rp_send: "Send the report",
  rp_cancel: "Cancel",
  rp_sent: "Thank you: a moderator will look at their games. Nobody else sees your report.",
  rp_need_guest: "Play a game first: only players can report.",
  err_reported_already: "You reported this person today already.",
  err_reports_limited: "You sent many reports today: come back tomorrow.",
  err_own_report: "You cannot report yourself.",
  bl_block: "Block",
  bl_unblock: "Unblock",
  bl_blocked: "Blocked: quick match will not seat you together, and you will not see their phrases.",
  bl_unblocked: "Unblocked.",
  err_own_block: "You cannot block yourself.",
});

const token = () => (store.get("guest") || {}).token;

/** The style of the report's dialog, the profile's actions and the moderators' page. */
export function style() {
  if (document.getElementById("mod-css")) return;
  const href = new URL("../css/mod.css", import.meta.url).href;
  document.head.appendChild(h("link", { rel: "stylesheet", href, id: "mod-css" }));
}
style();
const said = (e) => (STRINGS.es[`err_${e.code}`] ? t(`err_${e.code}`) : errorText(e));

/** The report's dialog: `people` [{profile, nickname}] (one, or a game's people), `table` or null. */
export function openReport(people, table = null) {
  if (!token()) return toast(t("rp_need_guest"));
  const close = () => box.remove();
  const who = h("select", { id: "report-who", "aria-labelledby": "report-who-label" },
    people.map((p) => h("option", { value: p.profile }, p.nickname)));
  const reasons = h("fieldset", { class: "report-reasons" }, h("legend", {}, t("rp_why")),
    REASONS.map((r, i) => h("label", {}, h("input", { type: "radio", name: "report-reason", value: r, checked: i === 0 }), " ", t(`rp_${r}`))));
  const error = h("p", { class: "error", id: "report-error", role: "alert" });
  const send = async (e) => {
    e.preventDefault();
    const reason = box.querySelector("input[name=report-reason]:checked").value;
    try {
      await api("/api/reports", { method: "POST", token: token(), body: { person: who.value, reason, ...(table ? { table } : {}) } });
      close();
      toast(t("rp_sent"));
    } catch (err) {
      error.textContent = said(err);
    }
  };
  const panel = h("form", { class: "panel report", onsubmit: send },
    h("h2", { id: "report-title" }, t("rp_title")),
    people.length > 1 ? h("p", {}, h("label", { id: "report-who-label", for: "report-who" }, t("rp_who")), " ", who)
      : h("p", { id: "report-who-label" }, people[0].nickname),
    reasons, error,
    h("p", { class: "report-buttons" },
      h("button", { type: "submit", class: "primary", id: "report-send" }, t("rp_send")), " ",
      h("button", { type: "button", id: "report-cancel", onclick: close }, t("rp_cancel"))));
  if (people.length <= 1) who.value = people[0].profile;
  const box = modal(panel, "report-title", close);
  app.root.append(box);
  box.querySelector("input,select,button").focus();
}

/** A button that blocks (or unblocks) the person of `handle`, knowing whether one does now. */
export function blockButton(handle) {
  const b = h("button", { type: "button", id: "block", class: "link", hidden: true });
  let blocked = false;
  const show = () => (b.textContent = t(blocked ? "bl_unblock" : "bl_block"));
  if (!token()) return b;
  api("/api/blocks", { token: token() }).then((r) => {
    blocked = r.blocked.some((p) => p.profile === handle);
    b.hidden = false;
    show();
  }, () => {});
  b.addEventListener("click", async () => {
    try {
      if (blocked) await api(`/api/blocks/${encodeURIComponent(handle)}`, { method: "DELETE", token: token() });
      else await api("/api/blocks", { method: "POST", token: token(), body: { person: handle } });
      blocked = !blocked;
      show();
      toast(t(blocked ? "bl_blocked" : "bl_unblocked"));
    } catch (e) {
      toast(said(e));
    }
  });
  return b;
}
