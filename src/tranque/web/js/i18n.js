// The client's languages: Spanish (the default) and English; the words are in es.js and en.js.

export const LANGS = [
  { code: "es", name: "Español" },
  { code: "en", name: "English" },
];


// Each language's strings: its dictionary (es.js, en.js), loaded when the language is first
// used, and what the modules loaded later add to it (Object.assign(STRINGS.es, ...)).
export const STRINGS = { es: {}, en: {} };
const loaded = {};

/** The dictionary of `code`, fetched once (a language switch waits for it). */
function load(code) {
  loaded[code] ||= import(`./${code}.js`).then((m) => Object.assign(STRINGS[code], m.default));
  return loaded[code];
}

function fromBrowser() {
  const langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "es"];
  for (const l of langs) {
    const code = String(l).slice(0, 2).toLowerCase();
    if (code === "es") return "es";
    if (code === "en") return "en";
  }
  return "es";
}

let current = null;

export function getLang() {
  if (current) return current;
  let saved = null;
  try {
    saved = localStorage.getItem("tranque.lang");
  } catch {
    saved = null;
  }
  current = saved && STRINGS[saved] ? saved : fromBrowser();
  return current;
}

/** Switch to `code` once its dictionary is here (async: callers await it, then draw). */
export async function setLang(code) {
  if (!STRINGS[code]) return;
  await load(code);
  current = code;
  try {
    localStorage.setItem("tranque.lang", code);
  } catch {
    /* keep it for this page only */
  }
}

/** A count's sentence in the language's plural form: `{key}_one` for one, where it has one. */
export function tn(key, n, args = {}) {
  const table = STRINGS[getLang()];
  const one = new Intl.PluralRules(getLang()).select(n) === "one" && `${key}_one` in table;
  return t(one ? `${key}_one` : key, { ...args, n });
}

export function t(key, args = {}) {
  const table = STRINGS[getLang()];
  const s = key in table ? table[key] : key in STRINGS.es ? STRINGS.es[key] : key;
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in args ? String(args[k]) : `{${k}}`));
}

// The page's language, before any module draws a word.
await load(getLang());
