"""The services of ``tranque bench cluster``: a throwaway PostgreSQL database, a claimed Redis
database, the nodes (``tranque serve`` processes kept on their ports through their restarts) and
the thread that kills and restarts them.

Nothing of anyone else's is ever touched: the database is made and dropped by the bench, the Redis
database is one that was empty and is marked as the bench's before it is used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tranque.commandline import CommandError

CLAIM = "tranque:bench-cluster"  # the key that marks a Redis database as this bench's


# -- PostgreSQL and Redis ---------------------------------------------------------------------


def pg(url: str, sql: str, *params: Any) -> list[Any]:
    """One statement on its own connection (CREATE DATABASE cannot run in a transaction)."""
    import asyncpg

    async def run() -> list[Any]:
        conn = await asyncpg.connect(url, timeout=10)
        try:
            return list(await conn.fetch(sql, *params))
        finally:
            await conn.close()

    try:
        return asyncio.run(run())
    except (OSError, asyncpg.PostgresError) as exc:
        raise CommandError(f"PostgreSQL at {_where(url)}: {exc}") from None


def _where(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or ''}{parts.path}"


@contextlib.contextmanager
def fresh_database(admin: str) -> Iterator[tuple[str, str]]:
    """A fresh database on ``admin``'s server, dropped afterwards: its URL and its name."""
    name = f"tranque_bench_{secrets.token_hex(4)}"
    pg(admin, f'CREATE DATABASE "{name}"')
    try:
        yield urlsplit(admin)._replace(path="/" + name).geturl(), name
    finally:
        pg(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def claimed_redis(url: str) -> Iterator[str]:
    """An empty Redis database claimed for this run, flushed afterwards: its URL."""
    import redis

    parts = urlsplit(url)
    asked = parts.path.strip("/")
    server = parts._replace(path="").geturl()
    numbers = [int(asked)] if asked else range(15, 0, -1)
    claimed = None
    try:
        for k in numbers:
            r = redis.Redis.from_url(f"{server}/{k}", socket_timeout=10)
            # Empty, and ours from this instant: another bench finds the key and goes on.
            if r.dbsize() == 0 and r.set(CLAIM, str(os.getpid()), nx=True):
                claimed = r
                break
            r.close()
    except redis.RedisError as exc:
        raise CommandError(f"Redis at {parts.netloc}: {exc}") from None
    if claimed is None:
        which = f"database {asked} has keys" if asked else "no database 1-15 is empty"
        raise CommandError(f"--redis: {which}; this bench flushes only one it found empty")
    try:
        yield f"{server}/{k}"
    finally:
        with contextlib.closing(claimed):
            claimed.flushdb()


def ping_redis(url: str) -> None:
    import redis

    parts = urlsplit(url)
    try:
        with redis.Redis.from_url(parts._replace(path="").geturl(), socket_timeout=10) as r:
            r.ping()
    except redis.RedisError as exc:
        raise CommandError(f"Redis at {parts.netloc}: {exc}") from None


def _owned_tables(db: str, node: str) -> list[str]:
    """The tables whose lease ``node`` holds (read just before it is killed)."""
    rows = pg(
        db, "SELECT table_id FROM leases WHERE node = $1 AND expires >= $2", node, time.time()
    )
    return [str(r["table_id"]) for r in rows]


def own_cpu(proc: Any) -> float:
    """A process's CPU seconds (user + system), 0 once it has gone."""
    from tranque.bench.server import cpu_seconds

    return cpu_seconds([proc])


# -- the nodes --------------------------------------------------------------------------------


class Node:
    """One ``tranque serve`` of the cluster, on the same port through its restarts.

    ``cpu()`` is its CPU since the measure began, the incarnations that were killed included.
    """

    def __init__(self, name: str, db: str, extra: list[str], log: Path) -> None:
        self.name, self.db, self.extra, self.log = name, db, extra, log
        self.port = 0  # a free one the first time, then the same
        self.proc: subprocess.Popen[str] | None = None
        self.ps: Any = None
        self.base = ""
        self.spent = 0.0  # CPU seconds of the killed incarnations, since the measure began
        self.mark = 0.0  # the current incarnation's CPU seconds when the measure began

    def start(self) -> float:
        """Start it; the seconds until it serves."""
        import psutil

        from tranque.bench.server import start_server

        t0 = time.monotonic()
        extra = [*self.extra, "--port", str(self.port)]
        self.proc, self.base = start_server(self.db, extra, self.log)
        self.port = int(self.base.rsplit(":", 1)[1])
        self.ps = psutil.Process(self.proc.pid)
        self.mark = 0.0
        return time.monotonic() - t0

    def own_cpu(self) -> float:
        return own_cpu(self.ps)

    def measure_from_now(self) -> None:
        self.spent, self.mark = 0.0, self.own_cpu()

    def cpu(self) -> float:
        return self.spent + self.own_cpu() - self.mark

    def kill(self) -> float:
        """SIGKILL, and its bot workers with it, as when its machine dies; when."""
        import psutil

        assert self.proc is not None
        workers = self.ps.children(recursive=True)
        self.spent += self.own_cpu() - self.mark
        os.kill(self.proc.pid, signal.SIGKILL)
        at = time.monotonic()
        self.stop()  # reaped, its pipe closed
        for w in workers:
            with contextlib.suppress(psutil.Error):
                w.kill()
        return at

    def stop(self) -> None:
        from tranque.bench.server import stop_process

        stop_process(self.proc)
        self.proc = None


def planned_kills(seconds: float, every: float) -> int:
    """The kills of a measure: one at each multiple of ``every`` short of ``seconds``."""
    return math.ceil(seconds / every) - 1


class Killer(threading.Thread):
    """Every ``every`` seconds: a random node killed, the load told which tables it owned, the
    node started again; then the load told the kills are over.

    The number of kills is fixed by ``--seconds`` and ``--kill-every`` (``planned_kills``), not
    by how fast the machine restarts a node: a kill whose time came while the last restart was
    still going happens as soon as it is done, and the load's measure lasts until the kills are
    over (at least ``--seconds``), so a slow restart never drops one.
    """

    def __init__(
        self, nodes: list[Node], every: float, kills: int, db: str, load: subprocess.Popen[str]
    ):
        super().__init__(name="killer", daemon=True)
        self.nodes, self.every, self.kills, self.db, self.load = nodes, every, kills, db, load
        self.halt = threading.Event()
        self.restarts: list[float] = []
        self.owned: list[int | None] = []  # tables each killed node owned (None: all)
        self.error: BaseException | None = None

    def run(self) -> None:
        rng = random.Random()
        start = time.monotonic()
        try:
            # On the clock (S, 2S, ...), or at once if a restart overran its slot.
            for k in range(1, self.kills + 1):
                if self.halt.wait(start + k * self.every - time.monotonic()):
                    return
                node = rng.choice(self.nodes)
                # One node takes no leases: it owns every table.
                owned = _owned_tables(self.db, node.name) if len(self.nodes) > 1 else None
                at = node.kill()
                self.owned.append(None if owned is None else len(owned))
                self._tell({"killed": node.name, "at": at, "tables": owned})
                self.restarts.append(node.start())
        except BaseException as exc:  # the main thread reports it
            self.error = exc
        finally:
            with contextlib.suppress(OSError, ValueError):  # the load may be gone already
                self._tell({"kills_over": True})

    def _tell(self, note: dict[str, Any]) -> None:
        assert self.load.stdin is not None
        self.load.stdin.write(json.dumps(note) + "\n")
        self.load.stdin.flush()

    def finish(self) -> None:
        self.halt.set()
        self.join()
        if self.error is not None:
            raise CommandError(f"killing and restarting nodes failed: {self.error}")


# -- a bench on one node or a cluster (bench presence, bench arena) ----------------------------


def add_cluster_arguments(p: argparse.ArgumentParser) -> None:
    """``--nodes``, ``--db`` and ``--redis`` of a bench that runs one node on SQLite, or several
    as a cluster on a throwaway PostgreSQL database and a claimed Redis database."""
    p.add_argument(
        "--nodes", type=int, default=1, metavar="N",
        help="server processes (1: SQLite; more: PostgreSQL and Redis, as a cluster) (1)",
    )  # fmt: skip
    p.add_argument(
        "--db", default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="with --nodes > 1: a PostgreSQL database to connect to; the run makes its own "
        "beside it and drops it",
    )  # fmt: skip
    p.add_argument(
        "--redis", default="redis://127.0.0.1:6379",
        help="with --nodes > 1: the Redis server (an empty database is claimed, as by bench "
        "cluster)",
    )  # fmt: skip


def services(args: argparse.Namespace, tmp: Path,
             stack: contextlib.ExitStack) -> tuple[str, list[str]]:  # fmt: skip
    """The database URL and the options every node gets: a SQLite file in ``tmp`` for one
    node; for more, a fresh PostgreSQL database and a claimed Redis database, both let go when
    ``stack`` closes."""
    if not 1 <= args.nodes <= 8:
        raise CommandError(f"--nodes is 1 to 8, not {args.nodes}")
    if args.nodes == 1:
        return f"sqlite:///{tmp / 'bench.db'}", []
    db, _ = stack.enter_context(fresh_database(args.db))
    return db, ["--redis", stack.enter_context(claimed_redis(args.redis))]


@contextlib.contextmanager
def running(count: int, db: str, extra: list[str], tmp: Path) -> Iterator[list[Node]]:
    """``count`` nodes started on ``db`` with ``extra`` (and their names, on a cluster), stopped
    whatever happens."""
    nodes = []
    for i in range(count):
        name = f"node{i + 1}"
        nodes.append(Node(name, db, [*extra, *(["--node", name] if count > 1 else [])],
                          tmp / f"{name}.log"))  # fmt: skip
    try:
        for node in nodes:
            node.start()
        yield nodes
    finally:
        for node in nodes:
            node.stop()
