// The name a guest goes by at the tables (naming.js: loaded the first time it is asked, never with
// the page). A guest who never chose one is asked the first time he sits anywhere (the lobby, an
// invite link, the queue, a table he creates for people), with what he typed on the landing
// filled in; the seated one may change it before the first hand. The server checks it as any
// nickname (docs/club.md): its form (never cut to fit: too long is said, not trimmed), and no
// bot's or the house's name in any guise; a refusal is written under the field, which is marked.
import { api } from "./net.js";
import { h, app, store } from "./dom.js";
import { t, STRINGS } from "./i18n.js";
import { errorText } from "./model.js";

const MAX = 24; // server/identity.py's NICK

Object.assign(STRINGS.es, {
  name_title: "¿Cómo te llamamos?",
  name_hint: "Así te verán los demás en la mesa. Puedes cambiarlo antes de la primera mano.",
  name_label: "Tu apodo",
  name_ok: "Sentarme con este nombre",
  name_save: "Guardar",
  name_cancel: "Cancelar",
  name_too_long: "Como mucho {max} caracteres: llevas {n}.",
  name_empty: "Escribe un apodo.",
});

Object.assign(STRINGS.en, {
  name_title: "What shall we call you?",
  name_hint: "This is how the others see you at the table. You can change it before the first hand.",
  name_label: "Your nickname",
  name_ok: "Sit with this name",
  name_save: "Save",
  name_cancel: "Cancel",
  name_too_long: "At most {max} characters: you have {n}.",
  name_empty: "Type a nickname.",
});

/** What is wrong with the name before asking the server (its length and emptiness), or "". */
function problem(name) {
  const n = [...name.trim()].length;
  if (!n) return t("name_empty");
  return n > MAX ? t("name_too_long", { max: MAX, n }) : "";
}

/**
 * Ask for a name in a dialog over the page; resolves the guest as the server now knows him (his
 * new token kept), or null if he cancelled. `prefill`: what to offer; `change`: a seated
 * person's new name (the button says "Save" rather than "Sit").
 */
export function askName({ prefill = "", change = false } = {}) {
  return new Promise((resolve) => {
    const back = document.activeElement;
    const input = h("input", { id: "name-input", name: "nickname", autocomplete: "nickname", value: prefill, "aria-describedby": "name-hint name-error" });
    const error = h("p", { class: "error name-error", id: "name-error", role: "alert" });
    const ok = h("button", { class: "primary big", id: "name-ok", type: "submit" }, t(change ? "name_save" : "name_ok"));
    const mark = (text) => {
      error.textContent = text;
      error.hidden = !text;
      if (text) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    };
    const close = (value) => {
      box.remove();
      app.root.inert = false;
      if (back && back.isConnected) back.focus();
      resolve(value);
    };
    input.addEventListener("input", () => mark(problem(input.value) === t("name_empty") ? "" : problem(input.value)));
    const submit = async (e) => {
      e.preventDefault();
      const wrong = problem(input.value);
      if (wrong) return (mark(wrong), input.focus());
      ok.disabled = true;
      try {
        const me = store.get("guest");
        const body = { nickname: input.value.trim() };
        const g = me
          ? { ...me, ...(await api("/api/guests/nickname", { method: "POST", body, token: me.token })) }
          : await api("/api/guests", { method: "POST", body });
        g.named = true;
        store.set("guest", g);
        store.set("typed", g.nickname);
        close(g);
      } catch (err) {
        ok.disabled = false;
        mark(errorText(err));
        input.focus();
      }
    };
    const box = h("div", { class: "overlay naming", role: "dialog", "aria-modal": "true", "aria-labelledby": "name-title" },
      h("form", { class: "panel", onsubmit: submit },
        h("h2", { id: "name-title" }, t("name_title")),
        h("p", { id: "name-hint" }, t("name_hint")),
        h("label", { for: "name-input" }, t("name_label")),
        input,
        error,
        h("div", { class: "row" }, ok, h("button", { type: "button", id: "name-cancel", onclick: () => close(null) }, t("name_cancel")))));
    box.addEventListener("keydown", (e) => e.key === "Escape" && (e.stopPropagation(), close(null)));
    mark(prefill ? problem(prefill) : "");
    app.root.inert = true;
    document.body.append(box);
    input.focus();
    input.select();
  });
}
