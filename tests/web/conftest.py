"""Browser tests: Debian's Chromium driven by Playwright, against static files or a real server.

In CI (``CI`` set) a missing browser is a failure, never a skip: these tests are required there.
Screenshots go to ``out/screenshots/`` (git-ignored), kept as test artifacts.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "src" / "tranque" / "web"
SHOTS = ROOT / "out" / "screenshots"
CHROMIUM = os.environ.get("TRANQUE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Quick tables: bots and forced passes barely wait, a finished hand stays up a moment.
FAST = ["--bot-delay", "0.05", "--pass-delay", "0.05", "--between-hands", "0.3"]
FAST += ["--redeal-window", "0.5"]  # every deal is on show this long (rules.md, section 11)


def _need_browser() -> None:
    if Path(CHROMIUM).exists():
        return
    message = f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


# Per module, not per session: the sync API keeps an event loop running in this thread while it is
# open, and asyncio.run() in tests collected after these (tests/server) would refuse to start.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(autouse=True)
def _closed_after(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every browser context a test opened is closed when it ends. Left open, the pages of a
    module's earlier tests go on running (clocks, reconnects to servers that are gone) in the
    browser the module shares, and take the CPU from the bots' workers of the tests after.
    (Contexts that were open before the test, a module's own fixture's, are left alone.)"""
    if "browser" not in request.fixturenames:
        yield
        return
    browser = request.getfixturevalue("browser")
    before = set(browser.contexts)
    yield
    for ctx in browser.contexts:
        if ctx not in before:
            with contextlib.suppress(Exception):
                ctx.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed browser test's report says where each of its pages was and what it showed."""
    report = yield
    browser = item.funcargs.get("browser") if report.failed else None  # type: ignore[attr-defined]
    if browser is not None:
        for i, page in enumerate(p for ctx in browser.contexts for p in ctx.pages):
            with contextlib.suppress(Exception):
                text = page.evaluate("document.body ? document.body.innerText : ''")
                report.sections.append((f"page {i} {page.url}", text[-3000:]))
    return report


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def static_base() -> Iterator[str]:
    """The web folder alone on a loopback port (http://127.0.0.1 is a secure context)."""
    handler = functools.partial(_Quiet, directory=str(WEB))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def server_fast_args() -> list[str]:
    """``server_factory`` and ``server`` (``tests/conftest.py``) run quick tables here."""
    return FAST


@pytest.fixture
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS
