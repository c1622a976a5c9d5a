"""``tranque bench queue``: the quick-match queue's waits, on one node and on a cluster of two
(the machine's real PostgreSQL and Redis, a database of the run's own, dropped afterwards)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest


def bench(*args: str, timeout: float = 240) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "tranque.cli", "bench", "queue", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    figures: dict[str, Any] = json.loads(out.stdout)
    return figures


@pytest.mark.slow  # a server process and the fill time
def test_five_people_make_a_table_of_four_at_once_and_one_waits_for_the_fill_time() -> None:
    got = bench("--people", "5", "--rate", "20", "--fill-time", "1.5", "--variant", "oriente")
    assert got["variant"] == "oriente" and got["nodes"] == 1
    assert got["tables"] == 2 and got["tables_of_four_people"] == 1 and got["bot_seats"] == 3
    # The four who came together were seated at once; the fifth waited the fill time.
    assert got["wait_median_at_four_people_s"] < 1.0
    assert 1.5 <= got["wait_median_with_bots_s"] < 4.0 and got["wait_max_s"] >= 1.5


def test_people_at_two_nodes_share_one_queue(pg_url: str, redis_url: str) -> None:
    services = ["--db", pg_url, "--redis", redis_url.rsplit("/", 1)[0]]
    got = bench("--nodes", "2", "--people", "4", "--rate", "20", "--fill-time", "30", *services)
    # Two came to each node; one table of the four, long before the fill time.
    assert got["nodes"] == 2 and got["tables"] == 1 and got["tables_of_four_people"] == 1
    assert got["bot_seats"] == 0 and got["wait_max_s"] < 10


def test_bad_figures_are_refused() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tranque.cli", "bench", "queue", "--nodes", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0 and "--nodes is 1 to 8" in out.stderr
