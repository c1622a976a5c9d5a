"""The load of ``tranque bench server``: tables of lean WebSocket players, in their own process.

The load generator shares the machine with the server it measures, so its players are lean:
typed decoding of the few fields they read, no frames kept, uvloop, no compression. The process
prints its phases (``measuring``, ``done``) as JSON lines, so that its parent reads the servers'
CPU around them, and then its figures. ``bench.cluster_load`` builds on the same players, phases
and figures for many nodes.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import httpx

from tranque.bench.player import TableRun, add_guest, add_table, join, play


async def _people_table(
    base: str,
    http: Any,
    guests: list[dict[str, Any]],
    rate: float,
    stats: dict[str, Any],
    stop: asyncio.Event,
    ready: asyncio.Event,
    spread: float = 0.0,
) -> None:
    tid = await add_table(http, guests[0], {"practice": False})
    sockets = []
    for s, g in enumerate(guests):
        sockets.append(await join(base, g, tid, sit=s if s else None))
    await play(sockets, TableRun(rate, stats), stats, stop, ready, spread=spread)


async def _practice_table(
    base: str,
    http: Any,
    guest: dict[str, Any],
    level: str,
    stats: dict[str, Any],
    stop: asyncio.Event,
    ready: asyncio.Event,
) -> None:
    tid = await add_table(http, guest, {"practice": True, "seat": 0, "bot": level})
    ws = await join(base, guest, tid, sit=None)
    await play([ws], TableRun(0.0, stats, practice=True), stats, stop, ready)


def pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return float(round(1000 * ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2))


def new_stats() -> dict[str, Any]:
    """What the players of a load count, shared by every table."""
    return {
        "moves": 0,
        "latency": [],
        "ack_people": [],
        "ack_practice": [],
        "bot_plays": 0,
        "errors": 0,
        "error_codes": {},
        "games": 0,
        "seated": 0,
        "measuring": False,
        "duplicates": 0,
        "resyncs": 0,
        "resyncs_without_missed": 0,
        "lost": 0,
    }


async def measure(
    plan: dict[str, Any],
    stats: dict[str, Any],
    tasks: list[asyncio.Task[None]],
    ready: asyncio.Event,
    stop: asyncio.Event,
    linger: Callable[[], Awaitable[None]] | None = None,
    hold: asyncio.Event | None = None,
) -> tuple[int, float]:
    """Once every table is seated: play, warm up, measure, stop; the moves and the seconds
    measured. The phases are printed, so the parent reads the processes' CPU around them;
    the measure lasts ``seconds`` and, if ``hold`` is given, until it is set; ``linger`` is
    awaited between the end of the measure and the stop."""
    while stats["seated"] < len(tasks):  # every table seated before anybody plays
        await asyncio.sleep(0.2)
    ready.set()
    # Every table has made its first move once the spread has passed: the warm-up counts from
    # there.
    await asyncio.sleep(plan.get("spread", 0.0) + plan["warmup"])
    stats["measuring"] = True
    m0 = stats["moves"]
    t0 = time.perf_counter()
    print(json.dumps({"phase": "measuring"}), flush=True)
    await asyncio.sleep(plan["seconds"])
    if hold is not None:
        await hold.wait()
    elapsed = time.perf_counter() - t0
    moves = stats["moves"] - m0
    stats["measuring"] = False
    print(json.dumps({"phase": "done"}), flush=True)
    if linger is not None:
        await linger()
    stop.set()
    await asyncio.wait(tasks, timeout=10)
    for t in tasks:
        t.cancel()
    return moves, elapsed


def figures(stats: dict[str, Any], moves: int, elapsed: float) -> dict[str, Any]:
    """The people tables' figures: moves per second, latencies, refusals that are failures."""
    lat, acks = stats["latency"], stats["ack_people"]
    return {
        "moves_per_second": round(moves / elapsed, 1),
        "latency_ms_p50": pct(lat, 0.50),
        "latency_ms_p99": pct(lat, 0.99),
        "latency_samples": len(lat),
        "ack_ms_p50": pct(acks, 0.50),
        "ack_ms_p99": pct(acks, 0.99),
        "errors": stats["errors"],
        "error_codes": stats["error_codes"],
    }


async def _load(plan: dict[str, Any]) -> dict[str, Any]:
    base, tables, practice = plan["base"], plan["tables"], plan["practice"]
    stats = new_stats()
    stop = asyncio.Event()
    ready = asyncio.Event()
    http = httpx.AsyncClient(base_url=base, timeout=120, limits=httpx.Limits(max_connections=20))

    # The same people play game after game: a finished table is followed by a new one.
    async def people_forever() -> None:
        guests = [await add_guest(http, f"b{i}") for i in range(4)]
        spread = plan.get("spread", 0.0)  # the first game only: later ones follow on their own
        while not stop.is_set():
            await _people_table(base, http, guests, plan["rate"], stats, stop, ready, spread)
            spread = 0.0

    async def practice_forever() -> None:
        guest = await add_guest(http, "p")
        while not stop.is_set():
            await _practice_table(base, http, guest, plan["level"], stats, stop, ready)

    tasks = [asyncio.create_task(people_forever()) for _ in range(tables)]
    tasks += [asyncio.create_task(practice_forever()) for _ in range(practice)]
    moves, elapsed = await measure(plan, stats, tasks, ready, stop)
    out = figures(stats, moves, elapsed)
    if practice:
        pa = stats["ack_practice"]
        out["practice_ack_ms_p50"] = pct(pa, 0.50)
        out["practice_ack_ms_p99"] = pct(pa, 0.99)
        out["practice_ack_samples"] = len(pa)
        out["bot_plays_per_second"] = round(stats["bot_plays"] / elapsed, 1)
    return out


def _loop_factory() -> Any:
    try:
        import uvloop
    except ModuleNotFoundError:  # uvicorn[standard] brings it; plain asyncio works too
        return None
    return uvloop.new_event_loop


def load_main(
    load: Callable[[dict[str, Any]], Coroutine[Any, Any, dict[str, Any]]] = _load,
) -> None:  # the client process
    import gc

    gc.set_threshold(50_000, 50, 1000)
    plan = json.loads(sys.argv[1])
    # The clients share the machine with the server: the leaner loop leaves it more of the CPU.
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        out = runner.run(load(plan))
    print(json.dumps({"result": out}), flush=True)
