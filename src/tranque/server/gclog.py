"""Python's garbage collections, timed: a line per collection, so that ``bench server`` can say
how long the server stood still in them.

At thousands of tables the young collections are what a p99 is made of: each one stops the
event loop for as long as it takes to scan the young objects (docs/server.md), and at 90 % of a
core a pause of 100 ms takes over a second to catch up. The bench starts its server with
``TRANQUE_GC_LOG`` naming a file; ``tranque serve`` then appends ``wall-time generation ms``
for every collection, and the bench reads back the ones of its measured window (``pauses``).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENV = "TRANQUE_GC_LOG"


def install(path: str | Path) -> Callable[[], None]:
    """Time every collection into ``path`` (appended, a line each) from now on; returns the
    function that stops it (a server never does: its log lasts as long as it does)."""
    # Open for the life of the process; a line per write: nothing is lost at a kill.
    out = Path(path).open("a", buffering=1)  # noqa: SIM115
    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        ms = (time.perf_counter() - started[0]) * 1000
        out.write(f"{time.time():.6f} {info['generation']} {ms:.2f}\n")

    def uninstall() -> None:
        gc.callbacks.remove(timed)
        out.close()

    gc.callbacks.append(timed)
    return uninstall


def pauses(path: str | Path, start: float, end: float) -> dict[str, Any]:
    """The collections logged between the wall times ``start`` and ``end``: how many, the
    longest and their sum (ms), and how many were young (generation 0)."""
    times: list[float] = []
    young = 0
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        lines = []
    for line in lines:
        parts = line.split()
        if len(parts) != 3:
            continue  # a line cut short by the server's end
        when, generation, ms = float(parts[0]), int(parts[1]), float(parts[2])
        if start <= when <= end:
            times.append(ms)
            young += generation == 0
    return {
        "server_gc_collections": len(times),
        "server_gc_young_collections": young,
        "server_gc_pause_ms_max": round(max(times, default=0.0), 1),
        "server_gc_pause_ms_sum": round(sum(times), 1),
    }
