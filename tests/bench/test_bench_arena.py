"""``tranque bench arena``: scripted people join an arena, play every table they are given, and
the pairing latency and games per minute are printed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.slow  # a server process, people playing for a short arena
def test_scripted_people_play_a_short_arena_and_the_latency_is_printed() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tranque.cli", "bench", "arena", "--people", "10",
         "--minutes", "0.2", "--fill-time", "1", "--json"],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout)
    assert (got["people"], got["nodes"], got["rules"]) == (10, 1, "oriente")
    # Everyone was seated at least once (ten join: two fours, then two with bots).
    assert got["seatings"] >= 10 and got["games"] >= 3
    assert got["games_per_minute"] > 0
    assert 0 <= got["pairing_p50_ms"] <= got["pairing_p99_ms"] <= got["pairing_max_ms"]
    assert 0 < got["bot_seats_share"] < 1


def test_bad_figures_are_refused() -> None:
    for args, word in ((["--people", "3"], "--people"), (["--minutes", "0"], "--minutes"),
                       (["--nodes", "0"], "--nodes")):  # fmt: skip
        out = subprocess.run(
            [sys.executable, "-m", "tranque.cli", "bench", "arena", *args],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert out.returncode == 2 and word in out.stderr, out.stderr
