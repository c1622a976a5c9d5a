// The club in the page: the account card of the landing (claim a name, log in, log out here or
// everywhere), a name's field, and each person's rating change at the end of a game (the profile
// screen is profile.js, loaded when first opened). The routes are docs/protocol.md §5.
import { api } from "./net.js";
import { h, $, app, store, toast } from "./dom.js";
import { t } from "./i18n.js";
import { errorText } from "./model.js";



export const profileHref = (handle) => `/u/${encodeURIComponent(handle)}`;

export function link(href, text, attrs = {}) {
  return h("a", { href, onclick: (e) => (e.preventDefault(), app.go(href)), ...attrs }, text);
}

// -- a name's field ----------------------------------------------------------------------------

/** A field's refusal said next to it (aria-invalid, and a message it names as its description)
 *  until it changes; `text` null clears it. What the server refuses about a name goes here, not
 *  to a toast that passes. */
export function fieldError(input, text) {
  const id = `${input.id}-error`;
  let note = document.getElementById(id);
  if (!text) {
    if (note) note.remove();
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
    return;
  }
  if (!note) input.after((note = h("p", { class: "field-error", id, role: "alert" })));
  note.textContent = text;
  input.setAttribute("aria-invalid", "true");
  input.setAttribute("aria-describedby", id);
}

/** A name longer than `max` is said to be so as it is typed (with `key`'s words, which say the
 *  limit), never cut; and a refusal goes when the field changes. True while it is too long. */
export function nameField(input, max, key) {
  const check = () => {
    const long = [...input.value.trim()].length > max;
    fieldError(input, long ? t(key) : null);
    return long;
  };
  input.addEventListener("input", check);
  input.tooLong = check;
  return input;
}

// The codes of a refused name: said at the field.
export const NAME_CODES = new Set(["bad_nickname", "reserved_name", "bad_name", "name_taken"]);

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
  const name = nameField(h("input", { id: "account-name", name: "username", autocomplete: "username" }), 20, "err_bad_name");
  const pass = h("input", { id: "account-password", name: "password", type: "password", autocomplete: "current-password", minlength: 8 });
  const busy = (b) => document.querySelectorAll("#account button").forEach((x) => (x.disabled = b));
  const act = async (claim) => {
    if (name.tooLong()) return name.focus();
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
      if (NAME_CODES.has(e.code)) {
        fieldError(name, errorText(e));
        name.focus();
      } else if (err) err.textContent = errorText(e);
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

// -- the end of a game --------------------------------------------------------------------------

/** Each person's rating change once the table is over: drawn by ratings.js (loaded when the
 *  table's first ratings came, else now), from the `rating` frame the server pushes. */
export function ratingChanges(m) {
  const box = h("div", { class: "rating-changes", id: "rating-changes", "aria-live": "polite" });
  if (app.fillChanges) app.fillChanges(m, box);
  else import("./ratings.js").then(() => app.fillChanges(m, box));
  return box;
}
