"""``tranque bench cluster``: its figures, on the machine's real PostgreSQL and Redis.

Each run makes (and drops) its own PostgreSQL database and claims an empty Redis database,
flushed afterwards; all traffic is to 127.0.0.1. Under ``CI=true`` a missing PostgreSQL or Redis
is a failure, never a skip (the ``pg_url`` and ``redis_url`` fixtures of tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def services(pg_url: str, redis_url: str) -> list[str]:
    """PostgreSQL and Redis are there (the fixtures skip, or fail in CI, if not): the bench's
    ``--db`` (the test's own database, beside which it makes its own) and ``--redis`` (the
    server: the bench claims an empty database on it)."""
    return ["--db", pg_url, "--redis", redis_url.rsplit("/", 1)[0]]


def bench(*args: str, timeout: float = 240) -> tuple[dict[str, Any], int]:
    """``tranque bench cluster ARGS --json``: the figures, and the process id it ran as."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tranque.cli", "bench", "cluster", *args, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out), proc.pid


def databases(services: list[str]) -> set[str]:
    """The names of the databases on the bench's PostgreSQL server."""
    import asyncpg

    async def names() -> set[str]:
        con = await asyncpg.connect(services[services.index("--db") + 1], timeout=10)
        try:
            return {r["datname"] for r in await con.fetch("SELECT datname FROM pg_database")}
        finally:
            await con.close()

    return asyncio.run(names())


def check_run(run: dict[str, Any], nodes: int, services: list[str], *, kills: bool = False) -> None:
    """What every run's figures must say: moves made, every event once, the records good."""
    assert run["nodes"] == nodes
    assert run["moves_per_second"] > 0
    assert run["latency_samples"] > 0
    assert 0 < run["latency_ms_p50"] <= run["latency_ms_p99"]
    assert 0 < run["ack_ms_p50"] <= run["ack_ms_p99"]
    assert run["errors"] == 0, run["error_codes"]
    assert run["events_lost"] == 0
    assert run["events_twice"] == 0
    assert run["players_stranded"] == 0
    assert run["games_finished"] >= 1  # flat out, a game takes a second or two
    assert run["records_failed"] == 0
    assert run["records_verified"] == run["games_finished"]
    assert sorted(run["node_cpu_ms_per_move"]) == [f"node{i + 1}" for i in range(nodes)]
    assert all(v > 0 for v in run["node_cpu_ms_per_move"].values())
    total = sum(run["node_cpu_ms_per_move"].values())
    assert run["nodes_cpu_ms_per_move"] == pytest.approx(total, abs=0.01)
    assert run["clients_cpu_ms_per_move"] > 0
    # Every table had its recipients on several nodes, when there were several (with kills,
    # a table seated while a node was down has them all on the others).
    assert run["tables_made"] >= 1
    if nodes == 1:
        assert run["tables_across_nodes"] == 0
    elif kills:
        assert 0 < run["tables_across_nodes"] <= run["tables_made"]
    else:
        assert run["tables_across_nodes"] == run["tables_made"]
    assert run["database"] not in databases(services)  # dropped at the end of its run


@pytest.mark.slow
def test_one_node_and_two_in_one_run(services: list[str]) -> None:
    before = databases(services)
    figures, pid = bench(
        "--nodes", "2", "--tables", "3", "--rate", "0", "--seconds", "2", "--warmup", "0.5",
        *services,
    )  # fmt: skip
    one, two = figures["runs"]
    check_run(one, 1, services)
    check_run(two, 2, services)
    assert figures["cpu_per_move_ratio"] == pytest.approx(
        two["nodes_cpu_ms_per_move"] / one["nodes_cpu_ms_per_move"], rel=0.01
    )
    assert figures["cpu_per_move_bar"] == 1.25
    # Each run had a database of its own (dropped: check_run); the Redis one was flushed.
    assert one["database"] != two["database"]
    assert one["database"] not in before and two["database"] not in before
    assert "redis" not in one
    _flushed(two["redis"], pid)


