"""``tranque bench arena``: how long a free person waits for his arena table, and how many games
an arena plays, with scripted people on real sockets.

A real server process (one node, SQLite), or ``--nodes N`` of them on a fresh PostgreSQL
database and a claimed Redis database (made and dropped by the run, as ``bench presence`` does),
person ``i`` on node ``i mod N``. The run writes ``--people`` accounts straight into the database
(``bench presence``'s way, without friends), one of them creates an arena of 30 arena minutes
whose minute the servers make last ``--minutes``/30 of a real minute (``--tournament-minute``),
so the arena lasts ``--minutes`` real minutes, and starts it. Then everybody joins (a few at a
time), listens on his bell's socket, and, whenever the bell names a table, plays it there at
once with random legal moves, then waits for the next: free again as soon as his game is over.

Measured at the people's side: the pairing latency, from being free (his join, or the end of
his game) to the bell naming his next table, over every seating; and the games per minute,
the arena's games that ended within its clock (the file's ``ended``) per real minute. Printed
with the median and 99th percentile of the latency, the seats bots took, and the servers' CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tranque.bench.nodes import add_cluster_arguments, running, services
from tranque.commandline import CommandError

ARENA_MINUTES = 30  # the shortest arena a person may make; its minute is scaled to fit --minutes


def register(bench: Any) -> None:
    p = bench.add_parser(
        "arena",
        help="an arena's pairing latency (free -> seated) and games per minute",
        description="Start the server; scripted people join an arena and play every table.",
    )
    p.add_argument("--people", type=int, default=200, metavar="N", help="people who join (200)")
    p.add_argument(
        "--minutes", type=float, default=2.0, metavar="M",
        help="the arena's length in real minutes (0.1-30; 2)",
    )  # fmt: skip
    p.add_argument("--rules", default="oriente", choices=("havana", "miami", "oriente", "barrio"),
                   help="the arena's preset (oriente: short games)")  # fmt: skip
    p.add_argument("--fill-time", type=float, default=15.0, metavar="S", help="the server's (15)")
    p.add_argument("--seed", type=int, default=1)
    add_cluster_arguments(p)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=run_bench_arena)


class _Person:
    """One scripted person: his bell's socket, the tables it names, his waits."""

    def __init__(self, i: int, base: str, token: str, tid: str, others: list[str]) -> None:
        self.i, self.base, self.token, self.tid = i, base, token, tid
        self.others = others  # a cluster's other nodes: a table that moved is found there
        self.tables: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.over = asyncio.Event()
        self.waits: list[float] = []
        self.games = 0

    async def _bell(self, ws: Any) -> None:
        import websockets

        with contextlib.suppress(websockets.ConnectionClosed):
            async for text in ws:
                m = json.loads(text)
                n = m.get("notice") or {}
                if m.get("type") == "notice" and n.get("kind") == "tournament_table":
                    if n.get("tournament") == self.tid:
                        self.tables.put_nowait(n)
                elif m.get("type") == "tournament" and m.get("event") == "finished":
                    self.over.set()

    async def _join(self, http: Any) -> None:
        """``register``, tried again when a kept-alive connection was closed under it (a busy
        server); a join that went through before is ``already_entered``, which is as good."""
        import httpx

        url = f"{self.base}/api/tournaments/{self.tid}/register"
        for attempt in range(3):
            try:
                r = await http.post(url, headers={"authorization": f"Bearer {self.token}"})
            except httpx.TransportError:
                if attempt == 2:
                    raise
                continue
            if r.status_code == 200 or (r.status_code == 409 and "already" in r.text):
                return
            raise CommandError(f"person {self.i} could not join: {r.text}")

    async def run(self, http: Any, gate: asyncio.Semaphore) -> None:
        import websockets

        from tranque.client import TableClient, random_legal

        url = self.base.replace("http", "ws", 1) + "/ws"
        async with gate:
            ws = await websockets.connect(url, open_timeout=120, max_queue=None)
            await ws.send(json.dumps({"type": "notices", "token": self.token}))
            reader = asyncio.create_task(self._bell(ws))
            await self._join(http)
        free = time.perf_counter()
        try:
            while True:
                got = asyncio.ensure_future(self.tables.get())
                end = asyncio.ensure_future(self.over.wait())
                await asyncio.wait({got, end}, return_when=asyncio.FIRST_COMPLETED)
                end.cancel()
                if not got.done():
                    got.cancel()
                    return
                note = got.result()
                self.waits.append(time.perf_counter() - free)
                c = TableClient(self.base, self.token, note["table"], keep_frames=False,
                                failover=self.others)  # fmt: skip
                try:
                    try:
                        await c.connect()
                    except (OSError, TimeoutError, websockets.WebSocketException):
                        if not self.others:
                            raise
                        await c.fail_over()
                    await c.play_game(random_legal, seed=self.i, timeout=600)
                    free = time.perf_counter()  # his game is over: free from now
                finally:
                    await c.close()
                self.games += 1
        finally:
            await ws.close()
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader


