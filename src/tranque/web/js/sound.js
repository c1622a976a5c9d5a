// The table's sounds, made by the Web Audio API as they play (no sound file is fetched): a
// tile laid down, your turn, a pass, the end of a hand. Off when the player mutes them.
import { settings } from "./settings.js";

let ctx = null;
let voices = null; // voices.js's sounds, once loaded (at the first gesture with sound on)
const NAMES = new Set(["tile", "turn", "pass", "end"]);
// The sounds asked for while sound is on, newest last: for the curious, and for the tests.
export const played = [];

// Browsers let audio start only from a gesture: the page's first tap or key wakes it.
export function wakeOnGesture() {
  const wake = () => {
    if (!settings().sound) return;
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!ctx && AC) {
      try {
        ctx = new AC();
      } catch {
        return;
      }
    }
    if (ctx && ctx.state === "suspended") ctx.resume().catch(() => {});
    if (ctx && !voices) import("./voices.js").then((m) => (voices = m.SOUNDS), () => {});
  };
  window.addEventListener("pointerdown", wake, { passive: true });
  window.addEventListener("keydown", wake);
}

export function play(name) {
  if (!settings().sound || !NAMES.has(name)) return;
  played.push(name);
  if (played.length > 50) played.shift();
  // No gesture yet (or its sounds still on their way): silence, as the browser wants.
  if (!ctx || ctx.state !== "running" || !voices) return;
  try {
    voices[name](ctx);
  } catch {
    /* an audio device that went away: the game goes on in silence */
  }
}
