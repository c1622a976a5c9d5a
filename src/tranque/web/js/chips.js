// Play chips, "monedas" in Spanish (chips.js: loaded when first needed, never with the page): the
// words, the balance and its history (/chips), and at a chip table its stake, its pot and each
// seat's payout. Chips are play money: they cannot be bought, sold or cashed, and the pages say so.
import { api } from "./net.js";
import { h, app, store, toast } from "./dom.js";
import { t, getLang, STRINGS } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import { errorText, mySeat } from "./model.js";

Object.assign(STRINGS.es, {
  // "Monedas", not "fichas": at a domino table the fichas are the tiles.
  chips_title: "Tus monedas",
  chips_escrow: "En juego ahora: {n}",
  chips_play_money: "Monedas de juego: no se compran, no se venden y no se cambian por dinero. Solo sirven para jugar aquí.",
  chips_play_short: "Monedas de juego, sin valor en dinero.",
  chips_rules: "Empiezas con {grant}. Cada día, si tienes menos de {floor} (contando las que están en juego), te las reponemos hasta {floor}.",
  chips_history: "Movimientos",
  chips_none: "Sin movimientos todavía.",
  chips_kind_grant: "Regalo de monedas",
  chips_kind_escrow: "Apuesta a la mesa",
  chips_kind_release: "Devuelta (te levantaste)",
  chips_kind_settle: "Fin de la partida",
  chips_kind_void: "Devuelta (mesa anulada)",
  chips_table: "mesa {table}",
  chips_stake: "{stake} monedas por persona",
  chips_pot: "Apuesta {stake} por persona · en juego {pot} (una pollona vale el doble)",
  chips_payout_win: "Ganaste {n} monedas.",
  chips_payout_lose: "Perdiste {n} monedas.",
  chips_after: "Ahora tienes {n} monedas.",
  chips_free: "Sin monedas (gratis)",
  chips_queue_stake: "Apuesta",
  chips_new_table: "Mesa con apuesta",
  err_too_few_chips: "No tienes monedas suficientes para esa mesa.",
  err_bad_stake: "Esa apuesta no existe: 100, 1.000 o 10.000.",
});

Object.assign(STRINGS.en, {
  chips_title: "Your chips",
  chips_escrow: "At stake now: {n}",
  chips_play_money: "Play chips: they cannot be bought, sold or cashed. They are only for playing here.",
  chips_play_short: "Play chips, worth no money.",
  chips_rules: "You start with {grant}. Every day, if you have fewer than {floor} (counting those at stake), you are topped up to {floor}.",
  chips_history: "Movements",
  chips_none: "No movements yet.",
  chips_kind_grant: "Chips granted",
  chips_kind_escrow: "Staked at the table",
  chips_kind_release: "Given back (you stood up)",
  chips_kind_settle: "End of the game",
  chips_kind_void: "Given back (table void)",
  chips_table: "table {table}",
  chips_stake: "{stake} chips a person",
  chips_pot: "Stake {stake} a person · {pot} at stake (a pollona counts double)",
  chips_payout_win: "You won {n} chips.",
  chips_payout_lose: "You lost {n} chips.",
  chips_after: "You now have {n} chips.",
  chips_free: "No chips (free)",
  chips_queue_stake: "Stake",
  chips_new_table: "A table with a stake",
  err_too_few_chips: "You do not have enough chips for that table.",
  err_bad_stake: "There is no such stake: 100, 1,000 or 10,000.",
});

export const STAKES = [100, 1000, 10000];
/** A number in the reader's language, grouped always: Spanish leaves four digits alone by
 * default ("2000" beside "20.000"). Every page that shows chips or counts uses this one. */
export const fmt = (n) => Number(n).toLocaleString(getLang(), { useGrouping: "always" });
/** What a seat escrows at a stake: a pollona costs double (table/stakes.py, `cost`). */
export const cost = (stake) => 2 * stake;

/** The bearer's balance, or null (no guest yet, or the server cannot say). */
export async function balance() {
  const g = store.get("guest");
  if (!g) return null;
  try {
    return (app.chips = await api("/api/chips", { token: g.token })); // the header's too
  } catch {
    return null;
  }
}

// -- the page /chips -----------------------------------------------------------------------------

