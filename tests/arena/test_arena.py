"""The arena: duplicate deals, statistics, determinism, and the command's arguments."""

from __future__ import annotations

import json
import math

import pytest

from tranque.arena.match import play_deal_pair, play_game_pair
from tranque.arena.runner import ArenaConfig, run_arena
from tranque.arena.stats import mean_interval, summarize, wilson
from tranque.cli import main
from tranque.rules.variants import HAVANA


def test_wilson_and_mean_intervals() -> None:
    p, lo, hi = wilson(58, 100)
    assert p == 0.58 and lo < 0.58 < hi
    assert abs(lo - 0.4821) < 1e-3 and abs(hi - 0.6720) < 1e-3
    assert math.isnan(wilson(0, 0)[0])
    m, lo, hi = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert m == 2.5 and lo < 2.5 < hi


def test_duplicate_deal_is_mirrored() -> None:
    # The same bot on both sides: each orientation's result is the other's mirror image.
    unit = play_deal_pair(HAVANA, "heuristic", "heuristic", 5, 3)
    first, second = unit.hands
    assert (first.points_a, first.points_b) == (second.points_b, second.points_a)


def test_game_pair_plays_to_target() -> None:
    unit = play_game_pair(HAVANA, "heuristic", "random", 1, 0)
    assert len(unit.games) == 2
    for g in unit.games:
        assert max(g.score_a, g.score_b) >= 100
        assert (g.winner == "A") == (g.score_a >= 100)


def test_same_seed_same_result_any_workers() -> None:
    one = run_arena(ArenaConfig("heuristic", "random", 6, seed=9, workers=1))
    two = run_arena(ArenaConfig("heuristic", "random", 6, seed=9, workers=2))
    s1, s2 = summarize(one, "heuristic", "random"), summarize(two, "heuristic", "random")
    assert s1["hands"] == s2["hands"]
    other = summarize(run_arena(ArenaConfig("heuristic", "random", 6, seed=10)), "h", "r")
    assert other["hands"] != s1["hands"]


def test_cli_json_and_plot(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    plot = tmp_path / "wins.svg"  # type: ignore[operator]
    code = main(
        [
            "arena",
            "heuristic",
            "random",
            "--deals",
            "4",
            "--games",
            "--seed",
            "2",
            "--workers",
            "1",
            "--json",
            "--plot",
            str(plot),
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"]["played"] == 8
    assert data["hands"]["played"] >= 8
    assert data["times"]["A"]["bot"] == "heuristic"
    assert plot.read_text().startswith("<?xml")


def test_cli_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "greedy", "random", "--deals", "3", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "hands won by greedy" in out and "tranque rate" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["arena", "nobody", "random"], "unknown bot 'nobody'"),
        (["arena", "random", "random", "--deals", "0"], "--deals must be at least 1"),
        (["arena", "random", "random", "--workers", "0"], "--workers must be at least 1"),
        (["arena", "random", "random", "--rules", "mars"], "unknown rules preset 'mars'"),
        (["arena", "random", "random", "--plot", "x.jpg"], "--plot writes .png or .svg"),
    ],
)
def test_bad_arguments_are_one_clear_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
