"""A cluster under faults, through real node processes, PostgreSQL, Redis and sockets: the owner
killed, the owner paused until its lease is taken (split brain), Redis restarted, a clean stop,
and nodes starting at once on an empty database."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from frame_scanner import scan_all
from test_server_e2e import assert_verifies, handles_of
from tests.conftest import Cluster, need_service

from tranque.client import TableClient, create_table, get_json, new_guest, random_legal

RULES = {"preset": "havana", "target": 60}
SEED = "c1a5e7"


async def _table(cluster: Cluster, secret: bytes, rules: Any = RULES) -> tuple[str, list[Any]]:
    """A table made through node 1 (its owner), seats 0 and 2 on node 1, 1 and 3 on node 2;
    each client fails over to the other node."""
    a, b = cluster.bases[0], cluster.bases[1]
    where = [a, b, a, b]
    guests = [await new_guest(where[s], f"p{s}") for s in range(4)]
    table = await create_table(a, guests[0]["token"], rules=rules, practice=False)
    tid = table["table"]
    clients = []
    for s, g in enumerate(guests):
        other = b if where[s] == a else a
        c = TableClient(
            where[s], g["token"], tid, seed_secret=secret + bytes([s]), failover=[other]
        )
        await c.connect()
        if s:
            assert (await c.do({"type": "sit", "seat": s}))["type"] == "ack"
        clients.append(c)
    return tid, clients


def _mid_hand(c: TableClient) -> bool:
    return c.state.get("phase") == "play" and sum(c.state.get("counts") or [40]) <= 33


async def _play(clients: list[TableClient]) -> list[asyncio.Task[None]]:
    return [
        asyncio.create_task(c.play_game(random_legal, seed=50 + i, timeout=240))
        for i, c in enumerate(clients)
    ]


async def _finish(clients: list[TableClient], tasks: list[asyncio.Task[None]], base: str) -> Any:
    await asyncio.gather(*tasks)
    tid = clients[0].table
    record = await get_json(base, f"/api/tables/{tid}/record")
    assert_verifies(record)
    scan_all(clients, record, at_least=10)
    for c in clients:
        assert not [e for e in c.errors if e["code"] not in ("stale",)], c.errors
        await c.close()
    return record


async def _events(url: str, tid: str) -> list[tuple[int, int | None]]:
    con = await asyncpg.connect(url)
    try:
        rows = await con.fetch("SELECT seq, epoch FROM events WHERE table_id=$1 ORDER BY seq", tid)
    finally:
        await con.close()
    return [(r["seq"], r["epoch"]) for r in rows]


def _epochs_never_fork(log: list[tuple[int, int | None]]) -> None:
    """One writer at a time: the epochs never go down along the log, and seqs are 1..n."""
    assert [s for s, _ in log] == list(range(1, len(log) + 1))
    epochs = [e or 0 for _, e in log]
    assert epochs == sorted(epochs), epochs


@pytest.mark.slow
def test_kill_9_the_owner_mid_hand_the_game_ends_on_the_other_node_as_without_the_kill(
    cluster_factory: Any, pg_factory: Any
) -> None:
    async def run(kill: bool) -> tuple[dict[str, Any], float | None]:
        url = pg_factory()
        cluster = cluster_factory(2, "--test-seed", SEED, url=url)
        tid, clients = await _table(cluster, b"kill")
        tasks = await _play(clients)
        took: float | None = None
        if kill:
            watcher = clients[1]  # on node 2, which survives
            await watcher.wait_for(lambda c: c.game_over or _mid_hand(c), 120)
            assert not watcher.game_over
            at = watcher.seq
            cluster.nodes[0].kill9()  # the owner
            killed = time.monotonic()
            await watcher.wait_for(lambda c: c.seq > at + 1, 60)
            took = time.monotonic() - killed
        record = dict(await _finish(clients, tasks, cluster.bases[1]))
        # The people who sat, by their handles: this run's own guests, the kill or not.
        assert record.pop("players") == await handles_of(cluster.bases[1], clients)
        log = await _events(url, tid)
        _epochs_never_fork(log)
        if kill:
            assert {e for _, e in log} == {1, 2}  # node 2 took it over once
            assert all(c.failovers >= 1 for c in clients)
        return record, took

    async def go() -> None:
        calm, _ = await run(False)
        crashed, took = await run(True)
        print(f"takeover after kill -9: {took:.2f} s")
        assert crashed == calm

    asyncio.run(go())


@pytest.mark.slow
def test_split_brain_a_paused_owner_resumes_and_never_appends(
    cluster_factory: Any, pg_url: str
) -> None:
    async def go() -> None:
        cluster = cluster_factory(2)
        old, new = cluster.nodes
        tid, clients = await _table(cluster, b"split")
        tasks = await _play(clients)
        watcher = clients[1]
        await watcher.wait_for(lambda c: c.game_over or _mid_hand(c), 120)
        assert not watcher.game_over
        old.signal(signal.SIGSTOP)  # paused mid-hand: no renewals, the lease runs out
        try:
            at = watcher.seq
            # The other node takes the table over and the game goes on there.
            await watcher.wait_for(lambda c: c.seq > at + 8, 60)
        finally:
            old.signal(signal.SIGCONT)
        # The old owner wakes with the table in memory: it must find out, drop it, and write
        # nothing (its appends carry the old epoch).
        for _ in range(200):
            stats = await get_json(old.base, "/api/stats")
            if stats["since_start"]["lost"] >= 1:
                break
            await asyncio.sleep(0.05)
        assert stats["since_start"]["lost"] >= 1, stats
        await _finish(clients, tasks, new.base)
        log = await _events(pg_url, tid)
        _epochs_never_fork(log)
        first_new = min(s for s, e in log if e == 2)
        assert all(e == 2 for s, e in log if s >= first_new)
        assert "dropped" in old.errors() or "taken over" in old.errors()

    asyncio.run(go())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class OwnRedis:
    """A Redis server of the test's own (the machine's is not ours to restart)."""

    def __init__(self, folder: Path) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not Path(binary).exists():
            need_service("redis-server (the binary)", FileNotFoundError(binary))
        self.binary, self.folder, self.port = binary, folder, _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        import redis

        for _ in range(200):
            with contextlib.suppress(Exception):
                redis.Redis(port=self.port, socket_timeout=1).ping()
                return
            time.sleep(0.025)
        raise RuntimeError("our redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


@pytest.mark.slow
def test_redis_restarted_mid_game_the_game_goes_on_and_nothing_is_lost(
    cluster_factory: Any, tmp_path: Path
) -> None:
    own = OwnRedis(tmp_path)
    own.start()
    try:

        async def go() -> None:
            cluster = cluster_factory(2, redis=own.url)
            _, clients = await _table(cluster, b"redis")
            tasks = await _play(clients)
            watcher = clients[0]
            await watcher.wait_for(lambda c: c.game_over or _mid_hand(c), 120)
            assert not watcher.game_over
            own.stop()
            for node in cluster.nodes:  # both see it gone (readiness says so)
                for _ in range(200):
                    ready = await _ready(node.base)
                    if not ready:
                        break
                    await asyncio.sleep(0.05)
                assert not ready
            own.start()
            record = await _finish(clients, tasks, cluster.bases[1])
            assert record["hands"]
            for node in cluster.nodes:
                assert await _ready(node.base)

        asyncio.run(go())
    finally:
        own.stop()


async def _ready(base: str) -> bool:
    import httpx

    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        r = await http.get("/healthz")
        assert r.status_code in (200, 503), r.text
        return bool(r.json()["ready"]) and r.status_code == 200


@pytest.mark.slow
def test_sigterm_hands_the_owners_tables_to_the_other_node(cluster_factory: Any) -> None:
    async def go() -> None:
        cluster = cluster_factory(2)
        _, clients = await _table(cluster, b"drain")
        tasks = await _play(clients)
        await clients[1].wait_for(lambda c: c.game_over or _mid_hand(c), 120)
        leaving = cluster.nodes[0]
        assert leaving.proc is not None
        leaving.proc.terminate()
        # uvicorn ends by raising the signal again, once its clean stop is done.
        assert leaving.proc.wait(30) in (0, -signal.SIGTERM)
        assert "Traceback" not in leaving.errors()
        await _finish(clients, tasks, cluster.bases[1])
        stats = await get_json(cluster.bases[1], "/api/stats")
        assert stats["since_start"]["taken_over"] >= 1

    asyncio.run(go())


@pytest.mark.slow
def test_nodes_starting_at_once_on_an_empty_database_migrate_once_and_all_serve(
    cluster_factory: Any, pg_url: str
) -> None:
    cluster = cluster_factory(3, start=False)
    for node in cluster.nodes:
        node.launch()
    for node in cluster.nodes:
        node.started()

    async def go() -> None:
        con = await asyncpg.connect(pg_url)
        try:
            assert [r["version_num"] for r in await con.fetch("SELECT * FROM alembic_version")] == [
                "0013a"
            ]
        finally:
            await con.close()
        for node in cluster.nodes:
            assert await _ready(node.base)
        # One signing secret for all, though each made one at start: a token of one is good at all.
        guest = await new_guest(cluster.bases[0], "anyone")
        import httpx

        for base in cluster.bases:
            async with httpx.AsyncClient(base_url=base, timeout=10) as http:
                renewed = await http.post(
                    "/api/guests/renew", headers={"Authorization": f"Bearer {guest['token']}"}
                )
                assert renewed.status_code == 200, renewed.text
        # And they serve one another's tables.
        tid, clients = await _table(Cluster(cluster.nodes[1:]), b"start")
        await _finish(clients, await _play(clients), cluster.bases[0])
        assert tid

    asyncio.run(go())
