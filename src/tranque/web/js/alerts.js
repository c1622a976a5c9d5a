// Your turn while the page is in a background tab: the title and the icon of the tab change and,
// if the player asked for it and the browser allows it, a notification says so.
import { t } from "./i18n.js";
import { settings } from "./settings.js";

const alert = { title: "tranque", myTurn: false, on: false, note: null };

function update() {
  const on = alert.myTurn && document.hidden;
  if (on !== alert.on) {
    alert.on = on;
    const icon = document.querySelector("link[rel=icon]");
    if (icon) icon.setAttribute("href", on ? "/favicon-turn.svg" : "/favicon.svg");
    if (on && settings().notify && typeof Notification !== "undefined" && Notification.permission === "granted") {
      try {
        alert.note = new Notification(t("alert_title"), { body: t("alert_body"), tag: "tranque-turn", icon: "/favicon-turn.svg" });
      } catch {
        alert.note = null; // a browser that allows notifications only from a service worker
      }
    }
    if (!on && alert.note) {
      alert.note.close();
      alert.note = null;
    }
  }
  document.title = on ? `● ${t("alert_title")} · ${alert.title}` : alert.title;
}

/** The page's own title, and whether a decision of this player is due now. */
export function showTurn(title, myTurn) {
  alert.title = title;
  alert.myTurn = myTurn;
  update();
}

export function watchVisibility() {
  document.addEventListener("visibilitychange", update);
}
