// The published deal recipe of docs/fairness.md, in the browser.
// SHA-256 and HMAC-SHA256 come from WebCrypto (crypto.subtle); a page served over plain HTTP from
// another host has no crypto.subtle, so a small pure-JS SHA-256 stands in there. Both are tested
// against the same vectors as the Python implementation (tests/web/test_fairness_js.py).

const enc = new TextEncoder();

export function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function unhex(text) {
  const t = String(text || "").toLowerCase();
  if (t.length % 2 || /[^0-9a-f]/.test(t)) throw new Error(`not hex: ${text}`);
  const out = new Uint8Array(t.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(t.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function utf8(text) {
  return enc.encode(text);
}

export function concat(...parts) {
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(n);
  let k = 0;
  for (const p of parts) {
    out.set(p, k);
    k += p.length;
  }
  return out;
}

export function u32(n) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, false);
  return b;
}

export function u64(n) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), false);
  return b;
}

// -- hashing: WebCrypto, or the fallback --------------------------------------------------------

let forceFallback = false;
/** Tests only: use the pure-JS SHA-256 even where WebCrypto is present. */
export function useFallback(on) {
  forceFallback = Boolean(on);
}

function subtle() {
  if (forceFallback) return null;
  return (globalThis.crypto && globalThis.crypto.subtle) || null;
}

export function hashEngine() {
  return subtle() ? "webcrypto" : "js";
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 in plain JS (synchronous). */
export function sha256js(data) {
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const len = data.length;
  const total = Math.ceil((len + 9) / 64) * 64;
  const buf = new Uint8Array(total);
  buf.set(data);
  buf[len] = 0x80;
  const dv = new DataView(buf.buffer);
  dv.setUint32(total - 8, Math.floor(len / 0x20000000), false);
  dv.setUint32(total - 4, (len * 8) >>> 0, false);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getUint32(off + 4 * i, false);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[i] + w[i]) >>> 0;
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  const out = new Uint8Array(32);
  const odv = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) odv.setUint32(4 * i, h[i], false);
  return out;
}

function hmacjs(key, msg) {
  let k = key.length > 64 ? sha256js(key) : key;
  const block = new Uint8Array(64);
  block.set(k);
  const ipad = block.map((b) => b ^ 0x36);
  const opad = block.map((b) => b ^ 0x5c);
  return sha256js(concat(opad, sha256js(concat(ipad, msg))));
}

export async function sha256(data) {
  const s = subtle();
  if (!s) return sha256js(data);
  return new Uint8Array(await s.digest("SHA-256", data));
}

/** A function msg -> HMAC-SHA256(key, msg), the key imported once. */
export async function hmacWith(key) {
  const s = subtle();
  if (!s) return async (msg) => hmacjs(key, msg);
  // An empty HMAC key is legal in the recipe's terms but WebCrypto refuses a zero-length key;
  // HMAC pads the key with zeros to the block size, so one zero byte is the same key.
  const raw = key.length ? key : new Uint8Array(1);
  const ck = await s.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return async (msg) => new Uint8Array(await s.sign("HMAC", ck, msg));
}

export async function hmac(key, msg) {
  return (await hmacWith(key))(msg);
}

// -- the recipe ---------------------------------------------------------------------------------

export async function serverCommit(serverSeed) {
  return hex(await sha256(concat(utf8("tranque-server|"), serverSeed)));
}

export async function clientCommit(clientSeed) {
  return hex(await sha256(concat(utf8("tranque-client|"), clientSeed)));
}

/** Step 3: the hand's key from the server seed, the table, the hand number and four seeds. */
export async function dealKey(serverSeed, tableId, handNumber, seeds) {
  const tid = utf8(tableId);
  const parts = [utf8("tranque-deal/1"), u32(tid.length), tid, u32(handNumber)];
  for (let s = 0; s < 4; s++) {
    const seed = seeds[s] || new Uint8Array(0);
    parts.push(u32(seed.length), seed);
  }
  return hmac(serverSeed, concat(...parts));
}

