// The club in the page: the account card of the landing (claim a name, log in, log out here or
// everywhere), the profile screen (/u/{handle}) with each rating's history drawn as a small SVG
// chart, and each person's rating change at the end of a game. The routes are docs/protocol.md §5.
import { api } from "./net.js";
import { h, $, app, store, toast } from "./dom.js";
import { t, tn, getLang } from "./i18n.js";
import { header, langSelect } from "./chrome.js";
import { errorText } from "./model.js";

const NS = "http://www.w3.org/2000/svg";
const PRESETS = ["havana", "miami", "oriente", "barrio"];


const profileHref = (handle) => `/u/${encodeURIComponent(handle)}`;

function link(href, text, attrs = {}) {
  return h("a", { href, onclick: (e) => (e.preventDefault(), app.go(href)), ...attrs }, text);
}

// -- the account card -----------------------------------------------------------------------

/** Keep what a claim or a login answers (the account's token) in place of the guest's. */
function keep(answer) {
  store.set("guest", answer);
  app.render();
}

// Once per page load the saved account's session is asked about: logged out on another device
// (or its password changed there), this one becomes a guest at once.
let checked = false;

function checkSession(me) {
  if (checked) return;
  checked = true;
  api("/api/me", { token: me.token }).catch((e) => {
    if (e.status !== 401) return;
    store.set("guest", null);
    app.render();
  });
}

export function accountCard(ensureGuest) {
  const me = store.get("guest");
  if (me && me.account) {
    checkSession(me);
    const out = async (everywhere) => {
      try {
        await api(everywhere ? "/api/sessions" : "/api/sessions/current", { method: "DELETE", token: me.token });
      } catch (e) {
        if (e.status !== 401) return toast(errorText(e));
      }
      store.set("guest", null); // a new guest next time
      toast(t("logged_out"));
      app.render();
    };
    return h("section", { class: "card account", id: "account" },
      h("h2", {}, t("account")),
      h("p", { id: "signed-in" }, t("signed_in_as", { name: me.account })),
      h("div", { class: "row" },
        link(profileHref(me.account), t("my_profile"), { id: "my-profile", class: "button-link" }),
        h("button", { id: "logout", onclick: () => out(false) }, t("logout")),
        h("button", { id: "logout-all", onclick: () => out(true) }, t("logout_all"))));
  }
  const name = h("input", { id: "account-name", name: "username", autocomplete: "username", maxlength: 20 });
  const pass = h("input", { id: "account-password", name: "password", type: "password", autocomplete: "current-password", minlength: 8 });
  const busy = (b) => document.querySelectorAll("#account button").forEach((x) => (x.disabled = b));
  const act = async (claim) => {
    busy(true);
    try {
      const body = { name: name.value.trim(), password: pass.value };
      if (claim) {
        const g = await ensureGuest();
        keep(await api("/api/accounts", { method: "POST", body, token: g.token }));
      } else {
        keep(await api("/api/sessions", { method: "POST", body }));
      }
    } catch (e) {
      busy(false);
      const err = $("#account-error");
      if (err) err.textContent = errorText(e);
    }
  };
  return h("section", { class: "card account", id: "account" },
    h("h2", {}, t("account")),
    h("p", { class: "hint" }, t("account_hint")),
    h("div", { class: "form-grid" },
      h("label", { for: "account-name" }, t("account_name")), name,
      h("label", { for: "account-password" }, t("password")), pass),
    h("p", { class: "error", id: "account-error", role: "alert" }),
    h("div", { class: "row" },
      h("button", { id: "claim", class: "primary", onclick: () => act(true) }, t("claim")),
      h("button", { id: "login", onclick: () => act(false) }, t("login"))));
}

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
  const recent = p.recent.map((g) =>
    h("li", { class: `recent ${g.won ? "won" : "lost"}` },
      link(`/g/${encodeURIComponent(g.table)}`, `${when(g.finished)} · ${g.preset ? t(`variant_${g.preset}`) : t("custom_rules")}`),
      " ", h("span", {}, g.won ? t("won") : t("lost")),
      g.change === null ? h("span", { class: "unrated" }, ` · ${t("unrated")}`) : h("span", { class: "change" }, ` · ${signed(g.change)}`),
      " ", h("a", { href: g.record, class: "record" }, t("record"))));
  main.replaceChildren(
    h("h1", { id: "profile-name" }, p.nickname, p.account ? null : h("span", { class: "mark" }, t("guest_mark"))),
    h("p", { class: "since" }, t("member_since", { date: when(p.since) })),
    h("ul", { class: "stats", id: "profile-stats" },
      h("li", {}, tn("games_played", p.games.played)),
      h("li", {}, tn("games_won", p.games.won)),
      h("li", {}, tn("pollonas_given", p.pollonas.given)),
      h("li", {}, tn("pollonas_suffered", p.pollonas.suffered)),
      h("li", {}, tn("viajeras_n", p.viajeras))),
    h("h2", {}, t("ratings")),
    ratings.length ? h("ul", { class: "ratings" }, ratings) : h("p", { id: "no-ratings" }, t("no_ratings")),
    h("h2", {}, t("recent_games")),
    recent.length ? h("ul", { class: "recent-games", id: "recent-games" }, recent) : h("p", {}, t("no_games")));
  if (recent.length) import("./game.js").then((g) => main.append(g.historyBlock(handle)));
}

const signed = (n) => (n > 0 ? `+${n}` : String(n));

// -- the end of a game --------------------------------------------------------------------------

/** Each person's rating change once the table is over: drawn by ratings.js (loaded when the
 *  table's first ratings came, else now), from the `rating` frame the server pushes. */
export function ratingChanges(m) {
  const box = h("div", { class: "rating-changes", id: "rating-changes", "aria-live": "polite" });
  if (app.fillChanges) app.fillChanges(m, box);
  else import("./ratings.js").then(() => app.fillChanges(m, box));
  return box;
}
