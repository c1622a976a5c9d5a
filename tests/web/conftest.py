"""Browser tests: Debian's Chromium driven by Playwright, against static files or a real server.

In CI (``CI`` set) a missing browser is a failure, never a skip: these tests are required there.
Screenshots go to ``out/screenshots/`` (git-ignored), kept as test artifacts.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import signal
import subprocess
import sys
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


class ServerProcess:
    """``tranque serve`` in its own process, on a loopback port, with a temporary SQLite file."""

    def __init__(self, db: Path, extra: list[str], port: int = 0) -> None:
        self.db = db
        self.extra = extra
        self.port = port
        self.proc: subprocess.Popen[str] | None = None
        self.base = ""

    def start(self) -> str:
        cmd = [
            sys.executable, "-m", "tranque.cli", "serve", "--host", "127.0.0.1",
            "--port", str(self.port), "--db", f"sqlite:///{self.db}", *self.extra,
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "serving at" not in line:
            self.proc.kill()
            _, err = self.proc.communicate(timeout=10)
            raise RuntimeError(f"the server did not start: {line!r} {err[-2000:]}")
        self.base = line.split()[3].rstrip("/")
        self.port = int(self.base.rsplit(":", 1)[1])
        return self.base

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        with contextlib.suppress(Exception):
            self.proc.communicate(timeout=5)
        self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate(timeout=10)
        self.proc = None


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Any]:
    made: list[ServerProcess] = []

    def make(*extra: str, fast: bool = True) -> ServerProcess:
        sp = ServerProcess(tmp_path / f"s{len(made)}.db", [*(FAST if fast else []), *extra])
        made.append(sp)
        sp.start()
        return sp

    yield make
    for sp in made:
        sp.stop()


@pytest.fixture
def server(server_factory: Any) -> ServerProcess:
    return server_factory()


@pytest.fixture
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS
