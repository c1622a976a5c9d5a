// The table's sounds, made by the Web Audio API as they play (no sound file is fetched): a
// tile laid down, your turn, a pass, the end of a hand. Off when the player mutes them.
import { settings } from "./settings.js";

let ctx = null;
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
  };
  window.addEventListener("pointerdown", wake, { passive: true });
  window.addEventListener("keydown", wake);
}

function tone(c, { f, to = f, at = 0, dur = 0.12, type = "sine", vol = 0.15 }) {
  const t0 = c.currentTime + at;
  const osc = c.createOscillator();
  const gain = c.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(f, t0);
  if (to !== f) osc.frequency.exponentialRampToValueAtTime(to, t0 + dur);
  gain.gain.setValueAtTime(0.0001, t0);
  gain.gain.exponentialRampToValueAtTime(vol, t0 + 0.008);
  gain.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(gain).connect(c.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

// A tile on wood: a short burst of filtered noise over a falling knock.
function knock(c) {
  const n = Math.floor(c.sampleRate * 0.05);
  const buf = c.createBuffer(1, n, c.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < n; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / n) ** 4;
  const src = c.createBufferSource();
  src.buffer = buf;
  const band = c.createBiquadFilter();
  band.type = "bandpass";
  band.frequency.value = 2200;
  band.Q.value = 0.8;
  const gain = c.createGain();
  gain.gain.value = 0.5;
  src.connect(band).connect(gain).connect(c.destination);
  src.start();
  tone(c, { f: 700, to: 180, dur: 0.07, type: "triangle", vol: 0.2 });
}

const SOUNDS = {
  tile: knock,
  turn: (c) => {
    tone(c, { f: 660, dur: 0.15 });
    tone(c, { f: 990, at: 0.13, dur: 0.22, vol: 0.12 });
  },
  pass: (c) => tone(c, { f: 300, to: 200, dur: 0.2, type: "triangle", vol: 0.12 }),
  end: (c) => [523, 659, 784, 1047].forEach((f, i) => tone(c, { f, at: i * 0.09, dur: 0.3, type: "triangle", vol: 0.1 })),
};

export function play(name) {
  if (!settings().sound || !SOUNDS[name]) return;
  played.push(name);
  if (played.length > 50) played.shift();
  if (!ctx || ctx.state !== "running") return; // no gesture yet: silence, as the browser wants
  try {
    SOUNDS[name](ctx);
  } catch {
    /* an audio device that went away: the game goes on in silence */
  }
}
