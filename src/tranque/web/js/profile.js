// The profile screen (/u/{handle}): ratings per preset with each one's history drawn as a small
// SVG chart, the counts, who the person played with and against, and every game once (game.js's
// paged list). Loaded with import() when a profile is first opened, not with the first page.
import { api } from "./net.js";
import { h, app, store } from "./dom.js";
import { t, tn, getLang, STRINGS } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import { errorText } from "./model.js";
import { link, profileHref } from "./club.js";
import { openReport, blockButton } from "./report.js";

const NS = "http://www.w3.org/2000/svg";

Object.assign(STRINGS.es, { pairs_of: "Sus parejas", pair_with: "con {name}" });
Object.assign(STRINGS.en, { pairs_of: "Pairs", pair_with: "with {name}" });
const PRESETS = ["havana", "miami", "oriente", "barrio"];

// -- the profile --------------------------------------------------------------------------------

/** A small line chart of a rating's history: the points after each rated game, the first
 *  "before" at the left; the lowest and highest values as labels. */
export function ratingChart(history, label) {
  const W = 280, H = 90, P = 6;
  const values = history.length ? [history[0].before, ...history.map((x) => x.after)] : [];
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  if (values.length < 2) return svg;
  const lo = Math.min(...values), hi = Math.max(...values);
  const span = Math.max(hi - lo, 1);
  const x = (i) => P + (i * (W - 2 * P)) / (values.length - 1);
  const y = (v) => H - P - ((v - lo) * (H - 2 * P)) / span;
  const line = document.createElementNS(NS, "polyline");
  line.setAttribute("points", values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
  svg.appendChild(line);
  for (const [v, yy] of [[hi, P + 8], [lo, H - P]]) {
    const text = document.createElementNS(NS, "text");
    text.setAttribute("x", P);
    text.setAttribute("y", yy);
    text.textContent = String(v);
    svg.appendChild(text);
  }
  return svg;
}

function when(ts) {
  return new Date(ts * 1000).toLocaleDateString(getLang() === "en" ? "en-GB" : "es-ES", { year: "numeric", month: "short", day: "numeric" });
}

function ratingText(r) {
  return r.provisional ? t("rating_provisional", { n: r.rating }) : String(r.rating);
}

/** Someone else's profile: report him, block him. One's own, for a moderator: the moderators'
 *  page (/mod). */
function actions(p) {
  const g = store.get("guest");
  const mine = g && (p.handle === `~${g.guest}` || p.handle === g.account);
  const row = h("p", { class: "profile-actions", id: "profile-actions" });
  if (!g) return row;
  if (!mine) {
    row.append(h("button", { type: "button", class: "link", id: "report-open", onclick: () => openReport([{ profile: p.handle, nickname: p.nickname }]) }, t("rp_open")), " ", blockButton(p.handle));
  } else {
    api("/api/me", { token: g.token }).then((me) => me.moderator && row.append(link("/mod", t("mod_link"), { id: "mod-link" })), () => {});
  }
  return row;
}

export async function renderProfile(handle) {
  const main = h("main", { class: "profile", id: "profile" }, h("p", {}, t("loading")));
  app.root.replaceChildren(header([langSelect()]), main);
  let p;
  try {
    p = await api(`/api/profiles/${encodeURIComponent(handle)}`);
  } catch (e) {
    main.replaceChildren(h("p", { class: "error", id: "profile-error" }, e.status === 404 ? t("no_profile") : errorText(e)));
    return;
  }
  const ratings = PRESETS.filter((x) => p.ratings[x]).map((x) => {
    const r = p.ratings[x];
    return h("li", { class: "rating", id: `rating-${x}` },
      h("span", { class: "preset" }, t(`variant_${x}`)),
      h("strong", { class: "value" }, ratingText(r)),
      h("span", { class: "games" }, t("rated_games", { n: r.games })),
      ratingChart(r.history, t("rating_history", { preset: t(`variant_${x}`) })));
  });
  // Who the person played with and against, most games first: a name is a link to its
  // profile when it is an account's (guests and bots are no links).
  const people = (key, list, id) => h("section", { class: "companions", id },
    h("h2", {}, t(key)),
    list.length ? h("ul", {}, list.map((c) => h("li", {},
      c.profile ? link(profileHref(c.profile), c.nickname) : h("span", {}, c.nickname),
      h("span", { class: "count" }, ` · ${tn("games_together", c.games)}`)))) : h("p", {}, t("nobody_yet")));
  main.replaceChildren(
    h("h1", { id: "profile-name" }, p.nickname, p.account ? null : h("span", { class: "mark" }, t("guest_mark"))),
    h("p", { class: "since" }, t("member_since", { date: when(p.since) })),
    h("ul", { class: "stats", id: "profile-stats" },
      h("li", {}, tn("games_played", p.games.played)),
      h("li", {}, tn("games_won", p.games.won)),
      h("li", {}, tn("pollonas_given", p.pollonas.given)),
      h("li", {}, tn("pollonas_suffered", p.pollonas.suffered)),
      h("li", {}, tn("viajeras_n", p.viajeras)),
      h("li", { id: "completion" }, p.completion && p.completion.rate !== null
        ? t("completion_rate", { pct: Math.round(p.completion.rate * 100), finished: p.completion.finished, begun: p.completion.begun })
        : t("completion_none"))),
    actions(p),
    h("h2", {}, t("ratings")),
    ratings.length ? h("ul", { class: "ratings" }, ratings) : h("p", { id: "no-ratings" }, t("no_ratings")),
    // The formed pairs the person is in (docs/club.md, "Pairs"): each one's page.
    (p.pairs || []).length ? h("section", { class: "companions", id: "profile-pairs" }, h("h2", {}, t("pairs_of")),
      h("ul", {}, p.pairs.map((x) => h("li", {}, link(`/pair/${encodeURIComponent(x.name)}`, x.name), " ", t("pair_with", { name: x.partner || "—" }))))) : null,
    h("div", { class: "companions-row" }, people("partners", p.partners || [], "partners"), people("opponents", p.opponents || [], "opponents")));
  // Every game once, newest first and paged (game.js): the profile's only list of games.
  import("./game.js").then((g) => main.append(g.historyBlock(handle)));
}
