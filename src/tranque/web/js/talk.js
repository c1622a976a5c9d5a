// The club at the table: the fixed phrases (never while a hand is on: the rule book forbids any
// talk or sign between partners during play, and the server refuses them), who is watching, and
// "Revancha" once the game is over, followed to the new table the server opens for it.
import { h, app, toast } from "./dom.js";
import { t, STRINGS } from "./i18n.js";
import * as M from "./seats.js";

const PHRASES = ["buena", "gracias", "revancha", "suerte", "bien_jugado", "otra_vez"];
const HAND_ON = new Set(["redeal", "choose", "play"]);
const BUBBLE_MS = 4000; // how long a phrase stays beside its seat

// The words of the club that the first load needs (the landing's, the table's), in Spanish and
// English, added to i18n.js's tables; the lobby's and the queue's come with lobby.js.
Object.assign(STRINGS.es, {
  with_people: "Con personas",
  with_people_hint: "Te sentamos con quien espere; si nadie llega en unos segundos, un bot ocupa el asiento.",
  practice: "Práctica",
  lobby: "Mesas públicas",
  chips: "Monedas de juego",
  chips_balance: "Monedas: {n}",
  public_table: "Pública (aparece en «Mesas públicas»)",
  party_joined: "Un amigo te invita a jugar de pareja: entra en la cola y os sentamos juntos.",
  party_invited_by: "{name} te invita a jugar de pareja: entra en la cola y os sentamos juntos.",
  change_name: "Cambiar mi nombre",
  err_phrase_during_hand: "Durante la data no se habla: espera a que termine.",
  err_not_over: "La partida aún no ha terminado.",
  err_rematch_open: "La revancha ya está en otra mesa.",
  phrases: "Frases",
  phrase_buena: "¡Buena!",
  phrase_gracias: "Gracias",
  phrase_revancha: "¡Revancha!",
  phrase_suerte: "Suerte",
  phrase_bien_jugado: "Bien jugado",
  phrase_otra_vez: "¿Otra?",
  said_line: "{name}: «{phrase}»",
  spectators_none: "Nadie mira",
  spectators_1: "1 espectador",
  spectators_n: "{n} espectadores",
  watch_link: "Enlace para mirar",
  copy_watch: "Copiar",
  rematch: "Revancha",
  rematch_hint: "La misma mesa y los mismos asientos, una partida nueva.",
  rematch_yes: "Revancha",
  rematch_no: "No, gracias",
  rematch_swap: "Cambiar de asiento con mi compañero",
  rematch_answered_yes: "Has aceptado. Esperando a los demás…",
  rematch_answered_no: "Has dicho que no.",
  rematch_yes_of: "{name}: sí",
  rematch_no_of: "{name}: no",
  rematch_wait_of: "{name}: …",
  rematch_open: "La revancha empieza en una mesa nueva.",
  rematch_go: "Ir a la revancha",
  game_page: "La partida, jugada a jugada",
});

Object.assign(STRINGS.en, {
  with_people: "With people",
  with_people_hint: "We seat you with whoever is waiting; if nobody comes in a few seconds, a bot takes the seat.",
  practice: "Practice",
  lobby: "Public tables",
  chips: "Play chips",
  chips_balance: "Chips: {n}",
  public_table: "Public (listed in “Public tables”)",
  party_joined: "A friend invites you to play as partners: join the queue and you are seated together.",
  party_invited_by: "{name} invites you to play as partners: join the queue and you are seated together.",
  change_name: "Change my name",
  err_phrase_during_hand: "No talking during a hand: wait for its end.",
  err_not_over: "The game is not over yet.",
  err_rematch_open: "The rematch is at another table already.",
  phrases: "Phrases",
  phrase_buena: "Nice one!",
  phrase_gracias: "Thanks",
  phrase_revancha: "Rematch!",
  phrase_suerte: "Good luck",
  phrase_bien_jugado: "Well played",
  phrase_otra_vez: "Another?",
  said_line: "{name}: “{phrase}”",
  spectators_none: "Nobody watching",
  spectators_1: "1 spectator",
  spectators_n: "{n} spectators",
  watch_link: "Link to watch",
  copy_watch: "Copy",
  rematch: "Rematch",
  rematch_hint: "The same table and seats, a new game.",
  rematch_yes: "Rematch",
  rematch_no: "No, thanks",
  rematch_swap: "Swap seats with my partner",
  rematch_answered_yes: "You accepted. Waiting for the others…",
  rematch_answered_no: "You said no.",
  rematch_yes_of: "{name}: yes",
  rematch_no_of: "{name}: no",
  rematch_wait_of: "{name}: …",
  rematch_open: "The rematch starts at a new table.",
  rematch_go: "Go to the rematch",
  game_page: "The game, move by move",
});

