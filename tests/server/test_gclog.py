"""The collections' log the bench reads (server.gclog): what it writes and what it counts."""

from __future__ import annotations

import gc
import time
from pathlib import Path

from tranque.server import gclog


def test_only_the_collections_of_the_window_are_counted(tmp_path: Path) -> None:
    log = tmp_path / "gc.log"
    log.write_text(
        "99.000 0 500.00\n"  # before the window
        "100.000 0 12.50\n"
        "101.500 1 30.25\n"
        "102.000 0 7.00\n"
        "103.000 2 900.00\n"  # after it
        "103.5 0\n"  # cut short by a kill
    )
    assert gclog.pauses(log, 100.0, 102.5) == {
        "server_gc_collections": 3,
        "server_gc_young_collections": 2,
        "server_gc_pause_ms_max": 30.2,
        "server_gc_pause_ms_sum": 49.8,
    }
    assert gclog.pauses(tmp_path / "none.log", 0, 1e12)["server_gc_collections"] == 0


def test_every_collection_is_timed_with_its_generation(tmp_path: Path) -> None:
    log = tmp_path / "gc.log"
    start = time.time()
    uninstall = gclog.install(log)
    try:
        gc.collect(0)
        gc.collect(2)
    finally:
        uninstall()
    seen = gclog.pauses(log, start, time.time())
    # Collections the interpreter made on its own meanwhile count too: at least these two.
    assert seen["server_gc_collections"] >= 2
    assert seen["server_gc_young_collections"] >= 1
    generations = [line.split()[1] for line in log.read_text().splitlines()]
    assert "2" in generations
