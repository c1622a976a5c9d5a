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

FAST = [
    "--bot-delay",
    "0",
    "--pass-delay",
    "0",
    "--between-hands",
    "0",
    "--fair-window",
    "3",
]


class ServerProcess:
    def __init__(self, db: Path, extra: list[str]) -> None:
        self.db = db
        self.extra = extra
        self.proc: subprocess.Popen[str] | None = None
        self.base = ""

    def start(self) -> str:
        cmd = [
            sys.executable,
            "-m",
            "tranque.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--db",
            f"sqlite:///{self.db}",
            *self.extra,
        ]
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
        return self.base

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> str:
        if self.proc is None:
            return ""
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate(timeout=10)
        self.proc = None
        return err


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
