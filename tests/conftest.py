"""Shared by tests/server and tests/web: ``tranque serve`` as a real process.

Each directory says how fast its tables run by overriding the ``server_fast_args`` fixture.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis. Its built-in "ci" profile (loaded whenever CI is set) is derandomized: CI would run
# the same cases forever and never find a new one. Ours keeps the pinned ``@example`` cases of
# each property test (the fixed examples every run tries first, the shapes that broke once) and
# draws fresh random cases on every run, CI included; a failure prints its
# ``@reproduce_failure`` blob, to be pinned as an ``@example``. No database: a fresh clone has
# none, and a local ``.hypothesis/`` (git-ignored) only replays this machine's own failures.
settings.register_profile(
    "ci",
    derandomize=False,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# Loopback requests never go through a proxy the environment may name.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))

# The per-client limits are off in the servers the tests start (every test client is 127.0.0.1);
# the tests of the limits turn each on with its flag, which wins over the environment.
NO_LIMITS = {
    "TRANQUE_GUESTS_PER_MINUTE": "0",
    "TRANQUE_TABLES_PER_MINUTE": "0",
    "TRANQUE_MAX_OPEN_TABLES": "0",
    "TRANQUE_MAX_SOCKETS_PER_IP": "0",
}


class ServerProcess:
    """``tranque serve`` in its own process, on a loopback port, with a temporary SQLite file.

    Its standard error goes to a log file next to the database (``errors()``). ``port`` is the
    port it listens on once started; each ``start()`` takes the constructor's port (0: a free one)
    unless given another, such as the old one for a restart where the clients were.
    """

    def __init__(
        self, db: Path, extra: list[str], port: int = 0, env: dict[str, str] | None = None
    ) -> None:
        self.db = db
        self.env = env or {}
        self.log = db.with_suffix(".log")
        self.extra = extra
        self.listen = port
        self.port = port
        self.proc: subprocess.Popen[str] | None = None
        self.base = ""

    def start(self, port: int | None = None) -> str:
        port = self.listen if port is None else port
        cmd = [
            sys.executable, "-m", "tranque.cli", "serve", "--host", "127.0.0.1",
            "--port", str(port), "--db", f"sqlite:///{self.db}", *self.extra,
        ]  # fmt: skip
        env = {**NO_LIMITS, **os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        with open(self.log, "a") as err:
            self.proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env
            )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "serving at" not in line:
            self.proc.kill()
            self.proc.communicate(timeout=10)
            raise RuntimeError(f"the server did not start: {line!r} {self.errors()[-2000:]}")
        self.base = line.split()[3].rstrip("/")
        self.port = int(self.base.rsplit(":", 1)[1])
        self._wait_until_it_answers()
        return self.base

    def _wait_until_it_answers(self, seconds: float = 30.0) -> None:
        """The start line may come before the socket listens: wait for a real ``GET /health``."""
        assert self.proc is not None
        end = time.monotonic() + seconds
        while True:
            try:
                with _DIRECT.open(self.base + "/health", timeout=2) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > end:
                self.proc.kill()
                self.proc.communicate(timeout=10)
                raise RuntimeError(f"the server never answered: {self.errors()[-2000:]}")
            time.sleep(0.05)

    def errors(self) -> str:
        return self.log.read_text() if self.log.exists() else ""

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        with contextlib.suppress(Exception):
            self.proc.communicate(timeout=5)
        self.proc = None

    def stop(self) -> str:
        if self.proc is None:
            return self.errors()
        self.proc.terminate()
        try:
            self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate(timeout=10)
        self.proc = None
        return self.errors()


@pytest.fixture
def server_fast_args() -> list[str]:
    """The options of a quick table (short bot and pass delays); each directory sets its own."""
    return []


@pytest.fixture
def server_factory(tmp_path: Path, server_fast_args: list[str]) -> Iterator[Any]:
    """``make(*extra, db=None, fast=True, env=None)`` starts a server (``env``: variables added
    to its environment); every one is stopped afterwards."""
    made: list[ServerProcess] = []

    def make(
        *extra: str, db: Path | None = None, fast: bool = True, env: dict[str, str] | None = None
    ) -> ServerProcess:
        fast_args = server_fast_args if fast else []
        sp = ServerProcess(db or tmp_path / f"s{len(made)}.db", [*fast_args, *extra], env=env)
        made.append(sp)
        sp.start()
        return sp

    yield make
    for sp in made:
        sp.stop()


@pytest.fixture
def server(server_factory: Any) -> ServerProcess:
    sp: ServerProcess = server_factory()
    return sp