/** The club's frames and the club's parts of a sync; true when the frame was one of them. */
export function clubFrame(m, f) {
  if (f.type === "sync") {
    m.spectators = f.spectators || m.spectators;
    m.rematch = f.rematch || null;
    m.ratings = f.ratings;
    m.rated = f.rating;
    return false;
  }
  // Each seat's rating and, at the end, each change (docs/protocol.md §5.7; ratings.js draws those).
  if (f.type === "ratings" || f.type === "rating") {
    m[f.type === "rating" ? "rated" : "ratings"] = f;
    return true;
  }
  if (f.type === "spectators") {
    m.spectators = { count: f.count, names: f.names };
    return true;
  }
  if (f.type === "said") {
    m.said = m.said || {};
    m.said[f.seat] = { phrase: f.phrase, until: Date.now() + BUBBLE_MS };
    M.logLine(m, t("said_line", { name: M.nameOf(m, f.seat), phrase: t(`phrase_${f.phrase}`) }));
    setTimeout(() => app.m === m && app.render(), BUBBLE_MS + 50);
    return true;
  }
  if (f.type === "rematch") {
    m.rematch = f;
    // Whoever accepted is seated at the new table already: the page follows him there.
    if (f.table && M.mySeat(m) !== null && f.answers[M.mySeat(m)] === "yes") {
      app.go(`/t/${encodeURIComponent(f.table)}`);
      return false;
    }
    return true;
  }
  return false;
}

/** A hand is on (from its deal to its last play): no phrases then. */
export const handOn = (m) => Boolean(m.info && m.info.started && HAND_ON.has(m.state.phase));

/** The phrases a seated person may say now, as buttons; nothing while a hand is on. */
export function phrasesBar(m) {
  if (m.role !== "player" || M.mySeat(m) === null || handOn(m)) return null;
  return h("div", { class: "phrases", id: "phrases", role: "group", "aria-label": t("phrases") },
    PHRASES.map((p) => h("button", { class: "phrase", "data-phrase": p, type: "button", onclick: () => app.sock.command({ type: "say", phrase: p }) }, t(`phrase_${p}`))));
}

/** A person's rating under the table's preset, beside the seat's name ("?": provisional).
 * None before his first rated game: the 1500 every newcomer starts from is no rating yet (his
 * profile says "No rating yet"), and a number beside his name would say otherwise. */
export function seatRating(m, seat) {
  const r = m.ratings && m.ratings.seats[seat];
  // Beside it, the share of his tables he finished, when he left some (docs/club.md).
  const pct = r && r.completion != null && r.completion < 1 && `${Math.round(r.completion * 100)} %`;
  return [r && r.games > 0 ? h("span", { class: "seat-rating" }, r.rating + (r.provisional ? "?" : "")) : null,
    pct ? h("span", { class: "seat-completion", title: t("seat_completion", { pct }) }, pct) : null];
}

/** The phrase a seat said a moment ago, beside its name. */
export function saidBubble(m, seat) {
  const s = m.said && m.said[seat];
  if (!s || Date.now() > s.until) return null;
  return h("div", { class: "said-bubble", "data-seat": seat }, t(`phrase_${s.phrase}`));
}

