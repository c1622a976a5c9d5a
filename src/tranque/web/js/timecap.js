// A capped game's clock (a tournament's Swiss, docs/tournaments.md "Time cap"): the time left
// over the table, counted down from the server's clock, then "time is up" and what that means
// (the hand in play is finished, the pair ahead wins, level scores play one more hand). The
// state's `time_up` says when (null until the game starts). Loaded with import() only for a
// table whose info has a cap (app.js), with its words: the first page does not carry it.
import { h, app, secondsTo } from "./dom.js";
import { t, STRINGS } from "./i18n.js";

Object.assign(STRINGS.es, {
  cap_left: "Tiempo de la partida: quedan {t}",
  cap_up: "Se acabó el tiempo: esta data es la última; gana la pareja que vaya delante (si van empatados, se juega otra data).",
});
Object.assign(STRINGS.en, {
  cap_left: "Game time: {t} left",
  cap_up: "Time is up: this hand is the last; the pair ahead wins (level scores play one more hand).",
});

const clock = (s) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;

/** The line for the table's state now; null before the start, after the end, or before the
 * socket has the server's clock (its seconds would be wrong). */
function line(m) {
  const up = m.state && m.state.time_up;
  if (!up || !app.sock || (m.gameWinner !== null && m.gameWinner !== undefined)) return null;
  const left = Math.ceil(secondsTo(up));
  return h("p", { class: "notice time-cap", id: "time-cap", role: "timer", "data-left": String(left) },
    left > 0 ? t("cap_left", { t: clock(left) }) : t("cap_up"));
}

export function atTable(m) {
  const before = app.onTable; // a chip table's stake line (chips.js), if it came first
  app.onTable = (mm) => {
    if (before) before(mm);
    const main = mm === m && app.m === m && document.querySelector("main.table");
    const now = main && line(m);
    if (now) main.prepend(now);
  };
  // Once a second the line alone is drawn again (the table is not), until the page leaves.
  const timer = setInterval(() => {
    if (app.m !== m) return clearInterval(timer);
    const was = document.getElementById("time-cap");
    const now = line(m);
    if (was && now) was.replaceWith(now);
    else if (now || was) app.render();
  }, 1000);
  if (app.m === m) app.render();
}
