"""The installable app (issue 29): a manifest with its icons and a service worker, so "Add to home
screen" gives a full-screen app; Chromium itself finds nothing that keeps it from installing the
site; the worker keeps this release's files, never answers for another release's, and shows a
page of its own when the network is gone; Lighthouse's PWA checks (Lighthouse 11, the last with
that category, installed by ``make lighthouse`` from tests/web/lighthouse/package-lock.json) pass
with Debian's Chromium. The offline page is shot on a phone and a desktop, in Spanish and English
(``tests/web/artifacts/offline-*``)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from screens import ARTIFACTS, BLOCKING, axe
from test_browser import DESKTOP, PHONE

from conftest import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.slow

LIGHTHOUSE = Path(__file__).resolve().parent / "lighthouse" / "node_modules" / ".bin" / "lighthouse"


def _controlled(
    browser: Any, base: str, size: dict[str, int], locale: str, profile: Path | None = None
) -> Any:
    """A page of a fresh context whose service worker is installed and controls it; with
    ``profile``, a context on disk (Chromium installs no app from an off-the-record one)."""
    if profile is None:
        # axe is added to the page as a script: the offline page's own policy allows none.
        ctx = browser.new_context(viewport=size, locale=locale, bypass_csp=True)
    else:
        ctx = browser.browser_type.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS, viewport=size,
            locale=locale,
        )  # fmt: skip
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.goto(base + "/")
    # The page registers its worker by itself; bounded, so a page that never does fails here
    # (``ready`` alone would wait for ever, past the suite's timeout).
    ready = "navigator.serviceWorker.ready.then(() => true)"
    late = "new Promise((r) => setTimeout(() => r(false), 15000))"
    assert page.evaluate(f"Promise.race([{ready}, {late}])"), "the page registered no worker"
    page.reload()
    page.wait_for_selector("#play-now")
    assert page.evaluate("!!navigator.serviceWorker.controller")
    return page


def test_the_site_installs_and_its_worker_keeps_this_release(
    browser: Any, server: Any, tmp_path: Path
) -> None:
    base = server.base
    index = httpx.get(base + "/").text
    release = index.split("/assets/", 1)[1].split("/", 1)[0]
    worker = httpx.get(base + "/sw.js")
    assert worker.status_code == 200 and worker.headers["cache-control"] == "no-cache"
    assert f'"{release}"' in worker.text and "__RELEASE__" not in worker.text
    manifest_url = f"/assets/{release}/manifest.webmanifest"
    assert f'rel="manifest" href="{manifest_url}"' in index
    manifest = httpx.get(base + manifest_url)
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    body = manifest.json()
    assert body["display"] == "standalone" and body["start_url"] == "/"
    sizes = {(i["sizes"], i.get("purpose", "any")) for i in body["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in body["icons"]:
        got = httpx.get(f"{base}/assets/{release}/{icon['src']}")
        assert got.status_code == 200 and got.headers["content-type"] == icon["type"], icon

    page = _controlled(browser, base, PHONE, "es-ES", tmp_path / "profile")
    cdp = page.context.new_cdp_session(page)
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    seen = cdp.send("Page.getAppManifest")
    assert seen["errors"] == [] and seen["url"].endswith(manifest_url), seen
    # This release's files are kept (as they were fetched); another release's never answered.
    kept = page.evaluate(
        """async (r) => {
          const names = await caches.keys();
          const c = await caches.open(`tranque-${r}`);
          return [names, (await c.keys()).map((q) => new URL(q.url).pathname)];
        }""",
        release,
    )
    assert kept[0] == [f"tranque-{release}"], kept
    assert f"/assets/{release}/js/app.js" in kept[1], kept
    other = page.evaluate("fetch('/assets/000000000000/js/app.js').then((r) => r.status)")
    assert other == 404  # the network's answer: no stale file of another release
    # An older release's cache is dropped when this worker activates.
    page.evaluate("caches.open('tranque-0ld0ld0ld0ld').then((c) => c.put('/x', new Response('x')))")
    page.evaluate(
        """async () => {
          const reg = await navigator.serviceWorker.getRegistration();
          await reg.unregister();
          await navigator.serviceWorker.register('/sw.js');
          await navigator.serviceWorker.ready;
        }"""
    )
    page.wait_for_function(
        "caches.keys().then((k) => !k.includes('tranque-0ld0ld0ld0ld'))", polling=100
    )
    page.context.close()


def test_offline_a_navigation_gets_the_apps_own_page(browser: Any, server: Any) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for lang, locale, title in (("es", "es-ES", "Sin conexión"), ("en", "en-GB", "Offline")):
        for view, size in (("phone", PHONE), ("desktop", DESKTOP)):
            page = _controlled(browser, server.base, size, locale)
            page.context.set_offline(True)
            page.goto(server.base + "/lobby")
            page.wait_for_selector("#offline h1")
            page.screenshot(path=str(ARTIFACTS / f"offline-{lang}-{view}.png"), full_page=True)
            assert page.inner_text("#offline h1") == title
            bad = [(v["id"], v["nodes"]) for v in axe(page) if v["impact"] in BLOCKING]
            assert bad == [], bad
            page.context.set_offline(False)
            page.click("#offline a")
            page.wait_for_selector("#lobby, main", timeout=15_000)
            assert page.url == server.base + "/lobby"
            page.context.close()


def test_lighthouse_pwa_checks_pass(server: Any, tmp_path: Path) -> None:
    if not LIGHTHOUSE.exists():
        message = f"Lighthouse is not installed at {LIGHTHOUSE} (make lighthouse)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    out = tmp_path / "lighthouse.json"
    flags = "--headless=new --no-sandbox --disable-gpu"
    run = subprocess.run(
        [str(LIGHTHOUSE), server.base + "/", "--only-categories=pwa", "--output=json",
         f"--output-path={out}", "--quiet", f"--chrome-flags={flags}"],
        env={**os.environ, "CHROME_PATH": CHROMIUM},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(out.read_text())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "lighthouse-pwa.json").write_text(json.dumps(report["categories"]["pwa"]))
    audits = {a["id"]: report["audits"][a["id"]] for a in report["categories"]["pwa"]["auditRefs"]}
    checked = {k: a["score"] for k, a in audits.items() if a["scoreDisplayMode"] != "manual"}
    assert {"installable-manifest", "splash-screen", "themed-omnibox", "maskable-icon"} <= set(
        checked
    ), checked
    assert all(score == 1 for score in checked.values()), checked
    assert report["categories"]["pwa"]["score"] == 1
