"""What the history tests share: a long table, reads kept in flight, a socket that pings.

- ``long_table``: a practice table (the test's guest at seat 0, bots elsewhere) played until its
  log holds ``events`` entries and it is the guest's turn; with a move clock of ten minutes, the
  table then waits, and its log stays as it is while the test reads it.
- ``keep_in_flight``: ``n`` GETs of the given paths always in flight until told to stop (and at
  most ``most`` in all): every answer's status, and how many there were.
- ``ping_while``: the round trips of a socket's pings to the server while a load runs, measured
  by ``loop_pinger.py`` in a process of its own.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from tranque.client import TableClient, create_table, new_guest

PINGER = Path(__file__).with_name("loop_pinger.py")
LONG_RULES = {"preset": "havana", "target": 1000, "games_to_win_match": 5}


async def long_table(base: str, events: int = 2000) -> tuple[str, TableClient]:
    """A table whose log holds at least ``events`` entries, waiting for its person to play."""
    g = await new_guest(base, "long")
    t = await create_table(
        base, g["token"], rules=LONG_RULES, practice=True, seat=0, bot="facil", move_clock=600
    )
    c = TableClient(base, g["token"], t["table"], keep_frames=False)
    await c.connect()
    await c.play_game(stop=lambda c: c.seq >= events and bool(c.state.get("legal")), timeout=240)
    assert c.seq >= events and c.state.get("legal"), (c.seq, c.state)
    return t["table"], c


async def keep_in_flight(
    base: str, paths: list[str], stop: asyncio.Event, n: int = 16, most: int = 20_000
) -> Counter[int]:
    """``n`` requests in flight, each asking the next of ``paths`` in turn, until ``stop``."""
    statuses: Counter[int] = Counter()
    turn = iter(range(most))
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:

        async def one() -> None:
            for i in turn:
                if stop.is_set():
                    return
                r = await http.get(paths[i % len(paths)])
                await r.aread()
                statuses[r.status_code] += 1

        await asyncio.gather(*(one() for _ in range(n)))
    return statuses


async def ping_while(base: str, seconds: float) -> list[float]:
    """Ping the server at ``base`` for ``seconds`` from another process: the round trips, ms."""
    url = base.replace("http", "ws", 1) + "/ws"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(PINGER), url, str(seconds), stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(proc.communicate(), seconds + 60)
    assert proc.returncode == 0, out
    rtts: list[float] = json.loads(out)
    return rtts


async def pings_under_load(
    base: str, paths: list[str], seconds: float = 4.0, n: int = 16
) -> tuple[list[float], Counter[int]]:
    """The pings' round trips while ``n`` GETs of ``paths`` are kept in flight, and the GETs'
    statuses. The pings start once the first answers are back (the load is flowing)."""
    stop = asyncio.Event()
    load = asyncio.create_task(keep_in_flight(base, paths, stop, n))
    try:
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            assert (await http.get(paths[0])).status_code == 200  # the slowest first answer
        rtts = await ping_while(base, seconds)
    finally:
        stop.set()
    return rtts, await load


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def describe(rtts: list[float]) -> dict[str, Any]:
    ordered = sorted(rtts)
    return {
        "pings": len(ordered),
        "p50_ms": round(ordered[len(ordered) // 2], 2),
        "p99_ms": round(p99(ordered), 2),
        "max_ms": round(ordered[-1], 2),
    }
