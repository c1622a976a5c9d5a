"""``tranque bench presence``: how long a change of presence takes to reach every friend.

A real server process (one node, SQLite), or ``--nodes N`` of them on a fresh PostgreSQL
database and a claimed Redis database (made and dropped by the run, as ``bench cluster`` does),
person ``i`` on node ``i mod N``: most friends then hear of a change through the bus. Before
they start, the run writes ``--people`` accounts (with a session each, no password to hash) and
``--friends`` friends for each (drawn at random, both ways) straight into the database, and
signs their tokens with the secret it keeps there. Every person then listens on a socket of his
own (the bell's ``notices``). Each sample picks a person: his socket closes (offline) and opens
again (online), one change after another (a person's pace, not a flood); the time is from that
close or that ``notices`` to the ``presence`` frame about him at the last of his friends.
Printed: the median, 90th and 99th percentiles and the worst, over both kinds of change, and
the CPU the server processes spent while the changes were measured (per change, and as a share
of one core).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tranque.bench.nodes import add_cluster_arguments, running, services
from tranque.commandline import CommandError


def register(bench: Any) -> None:
    p = bench.add_parser(
        "presence",
        help="from a change of presence to the last online friend's frame",
        description="Start the server; people with friends listen; their status changes.",
    )
    p.add_argument("--people", type=int, default=2000, metavar="N", help="accounts online (2000)")
    p.add_argument("--friends", type=int, default=20, metavar="F", help="friends each (20)")
    p.add_argument("--samples", type=int, default=200, metavar="K", help="changes measured (200)")
    p.add_argument("--seed", type=int, default=1)
    add_cluster_arguments(p)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=run_bench_presence)


async def _populate(db: str, people: int, friends: int, seed: int) -> tuple[list[str], Any]:
    """The accounts, their sessions and friendships; each person's token."""
    from tranque.club.names import name_key
    from tranque.club.skeleton import name_skeleton
    from tranque.server.identity import Identity
    from tranque.store import open_store
    from tranque.store.schema import accounts, friendships, guests, sessions

    store = await open_store(db)
    try:
        secret = await store.keep_meta("secret", secrets.token_hex(32))
        ident = Identity(secret, ())
        rng = random.Random(seed)
        names = [f"amigo{i}" for i in range(people)]
        ids = [f"bench{i:06d}" for i in range(people)]
        pairs: set[tuple[int, int]] = set()
        target = min(people * friends // 2, people * (people - 1) // 2)
        while len(pairs) < target:  # about ``friends`` each, drawn at random
            a, b = rng.randrange(people), rng.randrange(people)
            if a != b:
                pairs.add((min(a, b), max(a, b)))
        now = time.time()
        async with store._begin() as conn:
            both = list(zip(ids, names, strict=True))
            await conn.execute(
                guests.insert(), [{"id": g, "nickname": n, "created": now} for g, n in both]
            )
            rows_a = [
                {"guest": g, "name": n, "name_key": name_key(n), "name_skeleton": name_skeleton(n),
                 "password_hash": "-", "created": now}
                for g, n in both
            ]  # fmt: skip
            await conn.execute(accounts.insert(), rows_a)
            await conn.execute(
                sessions.insert(), [{"id": f"s{g}", "guest": g, "created": now} for g in ids]
            )
            rows = [{"guest": ids[a], "friend": ids[b], "since": now} for a, b in pairs]
            rows += [{"guest": ids[b], "friend": ids[a], "since": now} for a, b in pairs]
            if rows:  # ``bench arena``'s people have no friends
                await conn.execute(friendships.insert(), rows)
    finally:
        await store.close()
    tokens = [ident.sign(g, n, f"s{g}") for g, n in zip(ids, names, strict=True)]
    friends_of: dict[int, set[int]] = {i: set() for i in range(people)}
    for a, b in pairs:
        friends_of[a].add(b)
        friends_of[b].add(a)
    return tokens, (names, friends_of)


class _Crowd:
    """Every person's listening socket, and the presence frames each got."""

    def __init__(self, bases: list[str], tokens: list[str], names: list[str]) -> None:
        self.urls = [base.replace("http", "ws", 1) + "/ws" for base in bases]
        self.tokens, self.names = tokens, names
        self.index = {n: i for i, n in enumerate(names)}
        self.socks: dict[int, Any] = {}
        self.readers: dict[int, asyncio.Task[None]] = {}
        self.waiting: dict[tuple[int, int, str | None], asyncio.Future[float]] = {}

    async def listen(self, i: int) -> None:
        import websockets

        url = self.urls[i % len(self.urls)]  # person i's node
        ws = await websockets.connect(url, open_timeout=60, max_queue=None)
        await ws.send(json.dumps({"type": "notices", "token": self.tokens[i]}))
        while (first := json.loads(await ws.recv())).get("type") != "notices":
            # A friend's presence may come first: on a cluster it is told by another node.
            if first.get("type") != "presence":
                raise CommandError(f"a person could not listen: {first}")
        self.socks[i] = ws
        self.readers[i] = asyncio.create_task(self._read(i, ws))

    async def _read(self, i: int, ws: Any) -> None:
        import websockets

        try:
            async for text in ws:
                m = json.loads(text)
                if m.get("type") != "presence":
                    continue
                key = (i, self.index[m["friend"]], m["status"])
                fut = self.waiting.pop(key, None)
                if fut is not None and not fut.done():
                    fut.set_result(time.perf_counter())
        except websockets.ConnectionClosed:
            pass

    async def drop(self, i: int) -> None:
        ws = self.socks.pop(i)
        await ws.close()
        await self.readers.pop(i)

    def expect(
        self, who: int, friends: set[int], status: str | None
    ) -> list[asyncio.Future[float]]:
        loop = asyncio.get_running_loop()
        futs = []
        for f in friends:
            fut: asyncio.Future[float] = loop.create_future()
            self.waiting[(f, who, status)] = fut
            futs.append(fut)
        return futs

    async def close(self) -> None:
        for ws in self.socks.values():
            await ws.close()


async def _measure(bases: list[str], tokens: list[str], names: list[str],
                   friends_of: dict[int, set[int]], samples: int, seed: int,
                   cpu: Any) -> tuple[list[float], float, float, float]:  # fmt: skip
    """The changes' times, the seconds to open every socket, and the servers' CPU seconds and
    the wall seconds over the changes (``cpu()`` reads the servers' CPU so far)."""
    crowd = _Crowd(bases, tokens, names)
    t0 = time.perf_counter()
    gate = asyncio.Semaphore(100)

    async def one(i: int) -> None:
        async with gate:
            await crowd.listen(i)

    await asyncio.gather(*(one(i) for i in range(len(tokens))))
    opened = time.perf_counter() - t0
    await asyncio.sleep(1.0)  # the "online" frames of the opening have been sent
    rng = random.Random(seed + 1)
    times: list[float] = []
    cpu0, wall0 = cpu(), time.perf_counter()
    try:
        for _ in range(samples):
            who = rng.randrange(len(tokens))
            friends = friends_of[who]
            for status in (None, "online"):
                futs = crowd.expect(who, friends, status)
                start = time.perf_counter()
                if status is None:
                    await crowd.drop(who)
                else:
                    await crowd.listen(who)
                got = await asyncio.wait_for(asyncio.gather(*futs), 30) if futs else [start]
                times.append(max(got) - start)
        spent, wall = cpu() - cpu0, time.perf_counter() - wall0
    finally:
        await crowd.close()
    return times, opened, spent, wall


def run_bench_presence(args: argparse.Namespace) -> int:
    from tranque.commandline import print_figures

    if not 2 <= args.people <= 20000 or not 1 <= args.friends <= 500:
        raise CommandError("--people is 2 to 20000 and --friends 1 to 500")
    if not 1 <= args.samples <= 10000:
        raise CommandError("--samples is 1 to 10000")
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        db, common = services(args, Path(tmp), stack)
        tokens, (names, friends_of) = asyncio.run(
            _populate(db, args.people, args.friends, args.seed)
        )
        times, opened, spent, wall = _on_nodes(args, db, common, Path(tmp), tokens, names,
                                               friends_of)  # fmt: skip
    times.sort()
    ms = [t * 1000 for t in times]
    result = {
        "people": args.people,
        "nodes": args.nodes,
        "friends_each": round(statistics.mean(len(f) for f in friends_of.values()), 1),
        "changes": len(ms),
        "sockets_opened_s": round(opened, 1),
        "median_ms": round(statistics.median(ms), 1),
        "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 1),
        "p99_ms": round(ms[int(0.99 * (len(ms) - 1))], 1),
        "max_ms": round(ms[-1], 1),
        "server_cpu_ms_per_change": round(spent * 1000 / max(1, len(ms)), 2),
        "server_cores": round(spent / wall, 2) if wall > 0 else 0.0,
    }
    print_figures(result, args.json)
    return 0


Measured = tuple[list[float], float, float, float]  # times, opening, CPU seconds, wall seconds


def _on_nodes(args: argparse.Namespace, db: str, common: list[str], tmp: Path,
              tokens: list[str], names: list[str],
              friends_of: dict[int, set[int]]) -> Measured:  # fmt: skip
    """Start the nodes, measure, stop them (whatever happened)."""
    with running(args.nodes, db, ["--workers", "1", *common], tmp) as nodes:
        bases = [node.base for node in nodes]
        cpu = lambda: sum(node.own_cpu() for node in nodes)  # noqa: E731
        return asyncio.run(_measure(bases, tokens, names, friends_of, args.samples, args.seed, cpu))