export async function openChips() {
  const s = { render: () => draw(s), close: () => {}, data: null };
  app.club = s;
  s.render();
  try {
    // A first visit has no guest yet: one is made here (as the lobby does), whose opening grant
    // is then the first movement, so the page shows a balance instead of "Loading…" for ever.
    let g = store.get("guest");
    if (!g) store.set("guest", (g = await api("/api/guests", { method: "POST", body: {} })));
    const b = await balance(); // first: it makes the opening grant the history then lists
    const hist = await api("/api/chips/history", { token: g.token });
    s.data = { b, hist };
  } catch (e) {
    toast(errorText(e));
    s.data = { b: null, hist: { movements: [] } };
  }
  if (app.club === s) s.render();
}

function movement(m) {
  const link = m.table ? h("a", { href: m.page, onclick: (e) => (e.preventDefault(), app.go(m.page)) }, t("chips_table", { table: m.table })) : null;
  return h("li", { class: `chip-move ${m.kind}` },
    h("b", {}, `${m.amount > 0 ? "+" : ""}${fmt(m.amount)}`), " ",
    t(`chips_kind_${m.kind}`), link ? " · " : null, link,
    h("span", { class: "hint" }, ` → ${fmt(m.balance)} · ${new Date(m.ts * 1000).toLocaleString()}`));
}

function draw(s) {
  const d = s.data;
  const b = d && d.b;
  app.root.replaceChildren(header([langSelect()]), h("main", { class: "club chips", id: "chips" }, h("section", { class: "card" },
    h("h1", {}, t("chips_title")),
    h("p", { class: "notice", id: "play-money" }, t("chips_play_money")),
    b ? h("p", { class: "big-number", id: "chips-now" }, t("chips_balance", { n: fmt(b.balance) })) : h("p", { role: "status" }, t("loading")),
    b && b.in_escrow ? h("p", { id: "chips-escrow" }, t("chips_escrow", { n: fmt(b.in_escrow) })) : null,
    b ? h("p", { class: "hint" }, t("chips_rules", { grant: fmt(b.opening_grant), floor: fmt(b.daily_floor) })) : null,
    h("h2", {}, t("chips_history")),
    d && d.hist.movements.length
      ? h("ul", { class: "chip-moves", id: "chip-moves" }, d.hist.movements.map(movement))
      : h("p", {}, d ? t("chips_none") : t("loading")),
    h("p", {}, h("a", { href: "/", onclick: (e) => (e.preventDefault(), app.go("/")) }, t("back_home"))))));
}

// -- at a chip table ------------------------------------------------------------------------------

/** Show the table's stake and pot on every redraw, and once it is over each seat's payout. */
export function atTable(m) {
  const chips = m.info.chips;
  let end = null;
  let mine = null; // the balance (the table's header has no room for it: it goes with the pot)
  balance().then((b) => ((mine = b), app.m === m && app.render()));
  app.onTable = (mm) => {
    if (mm !== m || app.m !== m) return;
    const main = document.querySelector("main.table");
    if (!main) return;
    main.prepend(h("p", { class: "notice chip-pot", id: "chip-pot" },
      t("chips_pot", { stake: fmt(chips.stake), pot: fmt(chips.pot) }), " · ", t("chips_play_short"),
      mine ? h("span", { id: "chip-balance" }, ` ${t("chips_balance", { n: fmt(mine.balance) })}`) : null));
    const over = m.gameWinner !== null && m.gameWinner !== undefined;
    if (over && !end) {
      end = "loading";
      Promise.all([api(`/api/tables/${encodeURIComponent(m.table)}`), balance()]).then(([info, b]) => {
        end = { info, b };
        mine = b || mine;
        if (app.m === m) app.render();
      }, () => (end = null));
    }
    if (end && end !== "loading" && end.info.chips && end.info.chips.payout) {
      const seat = mySeat(m);
      const n = seat === null ? null : end.info.chips.payout[seat];
      const line = h("p", { class: "chip-payout", id: "chip-payout", role: "status" },
        n === null ? "" : t(n >= 0 ? "chips_payout_win" : "chips_payout_lose", { n: fmt(Math.abs(n)) }),
        end.b ? ` ${t("chips_after", { n: fmt(end.b.balance) })}` : "");
      const panel = document.querySelector("#chips-slot") || document.querySelector(".game-end") || document.querySelector(".overlay .panel") || main;
      panel.append(line);
    }
  };
  if (app.m === m) app.render();
}
