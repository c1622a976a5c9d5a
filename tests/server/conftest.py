"""A real server process on a loopback ephemeral port and a temporary SQLite file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FAST = ["--bot-delay", "0", "--pass-delay", "0", "--between-hands", "0", "--rate", "200"]


class ServerProcess:
    def __init__(self, db: Path, extra: list[str]) -> None:
        self.db = db
        self.log = db.with_suffix(".log")
        self.extra = extra
        self.proc: subprocess.Popen[str] | None = None
        self.base = ""

    def start(self) -> str:
        cmd = [sys.executable, "-m", "tranque.cli", "serve", "--host", "127.0.0.1"]
        cmd += ["--port", "0", "--db", f"sqlite:///{self.db}", *self.extra]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
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
        return self.base

    def errors(self) -> str:
        return self.log.read_text() if self.log.exists() else ""

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.communicate(timeout=10)
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
def server_factory(tmp_path: Path) -> Iterator[Any]:
    made: list[ServerProcess] = []

    def make(*extra: str, db: Path | None = None, fast: bool = True) -> ServerProcess:
        sp = ServerProcess(db or tmp_path / f"s{len(made)}.db", [*(FAST if fast else []), *extra])
        made.append(sp)
        sp.start()
        return sp

    yield make
    for sp in made:
        sp.stop()


@pytest.fixture
def server(server_factory: Any) -> ServerProcess:
    return server_factory()
