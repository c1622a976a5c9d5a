// Domino tiles as SVG, with the real pip layouts from 0 to 9, and their spoken names.

const NS = "http://www.w3.org/2000/svg";

// Pip centres on a half of 100×100, in a 3×3 grid (25, 50, 75), as on a real double-nine set.
const G = { l: 24, c: 50, r: 76, t: 24, m: 50, b: 76 };
const LAYOUTS = {
  0: [],
  1: [[G.c, G.m]],
  2: [[G.l, G.t], [G.r, G.b]],
  3: [[G.l, G.t], [G.c, G.m], [G.r, G.b]],
  4: [[G.l, G.t], [G.r, G.t], [G.l, G.b], [G.r, G.b]],
  5: [[G.l, G.t], [G.r, G.t], [G.c, G.m], [G.l, G.b], [G.r, G.b]],
  6: [[G.l, G.t], [G.l, G.m], [G.l, G.b], [G.r, G.t], [G.r, G.m], [G.r, G.b]],
  7: [[G.l, G.t], [G.l, G.m], [G.l, G.b], [G.c, G.m], [G.r, G.t], [G.r, G.m], [G.r, G.b]],
  8: [[G.l, G.t], [G.c, G.t], [G.r, G.t], [G.l, G.m], [G.r, G.m], [G.l, G.b], [G.c, G.b], [G.r, G.b]],
  9: [[G.l, G.t], [G.c, G.t], [G.r, G.t], [G.l, G.m], [G.c, G.m], [G.r, G.m], [G.l, G.b], [G.c, G.b], [G.r, G.b]],
};

export function pipLayout(n) {
  return LAYOUTS[n];
}

function el(name, attrs) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function half(g, n, dx, dy, rotate) {
  for (const [x, y] of LAYOUTS[n]) {
    // A vertical tile shows a 6 or 7 with its columns across, as the tile is held.
    const [px, py] = rotate ? [y, x] : [x, y];
    g.appendChild(el("circle", { cx: dx + px, cy: dy + py, r: 9.5, class: `pip pip-${n}` }));
  }
}

/**
 * An SVG tile. ``a`` is the half shown first (left, or top for a vertical tile).
 * Options: vertical (bool), back (face down).
 */
export function tileSVG(a, b, { vertical = false, back = false } = {}) {
  const w = vertical ? 100 : 200;
  const h = vertical ? 200 : 100;
  const svg = el("svg", {
    viewBox: `0 0 ${w} ${h}`,
    class: `tile-svg${vertical ? " vertical" : ""}${back ? " back" : ""}`,
    "aria-hidden": "true",
    focusable: "false",
  });
  svg.appendChild(el("rect", { x: 3, y: 3, width: w - 6, height: h - 6, rx: 14, class: "face" }));
  if (back) return svg;
  if (vertical) {
    svg.appendChild(el("line", { x1: 14, y1: 100, x2: 86, y2: 100, class: "bar" }));
    half(svg, a, 0, 0, true);
    half(svg, b, 0, 100, true);
  } else {
    svg.appendChild(el("line", { x1: 100, y1: 14, x2: 100, y2: 86, class: "bar" }));
    half(svg, a, 0, 0, false);
    half(svg, b, 100, 0, false);
  }
  return svg;
}

const NUMBERS = {
  es: ["blanca", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"],
  en: ["blank", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"],
};

export function numberName(n, lang = "es") {
  return (NUMBERS[lang] || NUMBERS.es)[n];
}

/** The spoken name of a tile, high half first: "nueve-cuatro", "doble seis", "nine-four". */
export function spokenName(tile, lang = "es") {
  const [a, b] = parseTile(tile);
  const hi = Math.max(a, b);
  const lo = Math.min(a, b);
  if (hi === lo) {
    if (lang === "en") return `double ${numberName(hi, "en")}`;
    return hi === 0 ? "doble blanco" : `doble ${numberName(hi, "es")}`;
  }
  return `${numberName(hi, lang)}-${numberName(lo, lang)}`;
}

export function parseTile(t) {
  const s = String(t);
  return [Number(s[0]), Number(s[1])];
}

export function pips(t) {
  const [a, b] = parseTile(t);
  return a + b;
}

export function isDouble(t) {
  const [a, b] = parseTile(t);
  return a === b;
}

export function splitTiles(text) {
  return String(text || "")
    .split(/\s+/)
    .filter(Boolean);
}
