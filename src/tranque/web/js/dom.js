// What every screen uses: building elements, the page's saved values, the toast, and the one
// shared state of the page (`app`), whose `go` and `render` the entry module (app.js) fills in.

export const $ = (sel, root = document) => root.querySelector(sel);

/** An element: attributes (`class`, `text`, `on*` listeners, booleans) and children. */
export function h(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    e.appendChild(typeof kid === "string" || typeof kid === "number" ? document.createTextNode(String(kid)) : kid);
  }
  return e;
}

/** localStorage under `tranque.`, as JSON; private mode (no storage) just forgets. */
export const store = {
  get(k, d = null) {
    try {
      const v = localStorage.getItem(`tranque.${k}`);
      return v === null ? d : JSON.parse(v);
    } catch {
      return d;
    }
  },
  set(k, v) {
    try {
      localStorage.setItem(`tranque.${k}`, JSON.stringify(v));
    } catch {
      /* private mode: keep going without */
    }
  },
};

export const app = {
  root: null,
  sock: null,
  m: null, // the table model (model.js), null on the landing
  dialog: null, // a dialog open over the landing: "settings" | null
  club: null, // the club screen up (the lobby, the queue: lobby.js), with its render and close
  rejoined: false,
  go: (path) => path, // navigate (app.js)
  render: () => {}, // draw the current screen again (app.js)
  rejoin: () => {}, // forget the saved guest and open the table again (app.js)
  renderStatus: () => {}, // the connection notice alone (app.js)
};

let toastTimer = null;

export function toast(text) {
  const el = $("#toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), 4000);
}

/** Seconds left until a server time, from the socket's clock (0 without one). */
export function secondsTo(when) {
  if (!app.sock || !when) return 0;
  return Math.max(0, when - app.sock.now());
}