/** Step 4 and 5: the word stream of one label, and uniform integers below n. */
export class Stream {
  constructor(mac, label) {
    this.mac = mac;
    this.label = label;
    this.block = 0;
    this.words = [];
  }

  static async open(key, label) {
    return new Stream(await hmacWith(key), label);
  }

  async word() {
    if (!this.words.length) {
      const b = await this.mac(concat(this.label, u64(this.block)));
      this.block += 1;
      const dv = new DataView(b.buffer);
      for (let i = 0; i < 8; i++) this.words.push(dv.getUint32(4 * i, false));
    }
    return this.words.shift();
  }

  async below(n) {
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const w = await this.word();
      if (w < limit) return w % n;
    }
  }
}

export function label(name, attempt) {
  return attempt === undefined ? utf8(name) : concat(utf8(name), u32(attempt));
}

/** A tile as the program writes it: high half first ("94"). */
export function tileName(a, b) {
  return `${Math.max(a, b)}${Math.min(a, b)}`;
}

export function canonicalSet(maxPip) {
  const out = [];
  for (let a = 0; a <= maxPip; a++) for (let b = a; b <= maxPip; b++) out.push(tileName(a, b));
  return out;
}

/** Step 6: the set shuffled with the stream of ``lab``. */
export async function shuffle(key, maxPip, lab) {
  const order = canonicalSet(maxPip);
  const st = await Stream.open(key, lab);
  for (let i = order.length - 1; i >= 1; i--) {
    const j = await st.below(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** Steps 6–7: the order, four hands and the sleepers of one attempt. */
export async function deal(key, rules, attempt = 0) {
  const { maxPip, tilesEach } = rulesShape(rules);
  const order = await shuffle(key, maxPip, label("shuffle/", attempt));
  const hands = [0, 1, 2, 3].map((s) => order.slice(tilesEach * s, tilesEach * s + tilesEach));
  return { order, hands, sleepers: order.slice(4 * tilesEach) };
}

const pips = (t) => Number(t[0]) + Number(t[1]);

/** Step 8: the first-hand draw, attempt after attempt until the sums differ. */
export async function firstHandDraw(key, rules, maxAttempts = 64) {
  const { maxPip } = rulesShape(rules);
  const draws = [];
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const order = await shuffle(key, maxPip, label("draw/", attempt));
    draws.push([order[0], order[1]]);
    if (pips(order[0]) !== pips(order[1])) {
      return { draws, leadingPair: pips(order[0]) > pips(order[1]) ? 0 : 1 };
    }
  }
  throw new Error("the draw did not settle");
}

/** Miami's pares o nones: the first word of "coin/"; lowest bit 0 -> pair A. */
export async function coin(key) {
  const st = await Stream.open(key, label("coin/"));
  const word = await st.word();
  return { word, leadingPair: word & 1 };
}

const PRESET_SHAPES = {
  havana: { maxPip: 9, tilesEach: 10 },
  miami: { maxPip: 9, tilesEach: 10 },
  barrio: { maxPip: 9, tilesEach: 10 },
  oriente: { maxPip: 6, tilesEach: 7 },
};

export function rulesShape(rules) {
  if (rules && typeof rules === "object" && "maxPip" in rules) return rules;
  if (typeof rules === "string") return PRESET_SHAPES[rules] || PRESET_SHAPES.havana;
  if (rules && typeof rules === "object") {
    const base = PRESET_SHAPES[rules.preset || "havana"] || PRESET_SHAPES.havana;
    return {
      maxPip: rules.max_pip ?? base.maxPip,
      tilesEach: rules.tiles_each ?? base.tilesEach,
    };
  }
  return PRESET_SHAPES.havana;
}

export function randomSeed() {
  const b = new Uint8Array(32);
  crypto.getRandomValues(b);
  return b;
}

// -- checking a finished hand --------------------------------------------------------------------

const sortTiles = (text) =>
  String(text || "")
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => tileName(Number(t[0]), Number(t[1])))
    .sort()
    .join(" ");

function sameTiles(a, b) {
  return sortTiles(a) === sortTiles(b);
}

function doubles(tiles) {
  return tiles.filter((t) => t[0] === t[1]).length;
}

/**
 * Every check of one hand of a game record, as a list of {id, ok, args}.
 * ``seen`` is what this browser saw before and during the hand: {serverCommit, seat, seed,
 * commit, tiles (as dealt to this seat)}; any of them may be missing.
 */
export async function verifyHand(handRecord, rules, seen = {}) {
  const checks = [];
  const add = (id, ok, args = {}) => checks.push({ id, ok: Boolean(ok), args });
  const f = handRecord.fairness;
  if (!f) {
    add("no_fairness", false);
    return checks;
  }
  let serverSeed;
  try {
    serverSeed = unhex(f.server_seed);
  } catch {
    add("server_seed", false);
    return checks;
  }
  const sc = await serverCommit(serverSeed);
  add("server_commit", sc === String(f.server_commit).toLowerCase());
  if (seen.serverCommit) add("server_commit_seen", seen.serverCommit === sc);
  const seeds = [];
  for (let s = 0; s < 4; s++) {
    const status = f.seat_status[s];
    const seedHex = f.client_seeds[s] || "";
    const commit = f.client_commits[s];
    if (status === "revealed") {
      let ok = false;
      try {
        ok = commit && (await clientCommit(unhex(seedHex))) === String(commit).toLowerCase();
      } catch {
        ok = false;
      }
      add("seat_seed", ok, { seat: s });
      seeds.push(ok ? unhex(seedHex) : new Uint8Array(0));
    } else {
      add("seat_empty", seedHex === "", { seat: s, status });
      seeds.push(new Uint8Array(0));
    }
  }
  if (seen.seed !== undefined && seen.seat !== undefined && seen.seat !== null) {
    const s = seen.seat;
    add("my_seed", (f.client_seeds[s] || "") === seen.seed && f.seat_status[s] === "revealed", {
      seat: s,
    });
  }
  const key = await dealKey(serverSeed, f.table_id, f.hand_number, seeds);
  const attempts = f.attempts || 1;
  const redeals = (handRecord.setup && handRecord.setup.redeals) || [];
  for (let a = 0; a < attempts - 1; a++) {
    const d = await deal(key, rules, a);
    const r = redeals[a];
    const ok =
      r &&
      d.hands.every((h, s) => sameTiles(h.join(" "), r.hands[s])) &&
      doubles(d.hands[r.asked_by]) >= ((rules && rules.redeal_doubles) || 5);
    add("redeal", ok, { attempt: a, seat: r ? r.asked_by : null });
  }
  const d = await deal(key, rules, attempts - 1);
  for (let s = 0; s < 4; s++) {
    add("deal_seat", sameTiles(d.hands[s].join(" "), handRecord.hands[s]), { seat: s });
  }
  add("sleepers", sameTiles(d.sleepers.join(" "), handRecord.sleepers || ""));
  if (seen.tiles && seen.seat !== undefined && seen.seat !== null) {
    add("my_tiles", sameTiles(d.hands[seen.seat].join(" "), seen.tiles), { seat: seen.seat });
  }
  const setup = handRecord.setup || {};
  if (setup.draw) {
    const dr = await firstHandDraw(key, rules);
    const ok =
      dr.draws.length === setup.draw.length &&
      dr.draws.every((p, i) => sameTiles(p[0], setup.draw[i][0]) && sameTiles(p[1], setup.draw[i][1])) &&
      (setup.leading_pair === undefined || setup.leading_pair === dr.leadingPair);
    add("draw", ok);
  }
  if (setup.coin !== null && setup.coin !== undefined) {
    const c = await coin(key);
    add("coin", c.leadingPair === setup.coin);
  }
  return checks;
}
