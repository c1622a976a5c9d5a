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
    "TRANQUE_API_GETS_PER_MINUTE": "0",
    "TRANQUE_CLAIMS_PER_MINUTE": "0",
}


class ServerProcess:
    """``tranque serve`` in its own process, on a loopback port, with a temporary SQLite file.

    Its standard error goes to a log file next to the database (``errors()``). ``port`` is the
    port it listens on once started; each ``start()`` takes the constructor's port (0: a free one)
    unless given another, such as the old one for a restart where the clients were.
    """

    def __init__(
        self,
        db: Path,
        extra: list[str],
        port: int = 0,
        env: dict[str, str] | None = None,
        url: str | None = None,
    ) -> None:
        self.db = db
        self.url = url or f"sqlite:///{db}"  # a PostgreSQL URL for a cluster's node
        self.env = env or {}
        self.log = db.with_suffix(".log")
        self.extra = extra
        self.listen = port
        self.port = port
        self.proc: subprocess.Popen[str] | None = None
        self.base = ""

    def start(self, port: int | None = None) -> str:
        self.launch(port)
        return self.started()

    def launch(self, port: int | None = None) -> None:
        """Start the process, not waiting for it to serve (``started`` waits)."""
        port = self.listen if port is None else port
        cmd = [
            sys.executable, "-m", "tranque.cli", "serve", "--host", "127.0.0.1",
            "--port", str(port), "--db", self.url, *self.extra,
        ]  # fmt: skip
        env = {**NO_LIMITS, **os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        with open(self.log, "a") as err:
            self.proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env
            )

    def started(self) -> str:
        """Wait for the start line and the first answer; the base URL."""
        assert self.proc is not None and self.proc.stdout is not None
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

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, sig)

    def errors(self) -> str:
        return self.log.read_text() if self.log.exists() else ""

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        with contextlib.suppress(Exception):
            self.proc.communicate(timeout=5)
        self._let_go()

    def stop(self) -> str:
        if self.proc is None:
            return self.errors()
        self.proc.terminate()
        try:
            self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate(timeout=10)
        self._let_go()
        return self.errors()

    def _let_go(self) -> None:
        """Close our end of the server's stdout: a killed server's worker processes may hold
        the pipe open past ``communicate``'s timeout, and an unclosed pipe is a warning (an
        error here) in whichever test the collector happens to run in."""
        assert self.proc is not None
        if self.proc.stdout is not None:
            with contextlib.suppress(Exception):
                self.proc.stdout.close()
        self.proc = None


@pytest.fixture
def server_fast_args() -> list[str]:
    """The options of a quick table (short bot and pass delays); each directory sets its own."""
    return []


SERVERS = pytest.StashKey[list[ServerProcess]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed test that ran servers gets the end of each one's log in its report: a failure
    seen only on another machine (a browser test under load) can then be read from its output."""
    report = yield
    if report.failed:
        for i, sp in enumerate(item.stash.get(SERVERS, [])):
            with contextlib.suppress(OSError):
                report.sections.append((f"server {i} log (end)", sp.errors()[-4000:]))
    return report


@pytest.fixture
def server_factory(
    request: pytest.FixtureRequest, tmp_path: Path, server_fast_args: list[str]
) -> Iterator[Any]:
    """``make(*extra, db=None, fast=True, env=None)`` starts a server (``env``: variables added
    to its environment); every one is stopped afterwards. A failed test's report ends with each
    server's log (``pytest_runtest_makereport``)."""
    made: list[ServerProcess] = []
    request.node.stash[SERVERS] = made

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


# -- a cluster: nodes on a fresh PostgreSQL database and the local Redis -------------------------

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS = "redis://127.0.0.1:6379/0"


def need_service(what: str, error: Exception) -> None:
    """A service the cluster tests need is missing: under CI that fails, elsewhere it skips."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is not reachable ({error}); CI runs the cluster tests for real")
    pytest.skip(f"{what} is not reachable: {error}")


def _pg(sql: str) -> None:
    """Run one statement as the PostgreSQL superuser (on a thread of its own: the caller may be
    inside an event loop)."""
    import asyncio
    import threading

    import asyncpg

    async def run() -> None:
        con = await asyncpg.connect(PG_ADMIN, timeout=5)
        try:
            await con.execute(sql)
        finally:
            await con.close()

    failure: list[BaseException] = []

    def thread() -> None:
        try:
            asyncio.run(run())
        except BaseException as exc:
            failure.append(exc)

    t = threading.Thread(target=thread)
    t.start()
    t.join(30)
    if failure:
        raise failure[0]


@pytest.fixture
def pg_factory() -> Iterator[Any]:
    """``make()``: the URL of a new, empty PostgreSQL database; each is dropped afterwards."""
    names: list[str] = []

    def make() -> str:
        name = f"tranque_test_{os.getpid()}_{time.monotonic_ns() % 10**12}"
        try:
            _pg(f"CREATE DATABASE {name}")
        except Exception as exc:
            need_service("PostgreSQL on 127.0.0.1:5432", exc)
        names.append(name)
        return f"postgresql://postgres@127.0.0.1:5432/{name}"

    yield make
    for name in names:
        with contextlib.suppress(Exception):
            _pg(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def pg_url(pg_factory: Any) -> str:
    """A new, empty PostgreSQL database for the test, dropped afterwards."""
    return str(pg_factory())


@pytest.fixture
def redis_url() -> str:
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_timeout=5).ping()
    except Exception as exc:
        need_service("Redis on 127.0.0.1:6379", exc)
    return REDIS


class Cluster:
    """Nodes of one cluster: ``nodes[i].base``; ``bases`` spreads clients over them."""

    def __init__(self, nodes: list[ServerProcess]) -> None:
        self.nodes = nodes

    @property
    def base(self) -> str:
        return self.nodes[0].base

    @property
    def bases(self) -> list[str]:
        return [n.base for n in self.nodes]


@pytest.fixture
def cluster_factory(
    tmp_path: Path, server_fast_args: list[str], pg_url: str, redis_url: str
) -> Iterator[Any]:
    """``make(n=2, *extra, redis=None)``: n nodes on the test's database and Redis."""
    made: list[ServerProcess] = []

    def make(
        n: int = 2,
        *extra: str,
        redis: str | None = None,
        fast: bool = True,
        url: str | None = None,
        start: bool = True,
    ) -> Cluster:
        """``url``: another database than the test's; ``start=False``: nodes not started."""
        nodes = []
        for _ in range(n):
            name = f"n{len(made) + 1}"
            args = [*(server_fast_args if fast else []), "--redis", redis or redis_url]
            sp = ServerProcess(
                tmp_path / f"{name}.db", [*args, "--node", name, *extra], url=url or pg_url
            )
            made.append(sp)
            nodes.append(sp)
        for sp in nodes if start else []:
            sp.start()
        return Cluster(nodes)

    yield make
    for sp in made:
        sp.stop()
