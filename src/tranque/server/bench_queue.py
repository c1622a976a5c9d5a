"""``tranque bench queue``: how long people wait in the quick-match queue.

A real server process; people arrive over real sockets at a steady rate (``--rate`` a second)
and queue; each one's wait is the time from his ``queue`` message to his ``matched``. Printed:
the waits (median, 90th percentile, most), the tables made, and how many seats bots took. With
people arriving faster than four per fill time most tables are of four people at once; slower,
the fill time decides and bots come.
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

from tranque.commands import CommandError


def register(bench: Any) -> None:
    q = bench.add_parser(
        "queue",
        help="waits in the quick-match queue, people arriving at a steady rate",
        description="Start the server in its own process; people arrive and queue over sockets.",
    )
    q.add_argument("--people", type=int, default=24, metavar="N", help="people who arrive (24)")
    q.add_argument("--rate", type=float, default=1.0, metavar="R", help="arrivals a second (1)")
    q.add_argument("--fill-time", type=float, default=15.0, metavar="S", help="the server's (15)")
    q.add_argument("--json", action="store_true", help="print the figures as JSON")
    q.set_defaults(func=run_bench_queue)


async def _person(base: str, delay: float, nick: str) -> tuple[float, str, int]:
    import websockets

    from tranque.client import new_guest

    await asyncio.sleep(delay)
    g = await new_guest(base, nick)
    async with websockets.connect(base.replace("http", "ws", 1) + "/ws") as ws:
        t0 = time.perf_counter()
        await ws.send(json.dumps({"type": "queue", "token": g["token"], "variant": "havana"}))
        async for text in ws:
            msg = json.loads(text)
            if msg["type"] == "matched":
                return time.perf_counter() - t0, msg["table"], msg["seat"]
            if msg["type"] in ("error", "unqueued"):
                raise CommandError(f"{nick} was not seated: {msg}")
    raise CommandError(f"{nick}'s socket closed")


async def _measure(base: str, people: int, rate: float) -> list[tuple[float, str, int]]:
    return await asyncio.gather(*(_person(base, i / rate, f"p{i}") for i in range(people)))


def run_bench_queue(args: argparse.Namespace) -> int:
    from tranque.commands import print_figures
    from tranque.server.bench import start_server, stop_process

    if not 1 <= args.people <= 2000 or not 0 < args.rate <= 1000:
        raise CommandError("--people is 1 to 2000 and --rate more than 0, at most 1000")
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'bench.db'}"
        server, base = start_server(db, ["--fill-time", str(args.fill_time), "--workers", "1"])
        try:
            got = asyncio.run(_measure(base, args.people, args.rate))
        finally:
            stop_process(server)
    waits = sorted(w for w, _, _ in got)
    tables: dict[str, int] = {}
    for _, table, _ in got:
        tables[table] = tables.get(table, 0) + 1
    result = {
        "people": args.people,
        "arrivals_per_s": args.rate,
        "fill_time_s": args.fill_time,
        "wait_median_s": round(statistics.median(waits), 2),
        "wait_p90_s": round(waits[int(0.9 * (len(waits) - 1))], 2),
        "wait_max_s": round(waits[-1], 2),
        "tables": len(tables),
        "tables_of_four_people": sum(1 for n in tables.values() if n == 4),
        "bot_seats": sum(4 - n for n in tables.values()),
    }
    print_figures(result, args.json)
    return 0