/** How many watch, and who (their nicknames), folded under the count. */
export function spectatorsLine(m) {
  const sp = m.spectators;
  if (!sp) return null;
  const n = sp.count;
  const text = n === 0 ? t("spectators_none") : n === 1 ? t("spectators_1") : t("spectators_n", { n });
  if (!sp.names.length) return h("p", { class: "spectators", id: "spectators" }, text);
  return h("details", { class: "spectators", id: "spectators" },
    h("summary", {}, text), h("ul", {}, sp.names.map((x) => h("li", {}, x))));
}

/** The watch link of the invite box: who opens it only watches. */
export function watchRow(m) {
  const url = `${location.origin}/t/${encodeURIComponent(m.table)}?watch=1`;
  return [
    h("label", { for: "watch-link" }, t("watch_link")),
    h("div", { class: "row" },
      h("input", { id: "watch-link", readonly: true, value: url, onfocus: (e) => e.target.select() }),
      h("button", {
        id: "copy-watch",
        onclick: async () => {
          try {
            await navigator.clipboard.writeText(url);
            toast(t("copied"));
          } catch {
            document.getElementById("watch-link").select();
            toast(t("copy_by_hand"));
          }
        },
      }, t("copy_watch"))),
  ];
}

// -- the rematch ------------------------------------------------------------------------------

function answer(m, accept) {
  app.sock.command({ type: "rematch", accept, swap: Boolean(accept && m.rematchSwap) });
}

/** "Revancha" at the end of a table of people: each one's answer, and the way to the new table. */
export function rematchBlock(m) {
  const mt = m.state && m.state.match;
  if (!mt || !mt.over || !m.info || !m.info.seats) return null;
  const me = M.mySeat(m);
  const rm = m.rematch;
  const answers = (rm && rm.answers) || m.info.seats.map((s) => (s.kind === "bot" ? "bot" : null));
  const mine = me === null ? undefined : answers[me];
  const partner = me === null ? null : m.info.seats[(me + 2) % 4];
  const kids = [h("h3", { id: "rematch-title" }, t("rematch")), h("p", { class: "hint" }, t("rematch_hint"))];
  if (rm && rm.table && mine === "no") {
    // Who said no is not offered the way to the table he declined.
    kids.push(h("p", { role: "status", id: "rematch-without-me" }, t("rematch_without_you")));
  } else if (rm && rm.table) {
    kids.push(h("p", { role: "status" }, t("rematch_open")),
      h("a", { id: "rematch-go", class: "btn primary", href: `/t/${encodeURIComponent(rm.table)}`, onclick: (e) => (e.preventDefault(), app.go(`/t/${encodeURIComponent(rm.table)}`)) }, t("rematch_go")));
  } else if (me !== null && m.role === "player" && mine === null) {
    kids.push(
      partner && partner.kind === "person"
        ? h("label", { class: "radio" },
            h("input", { type: "checkbox", id: "rematch-swap", checked: m.rematchSwap, onchange: (e) => (m.rematchSwap = e.target.checked) }),
            t("rematch_swap"))
        : null,
      h("div", { class: "row" },
        h("button", { id: "rematch-yes", class: "primary big", onclick: () => answer(m, true) }, t("rematch_yes")),
        h("button", { id: "rematch-no", onclick: () => answer(m, false) }, t("rematch_no"))));
  } else if (mine) {
    kids.push(h("p", { role: "status", id: "rematch-mine" }, t(mine === "yes" ? "rematch_answered_yes" : "rematch_answered_no")));
  }
  kids.push(h("ul", { class: "rematch-answers", id: "rematch-answers" }, answers.map((a, s) => {
    const name = M.nameOf(m, s);
    const key = a === "yes" || a === "bot" ? "rematch_yes_of" : a === "no" ? "rematch_no_of" : "rematch_wait_of";
    return h("li", { "data-seat": s, "data-answer": a || "" }, t(key, { name }));
  })));
  return h("div", { class: "rematch", id: "rematch", role: "group", "aria-labelledby": "rematch-title" }, kids);
}
