"""``tranque bench queue``: how long people wait in the quick-match queue.

A real server process; people arrive over real sockets at a steady rate (``--rate`` a second)
and queue; each one's wait is the time from his ``queue`` message to his ``matched``. Printed:
the waits (median, 90th percentile, most), the tables made, and how many seats bots took. With
people arriving faster than four per fill time most tables are of four people at once; slower,
the fill time decides and bots come.

With ``--nodes N`` (2 or more) the server is a cluster of N nodes on a fresh PostgreSQL database
(dropped afterwards) and an empty Redis database (flushed afterwards), as ``bench cluster``
makes them; the people arrive at the nodes in turn, so the queue they share is the cluster's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tranque.commandline import CommandError


def register(bench: Any) -> None:
    q = bench.add_parser(
        "queue",
        help="waits in the quick-match queue, people arriving at a steady rate",
        description="Start the server in its own process; people arrive and queue over sockets.",
    )
    q.add_argument("--people", type=int, default=24, metavar="N", help="people who arrive (24)")
    q.add_argument("--rate", type=float, default=1.0, metavar="R", help="arrivals a second (1)")
    q.add_argument("--fill-time", type=float, default=15.0, metavar="S", help="the server's (15)")
    q.add_argument("--variant", default="havana", choices=("havana", "miami", "oriente", "barrio"))
    q.add_argument(
        "--nodes", type=int, default=1, metavar="N", help="a cluster of N nodes (1: one node)"
    )
    q.add_argument(
        "--db",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="with --nodes 2+: a PostgreSQL database beside which the run makes its own",
    )
    q.add_argument(
        "--redis", default="redis://127.0.0.1:6379", help="with --nodes 2+: the Redis server"
    )
    q.add_argument("--json", action="store_true", help="print the figures as JSON")
    q.set_defaults(func=run_bench_queue)


async def _person(base: str, delay: float, nick: str, variant: str) -> tuple[float, str, int]:
    import websockets

    from tranque.client import new_guest

    await asyncio.sleep(delay)
    g = await new_guest(base, nick)
    async with websockets.connect(base.replace("http", "ws", 1) + "/ws") as ws:
        t0 = time.perf_counter()
        await ws.send(json.dumps({"type": "queue", "token": g["token"], "variant": variant}))
        async for text in ws:
            msg = json.loads(text)
            if msg["type"] == "matched":
                return time.perf_counter() - t0, msg["table"], msg["seat"]
            if msg["type"] in ("error", "unqueued"):
                raise CommandError(f"{nick} was not seated: {msg}")
    raise CommandError(f"{nick}'s socket closed")


async def _measure(
    bases: list[str], people: int, rate: float, variant: str
) -> list[tuple[float, str, int]]:
    return await asyncio.gather(
        *(_person(bases[i % len(bases)], i / rate, f"p{i}", variant) for i in range(people))
    )


def _serve(args: argparse.Namespace, tmp: Path) -> Any:
    """Start the server (one node, or ``--nodes`` on PostgreSQL and Redis) in its own
    processes; yields their addresses, and stops them and drops their databases after."""
    import contextlib

    from tranque.bench.server import start_server, stop_process

    @contextlib.contextmanager
    def serving() -> Any:
        extra = ["--fill-time", str(args.fill_time), "--workers", "1"]
        procs: list[Any] = []
        with contextlib.ExitStack() as stack:
            if args.nodes == 1:
                db = f"sqlite:///{tmp / 'bench.db'}"
            else:
                from tranque.bench.nodes import claimed_redis, fresh_database

                db, _ = stack.enter_context(fresh_database(args.db))
                extra += ["--redis", stack.enter_context(claimed_redis(args.redis))]
            try:
                bases = []
                for i in range(args.nodes):
                    node = ["--node", f"node{i + 1}"] if args.nodes > 1 else []
                    proc, base = start_server(db, [*extra, *node])
                    procs.append(proc)
                    bases.append(base)
                yield bases
            finally:
                for proc in procs:
                    stop_process(proc)

    return serving()


def run_bench_queue(args: argparse.Namespace) -> int:
    from tranque.commandline import print_figures

    if not 1 <= args.people <= 2000 or not 0 < args.rate <= 1000:
        raise CommandError("--people is 1 to 2000 and --rate more than 0, at most 1000")
    if not 1 <= args.nodes <= 8:
        raise CommandError(f"--nodes is 1 to 8, not {args.nodes}")
    if not 0 < args.fill_time <= 600:
        raise CommandError(f"--fill-time is more than 0, at most 600, not {args.fill_time:g}")
    with tempfile.TemporaryDirectory() as tmp, _serve(args, Path(tmp)) as bases:
        got = asyncio.run(_measure(bases, args.people, args.rate, args.variant))
    waits = sorted(w for w, _, _ in got)
    tables: dict[str, int] = {}
    for _, table, _ in got:
        tables[table] = tables.get(table, 0) + 1
    full = sorted(w for w, table, _ in got if tables[table] == 4)
    bots = sorted(w for w, table, _ in got if tables[table] < 4)
    result = {
        "nodes": args.nodes,
        "variant": args.variant,
        "people": args.people,
        "arrivals_per_s": args.rate,
        "fill_time_s": args.fill_time,
        "wait_median_s": round(statistics.median(waits), 2),
        "wait_p90_s": round(waits[int(0.9 * (len(waits) - 1))], 2),
        "wait_max_s": round(waits[-1], 2),
        "tables": len(tables),
        "tables_of_four_people": sum(1 for n in tables.values() if n == 4),
        "bot_seats": sum(4 - n for n in tables.values()),
        "wait_median_at_four_people_s": round(statistics.median(full), 2) if full else None,
        "wait_median_with_bots_s": round(statistics.median(bots), 2) if bots else None,
    }
    print_figures(result, args.json)
    return 0
