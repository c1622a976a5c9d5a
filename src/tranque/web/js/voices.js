// The table's sounds themselves, made by the Web Audio API as they play (no sound file is
// fetched). Loaded by sound.js at the page's first gesture with sound on, not with the page:
// before a gesture the browser lets no sound start anyway.

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

export const SOUNDS = {
  tile: knock,
  turn: (c) => {
    tone(c, { f: 660, dur: 0.15 });
    tone(c, { f: 990, at: 0.13, dur: 0.22, vol: 0.12 });
  },
  pass: (c) => tone(c, { f: 300, to: 200, dur: 0.2, type: "triangle", vol: 0.12 }),
  end: (c) => [523, 659, 784, 1047].forEach((f, i) => tone(c, { f, at: i * 0.09, dur: 0.3, type: "triangle", vol: 0.1 })),
};
