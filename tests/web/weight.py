"""The page's first load as Chromium fetches it: every file, its bytes on the wire (the
compressed body and the response headers, as the browser received them) and unpacked.

A helper of the browser tests (``test_page_weight.py`` keeps the first load under its budget)
and a command that prints the figures for any running server::

    PYTHONPATH=src python tests/web/weight.py http://127.0.0.1:8000/

The installable app's files (the service worker, the manifest and its icon) are fetched by the
browser outside the page's requests: ``app_files`` sizes them the same way, and they count in
the budget.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

# The first load's budget on the wire, sounds aside (they are made in the browser, not fetched).
BUDGET = 64 * 1024  # the bar issue 29 sets ("first load under 64 KB on the wire")


def first_load(browser: Any, url: str) -> list[dict[str, Any]]:
    """What a fresh browser (empty cache) fetches to show ``url``, one row per file."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="es-ES")
    page = ctx.new_page()
    done: list[Any] = []
    page.on("requestfinished", lambda request: done.append(request))
    page.goto(url, wait_until="networkidle")
    rows = []
    for request in done:
        response = request.response()
        if response is None:
            continue
        sizes = request.sizes()
        rows.append(
            {
                "path": urlsplit(request.url).path,
                "type": request.resource_type,
                "encoding": response.headers.get("content-encoding", ""),
                "wire": sizes["responseBodySize"] + sizes["responseHeadersSize"],
                "body": sizes["responseBodySize"],
                "unpacked": len(response.body()),
            }
        )
    ctx.close()
    return rows


# What the browser fetches for the installable app besides the page's own requests (which
# Playwright's page events do not show): the service worker, the manifest the page links and the
# icon Chrome checks for installing (the manifest's 192 px one).
_MANIFEST = re.compile(r'rel="manifest" href="([^"]+)"')


def app_files(base: str) -> list[dict[str, Any]]:
    """The service worker's and the manifest's files as the browser gets them (gzip offered):
    one row each, sized as the response's status line, headers and body on the wire."""
    rows: list[dict[str, Any]] = []
    with httpx.Client(base_url=base, headers={"accept-encoding": "gzip"}) as client:
        paths = ["/sw.js"]
        found = _MANIFEST.search(client.get("/").text)
        if found:
            manifest = found.group(1)
            paths.append(manifest)
            icons = client.get(manifest).json().get("icons", [])
            icon = next((i["src"] for i in icons if i.get("sizes") == "192x192"), None)
            if icon:
                paths.append(urljoin(manifest, icon))
        for path in paths:
            with client.stream("GET", path) as r:
                raw = b"".join(r.iter_raw())
                gzipped = r.headers.get("content-encoding") == "gzip"
                head = len(f"HTTP/1.1 {r.status_code} OK\r\n") + sum(
                    len(k) + len(v) + 4 for k, v in r.headers.raw
                )
                rows.append(
                    {
                        "path": path,
                        "type": "app",
                        "encoding": r.headers.get("content-encoding", ""),
                        "wire": head + 2 + len(raw),
                        "body": len(raw),
                        "unpacked": len(gzip.decompress(raw) if gzipped else raw),
                        "status": r.status_code,
                    }
                )
    return rows


def total(rows: list[dict[str, Any]]) -> int:
    return sum(int(r["wire"]) for r in rows)


def report(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'file':<48} {'enc':<5} {'wire':>7} {'unpacked':>9}"]
    for r in sorted(rows, key=lambda r: -int(r["wire"])):
        path = r["path"].split("/", 3)[-1] if r["path"].startswith("/assets/") else r["path"]
        lines.append(f"{path:<48} {r['encoding']:<5} {r['wire']:>7} {r['unpacked']:>9}")
    unpacked = sum(int(r["unpacked"]) for r in rows)
    lines.append(f"{'first load, ' + str(len(rows)) + ' files':<54} {total(rows):>7} {unpacked:>9}")
    lines.append(f"budget {BUDGET} bytes on the wire: {'met' if total(rows) <= BUDGET else 'OVER'}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM, CHROMIUM_ARGS  # type: ignore[import-not-found]

    url = argv[1] if len(argv) > 1 else "http://127.0.0.1:8000/"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        rows = first_load(browser, url)
        browser.close()
    parts = urlsplit(url)
    rows += app_files(f"{parts.scheme}://{parts.netloc}")
    if "--json" in argv:
        print(json.dumps({"files": rows, "wire": total(rows)}, indent=1))
    else:
        print(report(rows))
    return 0 if total(rows) <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