async def _arena(bases: list[str], tokens: list[str], args: argparse.Namespace,
                 cpu: Any) -> dict[str, Any]:  # fmt: skip
    import httpx

    from tranque.tournament.model import decode

    limits = httpx.Limits(max_connections=200)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        owner = {"authorization": f"Bearer {tokens[0]}"}
        body = {"name": "Bench", "kind": "arena", "rules": args.rules, "minutes": ARENA_MINUTES,
                "no_show": 120}  # fmt: skip
        r = await http.post(f"{bases[0]}/api/tournaments", json=body, headers=owner)
        if r.status_code != 200:
            raise CommandError(f"the arena was not made: {r.text}")
        tid = r.json()["id"]
        r = await http.post(f"{bases[0]}/api/tournaments/{tid}/start", headers=owner)
        if r.status_code != 200:
            raise CommandError(f"the arena did not start: {r.text}")
        t0, cpu0 = time.perf_counter(), cpu()
        people = [
            _Person(
                i, bases[i % len(bases)], tok, tid, [b for b in bases if b != bases[i % len(bases)]]
            )
            for i, tok in enumerate(tokens)
        ]
        gate = asyncio.Semaphore(50)
        await asyncio.gather(*(p.run(http, gate) for p in people))
        wall, spent = time.perf_counter() - t0, cpu() - cpu0
        file = decode((await http.get(f"{bases[0]}/api/tournaments/{tid}/file")).content)
    clock = args.minutes * 60
    ms = sorted(w * 1000 for p in people for w in p.waits)
    within = [g for g in file.games if g.ended <= clock]
    seats = [s for g in file.games for s in g.seats]

    def pct(q: float) -> float | None:
        return round(ms[int(q * (len(ms) - 1))], 1) if ms else None

    return {
        "people": len(tokens),
        "nodes": len(bases),
        "minutes": args.minutes,
        "rules": args.rules,
        "fill_time_s": args.fill_time,
        "games": len(file.games),
        "games_per_minute": round(len(within) / args.minutes, 1),
        "seatings": len(ms),
        "pairing_p50_ms": round(statistics.median(ms), 1) if ms else None,
        "pairing_p99_ms": pct(0.99),
        "pairing_max_ms": round(ms[-1], 1) if ms else None,
        "bot_seats_share": round(seats.count(None) / len(seats), 3) if seats else None,
        "last_game_ended_s": round(max((g.ended for g in file.games), default=0.0), 1),
        "wall_s": round(wall, 1),
        "server_cores": round(spent / wall, 2) if wall > 0 else 0.0,
    }


def run_bench_arena(args: argparse.Namespace) -> int:
    from tranque.bench.presence import _populate
    from tranque.commandline import print_figures

    if not 4 <= args.people <= 5000:
        raise CommandError(f"--people is 4 to 5000, not {args.people}")
    if not 0.1 <= args.minutes <= 30:
        raise CommandError(f"--minutes is 0.1 to 30, not {args.minutes:g}")
    if not 0 <= args.fill_time <= 600:
        raise CommandError(f"--fill-time is 0 to 600, not {args.fill_time:g}")
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        db, common = services(args, Path(tmp), stack)
        tokens, _ = asyncio.run(_populate(db, args.people, 0, args.seed))
        result = _on_nodes(args, db, common, Path(tmp), tokens)
    print_figures(result, args.json)
    return 0


def _on_nodes(args: argparse.Namespace, db: str, common: list[str], tmp: Path,
              tokens: list[str]) -> dict[str, Any]:  # fmt: skip
    """Start the nodes (fast tables, the arena's minute scaled), measure, stop them."""
    minute = args.minutes * 60 / ARENA_MINUTES
    fast = ["--bot-delay", "0", "--pass-delay", "0", "--between-hands", "0", "--workers", "1"]
    fast += ["--fill-time", f"{args.fill_time:g}", "--tournament-minute", f"{minute:g}"]
    with running(args.nodes, db, [*fast, *common], tmp) as nodes:
        bases = [node.base for node in nodes]
        cpu = lambda: sum(node.own_cpu() for node in nodes)  # noqa: E731
        return asyncio.run(_arena(bases, tokens, args, cpu))
