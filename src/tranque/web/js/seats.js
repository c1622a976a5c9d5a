// Who sits where, in words, and the words of a refusal: what the table's model (model.js), its
// talk (talk.js) and the record's check (verify.js) share. Apart from model.js, which imports
// those two, so that they import this small module rather than the model: no circle.
import { t } from "./i18n.js";

// Bots carry a name of their seat, so that the four players of a table are told apart.
export const BOT_NAMES = ["Rosa", "Pancho", "Chela", "Tito"];

export function mySeat(m) {
  const s = m.state && m.state.seat;
  return s === undefined || s === null ? null : s;
}

export function nameOf(m, seat) {
  const st = m.info && m.info.seats && m.info.seats[seat];
  if (!st) return t("seat_n", { n: seat + 1 });
  if (st.kind === "bot") return BOT_NAMES[seat];
  if (st.kind === "empty") return t("empty_seat");
  const guest = /^guest-(\d+)$/.exec(st.nickname || "");
  if (guest) return t("guest_name", { n: guest[1] });
  return st.nickname || t("seat_n", { n: seat + 1 });
}

export function logLine(m, text, extra = {}) {
  m.log.push({ text, ...extra });
  if (m.log.length > 60) m.log.shift();
}

export function errorText(e) {
  const key = `err_${e.code}`;
  const s = t(key);
  return s === key ? e.message || String(e) : s;
}
