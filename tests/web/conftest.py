"""Browser tests: Debian's Chromium driven by Playwright, against static files or a real server.

In CI (``CI`` set) a missing browser is a failure, never a skip: these tests are required there.
Screenshots go to ``out/screenshots/`` (git-ignored), kept as test artifacts.
"""

from __future__ import annotations

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
