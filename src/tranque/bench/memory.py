"""``tranque bench memory``: the server's resident memory per idle and per playing table.

A real server process (``tranque serve`` on loopback, a temporary SQLite file); this process
creates tables over HTTP and reads the server's RSS (psutil) before and after each batch, once it
has settled:

The server runs with 1 s Salgo / Sal tú and redeal windows so that every table gets to its
plays within seconds.

1. warm-up: a few tables of each kind, so that imports, the bots' compiled kernels and the
   allocator's first arenas are not counted;
2. N *idle* tables: created with the host seated and nobody else (waiting for people), no socket;
3. N *playing* tables with nobody connected: practice tables (the host and three bots) in their
   first hand, dealt (the host's seed window ran out) and waiting for the host's play (his clock
   is long);
4. N more playing tables the same but with the host's WebSocket open (the difference with 3 is
   what one connection costs).

The server's ``/api/stats`` says when every table of a batch is in memory in the expected state.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tranque.bench.server import start_server, stop_process
from tranque.commandline import CommandError, print_figures

FAIR_WINDOW = 3.0  # the server's default: a hand is dealt this long after it is seeded
CHOOSE_WINDOW = 1.0  # Salgo / Sal tú and redeal windows: short, to reach the plays quickly
SETTLE = 2 * FAIR_WINDOW + 2 * CHOOSE_WINDOW + 1.0  # seeded, dealt, chosen, bots played


async def _wait_stats(http: httpx.AsyncClient, key: str, count: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        live = (await http.get("/api/stats")).json()["live"]
        if live[key] >= count:
            return
        await asyncio.sleep(0.1)
    raise CommandError(f"the server did not reach {count} {key} tables in {timeout:.0f} s")


def _settled_rss(proc: Any) -> int:
    """The RSS once it stops moving (three reads 0.3 s apart within 1 %), at most ~6 s."""
    last = proc.memory_info().rss
    for _ in range(20):
        time.sleep(0.3)
        now = proc.memory_info().rss
        if abs(now - last) <= last * 0.01:
            return int(now)
        last = now
    return int(last)


async def _run(base: str, proc: Any, n: int, warm: int) -> dict[str, Any]:
    from tranque.client import TableClient, create_table, new_guest

    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        guest = await new_guest(base, "mem")
        token = guest["token"]
        clients: list[TableClient] = []

        async def idle_tables(k: int) -> None:
            for _ in range(k):
                await create_table(base, token, rules="havana", practice=False, seat=0)

        last: dict[str, Any] = {}

        async def playing_tables(k: int, connect: bool) -> None:
            for _ in range(k):
                t = await create_table(
                    base, token, rules="havana", practice=True, seat=0, move_clock=600
                )
                last["table"] = t["table"]
                if connect:
                    c = TableClient(base, token, t["table"], keep_frames=False)
                    await c.connect()
                    clients.append(c)

        await idle_tables(warm)
        await playing_tables(warm, False)
        await playing_tables(warm, True)
        await _wait_stats(http, "playing", 2 * warm)
        await asyncio.sleep(SETTLE)
        rss0 = _settled_rss(proc)
        await idle_tables(n)
        await _wait_stats(http, "waiting", warm + n)
        rss1 = _settled_rss(proc)
        await playing_tables(n, False)
        await _wait_stats(http, "playing", 2 * warm + n)
        # Dealt without the host's seed (his commit window, then the reveal's), bots played.
        await asyncio.sleep(SETTLE)
        rss2 = _settled_rss(proc)
        history = (await http.get(f"/api/tables/{last['table']}/history")).json()
        await playing_tables(n, True)
        await _wait_stats(http, "playing", 2 * warm + 2 * n)
        # Every connected host has his hand dealt and the bots have played up to his turn.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not all(c.state.get("legal") for c in clients):
            await asyncio.sleep(0.1)
        at_turn = sum(1 for c in clients if c.state.get("legal"))
        rss3 = _settled_rss(proc)
        stats = (await http.get("/api/stats")).json()
        for c in clients:
            await c.close()
    mb = 2**20
    return {
        "tables_per_kind": n,
        "server_rss_mb_start": round(rss0 / mb, 1),
        "server_rss_mb_after_idle": round(rss1 / mb, 1),
        "server_rss_mb_after_playing": round(rss2 / mb, 1),
        "server_rss_mb_after_connected": round(rss3 / mb, 1),
        "kb_per_idle_table": round((rss1 - rss0) / n / 1024, 1),
        "kb_per_playing_table": round((rss2 - rss1) / n / 1024, 1),
        "kb_per_playing_table_with_its_socket": round((rss3 - rss2) / n / 1024, 1),
        "live": stats["live"],
        "connected_hosts_at_their_turn": at_turn,
        "last_events_of_an_unconnected_playing_table": [e["type"] for e in history[-3:]],
    }


def run_memory(args: argparse.Namespace) -> int:
    import psutil

    if not 1 <= args.tables <= 5000:
        raise CommandError("--tables is 1 to 5000")
    tmp = tempfile.mkdtemp(prefix="tranque-mem-")
    db = f"sqlite:///{Path(tmp) / 'mem.db'}"
    extra = ["--bot-delay", "0", "--pass-delay", "0"]
    extra += ["--choose-window", str(CHOOSE_WINDOW), "--redeal-window", str(CHOOSE_WINDOW)]
    server, base = start_server(db, extra)
    try:
        result = asyncio.run(_run(base, psutil.Process(server.pid), args.tables, 5))
    finally:
        stop_process(server)
    print_figures(result, args.json)
    return 0
