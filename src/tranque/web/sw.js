// The service worker: the files of one release kept for the next visits, and a page of its own
// when the network is gone. The server writes the release's hash in place of the mark below
// (server/pages.py), so a deploy changes this file: the browser installs the new worker, which
// drops the old release's files. The page and the API always go to the network (a table is
// live); only a navigation that cannot reach the server gets the offline page, made here (no
// file to fetch at the install: the first load stays light). That page runs nothing: its own
// policy allows its inline style and nothing else.
const RELEASE = "__RELEASE__";
const CACHE = `tranque-${RELEASE}`;
const ASSETS = `/assets/${RELEASE}/`;
const WORDS = {
  es: ["Sin conexión", "tranque necesita la red: las mesas viven en el servidor.", "Reintentar"],
  en: ["Offline", "tranque needs the network: the tables live on the server.", "Try again"],
};

function offline(req) {
  const lang = /^en\b/i.test(req.headers.get("accept-language") || "") ? "en" : "es";
  const [title, text, again] = WORDS[lang];
  const html = `<!doctype html><html lang="${lang}"><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="theme-color" content="#0d3b2a">
<title>tranque · ${title}</title><style>body{margin:0;min-height:100vh;display:grid;place-items:center;background:#0d3b2a;color:#f4f1e8;font:17px/1.5 system-ui,sans-serif}main{max-width:32rem;padding:1.5rem;text-align:center}h1{color:#f2c14e}a{display:inline-block;padding:.7em 1.2em;border-radius:10px;background:#f2c14e;color:#1a1a1a;font-weight:700;text-decoration:none}</style>
<main id="offline"><h1>${title}</h1><p>${text}</p><p><a href="${req.url}">${again}</a></p></main></html>`;
  return new Response(html, { status: 503, headers: { "content-type": "text/html; charset=utf-8" } });
}

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (e) => {
  const old = (k) => k.startsWith("tranque-") && k !== CACHE;
  e.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter(old).map((k) => caches.delete(k)))));
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== location.origin) return;
  if (url.pathname.startsWith(ASSETS)) {
    // A versioned file never changes: the kept copy, else the network's, kept.
    e.respondWith(caches.open(CACHE).then((c) => c.match(req).then((hit) => hit || fetch(req).then((r) => {
      if (r.ok) c.put(req, r.clone());
      return r;
    }))));
  } else if (req.mode === "navigate") {
    e.respondWith(fetch(req).catch(() => offline(req)));
  }
});