@pytest.mark.slow
def test_rounds_take_one_node_and_two_in_turn_and_the_median_ratio(services: list[str]) -> None:
    figures, _ = bench(
        "--nodes", "2", "--tables", "3", "--rate", "0", "--seconds", "2", "--warmup", "0.5",
        "--rounds", "3", *services,
    )  # fmt: skip
    runs = figures["runs"]
    assert [r["nodes"] for r in runs] == [1, 2, 1, 2, 1, 2]
    for run in runs:
        check_run(run, run["nodes"], services)
    ratios = [
        round(two["nodes_cpu_ms_per_move"] / one["nodes_cpu_ms_per_move"], 3)
        for one, two in zip(runs[::2], runs[1::2], strict=True)
    ]
    assert figures["cpu_per_move_ratios"] == ratios
    assert figures["cpu_per_move_ratio"] == sorted(ratios)[1]
    assert len({r["database"] for r in runs}) == 6


def _flushed(url: str, pid: int) -> None:
    import redis

    from tranque.bench.nodes import CLAIM

    with redis.Redis.from_url(url) as r:
        assert r.get(CLAIM) != str(pid).encode()  # another bench may have claimed it since


@pytest.mark.slow
@pytest.mark.parametrize("nodes", [1, 2])
def test_kill_every_kills_and_nothing_is_lost(nodes: int, services: list[str]) -> None:
    figures, _ = bench(
        "--nodes", str(nodes), "--tables", "4", "--rate", "0", "--seconds", "5",
        "--warmup", "0.5", "--kill-every", "2", *services,
    )  # fmt: skip
    assert "cpu_per_move_ratio" not in figures  # no one-node run to compare with
    (run,) = figures["runs"]
    check_run(run, nodes, services, kills=True)
    assert run["kills"] == 2  # at 2 s and 4 s, or as soon as a slow restart is done
    assert len(run["tables_owned_by_the_killed"]) == 2
    # Each kill stopped the tables in play that the dead node owned (with one node, all of
    # them); each moved again, and that is its takeover.
    assert run["tables_stopped"] >= (2 if nodes == 1 else 1)
    assert run["takeovers"] == run["tables_stopped"]
    assert run["takeovers_unresolved"] == 0
    assert 0 < run["takeover_s_p50"] <= run["takeover_s_max"] < 15
    assert run["reconnects"] >= run["takeovers"]


BAD = [
    (["--nodes", "0", "--tables", "1"], "--nodes"),
    (["--nodes", "2", "--tables", "0"], "--tables"),
    (["--nodes", "2", "--tables", "1", "--seconds", "5", "--kill-every", "5"], "--kill-every"),
    (["--nodes", "2", "--tables", "1", "--db", "sqlite:///x.db"], "--db"),
    (["--nodes", "2", "--tables", "1", "--redis", "redis://127.0.0.1/x"], "--redis"),
    (["--nodes", "2", "--tables", "1", "--rate", "-1"], "--rate"),
    (["--nodes", "2", "--tables", "1", "--rounds", "0"], "--rounds"),
    (["--nodes", "1", "--tables", "1", "--rounds", "2"], "--rounds"),
]


@pytest.mark.parametrize(("args", "says"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_value_exits_2_with_one_line(args: list[str], says: str, tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tranque.cli", "bench", "cluster", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert out.returncode == 2, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], out.stderr
    assert out.stdout == ""


def test_an_unreachable_redis_is_one_line_before_anything_starts(
    pg_url: str, tmp_path: Path
) -> None:
    cmd = ["bench", "cluster", "--nodes", "2", "--tables", "1", "--db", pg_url]
    out = subprocess.run(
        [sys.executable, "-m", "tranque.cli", *cmd, "--redis", "redis://127.0.0.1:1"],
        capture_output=True,
        text=True,
        timeout=15,  # the one-node run alone would take 23 s (--seconds 20, --warmup 3)
        cwd=tmp_path,
        check=False,
    )
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Redis at 127.0.0.1:1" in lines[0], out.stderr
    assert out.stdout == ""
