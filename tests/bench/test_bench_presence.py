"""``tranque bench presence``: a change of presence reaches every friend, and is timed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.slow  # a server process
def test_every_change_reaches_every_friend_and_is_timed() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tranque.cli", "bench", "presence", "--people", "60",
         "--friends", "6", "--samples", "10", "--json"],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout)
    # Each sample is two changes (offline, online), each waited for at all of his friends.
    assert got["people"] == 60 and got["changes"] == 20 and got["friends_each"] == 6
    assert 0 < got["median_ms"] <= got["p99_ms"] <= got["max_ms"] < 30_000


def test_bad_figures_are_refused() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tranque.cli", "bench", "presence", "--people", "1"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 2 and "--people" in out.stderr
    nodes = subprocess.run(
        [sys.executable, "-m", "tranque.cli", "bench", "presence", "--nodes", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert nodes.returncode == 2 and "--nodes" in nodes.stderr


@pytest.mark.slow  # two server processes, PostgreSQL and Redis
def test_on_two_nodes_a_change_reaches_the_friends_on_the_other_node(
    pg_url: str, redis_url: str
) -> None:
    """Person i is on node i mod 2, so most of his friends hear of him through the bus; the
    run makes (and drops) its own database beside the test's and claims an empty Redis one."""
    out = subprocess.run(
        [sys.executable, "-m", "tranque.cli", "bench", "presence", "--people", "60",
         "--friends", "6", "--samples", "10", "--nodes", "2", "--db", pg_url,
         "--redis", redis_url.rsplit("/", 1)[0], "--json"],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout)
    assert got["nodes"] == 2 and got["changes"] == 20, got
    assert 0 < got["median_ms"] <= got["p99_ms"] <= got["max_ms"] < 30_000
    assert got["server_cpu_ms_per_change"] > 0 and got["server_cores"] > 0, got
