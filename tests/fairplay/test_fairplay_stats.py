"""The screen's statistics on plain sums: the JSON's shape, who is grouped with whom, the
minimum decisions before a flag, the z-scores, the population's null; and the command's bad
input (exit 2, one line)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from tranque.cli import main
from tranque.fairplay import stats
from tranque.fairplay.stats import (
    BOTS,
    MIN_DECISIONS,
    MIN_EDGE_DECISIONS,
    MIN_PARTNER_DECISIONS,
    Z_FLAG,
    report,
)

PERSON_KEYS = {
    "id", "games", "decisions", "loss_per_decision", "top_choice_rate", "z_strength", "flag",
    "reasons",
}  # fmt: skip
PAIR_KEYS = {"ids", "games", "decisions", "hindsight_edge", "z_edge", "flag", "reasons"}


def seat(
    n: int,
    loss: float,
    m: int,
    hind: float,
    top: int | None = None,
    gain: float = 0.0,
    pgain: float | None = None,
) -> dict[str, Any]:
    """A seat's sums over a game: ``hind`` and ``gain`` are the sums of its exact decisions'
    hindsight and fair gains, ``pgain`` of its partner-informed gains (``screen``); by default
    exactly what honest play gains."""
    return {
        "decisions": n,
        "loss": loss,
        "top": n // 2 if top is None else top,
        "edge_decisions": m,
        "edge": hind - gain,
        "hind": hind,
        "gain": gain,
        "gain2": gain * gain / max(1, m),
        "cross": hind * gain / max(1, m),
        "pgain": pgain if pgain is not None else BOTS.partner_alpha * n,
        "fgain": 0.0,
        "fgain2": 0.0,
        "pcross": 0.0,
    }


def honest_seat(rng: random.Random, n: int = 25, m: int = 12) -> dict[str, Any]:
    """A seat's game drawn as honest play is calibrated: the sums' means and variances."""
    loss = BOTS.loss_strong * 1.2 * n + rng.gauss(0, math.sqrt(BOTS.loss_phi * n))
    gain = rng.gauss(2.0 * m, math.sqrt(10.0 * m))
    hind = BOTS.edge_alpha * m + BOTS.edge_beta * gain
    hind += rng.gauss(0, math.sqrt(BOTS.edge_phi * m / 2))
    out = seat(n, max(0.0, loss), m, hind, gain=gain)
    for _ in range(n):  # decision by decision: p = alpha + beta x + noise
        x = rng.gauss(1.5, 3.0)
        p = BOTS.partner_alpha + BOTS.partner_beta * x + rng.gauss(0, math.sqrt(BOTS.partner_phi))
        out["fgain"] += x
        out["fgain2"] += x * x
        out["pgain"] += p - BOTS.partner_alpha  # seat() put alpha * n in already
        out["pcross"] += x * p
    return out


def game(players: list[str | None], seats: list[dict[str, Any]]) -> dict[str, Any]:
    return {"players": players, "seats": seats, "cpu_seconds": 0.1}


def test_the_json_has_the_issues_shape_and_groups_by_players() -> None:
    s = seat(20, 30.0, 10, 5.0, top=12)
    games = [
        game(["beto", "carla", "ana", None], [s, s, s, s]),
        game(["ana", "dani", "beto", "carla"], [s, s, s, s]),
    ]
    out = report(games)
    assert out["format"] == "tranque-fairplay/1"
    assert [p["id"] for p in out["people"]] == ["ana", "beto", "carla", "dani"]
    for p in out["people"]:
        assert set(p) >= PERSON_KEYS
    ana = out["people"][0]
    assert ana["games"] == 2 and ana["decisions"] == 40
    assert ana["loss_per_decision"] == 1.5 and ana["top_choice_rate"] == 0.6
    # Partners: ana and beto twice (sorted ids); carla and dani once; carla beside a bot never.
    assert [(p["ids"], p["games"]) for p in out["partnerships"]] == [
        (["ana", "beto"], 2),
        (["carla", "dani"], 1),
    ]
    for p in out["partnerships"]:
        assert set(p) >= PAIR_KEYS
    assert out["partnerships"][0]["decisions"] == 80
    assert out["partnerships"][0]["hindsight_edge"] == pytest.approx(
        0.5 - BOTS.edge_alpha, abs=1e-3
    )
    assert out["partnerships"][0]["hindsight_minus_fair_gain"] == 0.5
    json.dumps(out)  # plain JSON


def test_a_partnership_is_flagged_only_past_the_minimum_of_exact_decisions() -> None:
    gain = BOTS.edge_alpha + 10.0  # far past honest play's hindsight gain
    per_game = 10
    few = (MIN_EDGE_DECISIONS - 1) // (2 * per_game)  # two seats a game
    enough = MIN_EDGE_DECISIONS // (2 * per_game) + 1
    quiet = seat(20, 40.0, 10, BOTS.edge_alpha * 10)

    def run(n_games: int) -> dict[str, Any]:
        loud = seat(20, 40.0, per_game, gain * per_game)
        games = [game(["a", "x", "b", "y"], [loud, quiet, loud, quiet])] * n_games
        return {tuple(p["ids"]): p for p in report(games)["partnerships"]}

    short = run(few)[("a", "b")]
    assert short["z_edge"] >= Z_FLAG and short["flag"] is False and short["reasons"] == []
    long = run(enough)
    assert long[("a", "b")]["flag"] is True
    assert long[("a", "b")]["reasons"] == ["hindsight_edge"]
    assert long[("x", "y")]["flag"] is False and abs(long[("x", "y")]["z_edge"]) < 1e-6


def test_a_partnership_that_gains_with_its_partners_tiles_is_flagged_past_the_minimum() -> None:
    n = 25  # decisions a seat a game
    gain = 2.0  # points a decision beyond what honest play gains with the partner's tiles

    def run(n_games: int) -> dict[str, Any]:
        loud = seat(n, 50.0, 5, BOTS.edge_alpha * 5, pgain=(BOTS.partner_alpha + gain) * n)
        quiet = seat(n, 50.0, 5, BOTS.edge_alpha * 5)
        games = [game(["a", "x", "b", "y"], [loud, quiet, loud, quiet])] * n_games
        return {tuple(p["ids"]): p for p in report(games)["partnerships"]}

    short = run((MIN_PARTNER_DECISIONS - 1) // (2 * n))
    assert short[("a", "b")]["flag"] is False
    long = run(MIN_PARTNER_DECISIONS // (2 * n) + 1)
    assert long[("a", "b")]["reasons"] == ["partner_edge"]
    assert long[("a", "b")]["partner_edge"] == pytest.approx(gain, abs=1e-3)
    assert long[("x", "y")]["flag"] is False and abs(long[("x", "y")]["z_partner"]) < 1e-6


def test_the_edge_z_score_is_the_ratio_estimator() -> None:
    s = seat(10, 20.0, 8, 8 * BOTS.edge_alpha + BOTS.edge_beta * 5.0 + 12.0, gain=5.0)
    out = report([game(["a", None, "b", None], [s, s, s, s])])
    [pair] = out["partnerships"]
    # Two seats: 2 x 12 points past honest play over 16 decisions; the variance is the sampling
    # noise and the calibrated line's own uncertainty at the pair's fair gain (10 / 16).
    bias = stats.line_var(BOTS.edge_phi, BOTS.edge_tau, BOTS.edge_fit, 10.0 / 16)
    assert bias > 0
    expected = 24.0 / math.sqrt(BOTS.edge_phi * 16 + bias * 16 * 16)
    assert pair["z_edge"] == pytest.approx(expected, abs=1e-3)


def test_a_person_stronger_than_the_strong_bot_is_flagged_past_the_minimum() -> None:
    n = 30
    sharp = seat(n, 0.0, 0, 0.0, top=n)  # never loses a point against the fair evaluation
    usual = seat(n, BOTS.loss_strong * n, 0, 0.0)
    games = [game(["cheat", "p", "q", "r"], [sharp, usual, usual, usual])] * (
        MIN_DECISIONS // n + 1
    )
    people = {p["id"]: p for p in report(games)["people"]}
    assert people["cheat"]["flag"] is True
    assert "stronger_than_the_strong_bot" in people["cheat"]["reasons"]
    assert people["cheat"]["top_choice_rate"] == 1.0
    assert not any(people[w]["flag"] for w in "pqr")
    short = report(games[:2])["people"]
    assert not any(p["flag"] for p in short)


def test_a_person_suddenly_stronger_is_flagged() -> None:
    n = 30
    weak = seat(n, 3.0 * BOTS.loss_strong * n, 0, 0.0)
    sharp = seat(n, 0.3 * BOTS.loss_strong * n, 0, 0.0)
    usual = seat(n, 3.0 * BOTS.loss_strong * n, 0, 0.0)
    k = MIN_DECISIONS // n
    games = [game(["ana", "p", "q", "r"], [weak, usual, usual, usual])] * k
    games += [game(["ana", "p", "q", "r"], [sharp, usual, usual, usual])] * k
    ana = report(games)["people"][0]
    assert ana["z_sudden"] >= Z_FLAG and "suddenly_stronger" in ana["reasons"]


def test_honest_sums_are_not_flagged_and_the_population_only_widens_the_null() -> None:
    rng = random.Random(5)
    games = []
    for g in range(60):
        pairs = [(f"h{i}", f"k{i}") for i in range(30)]
        a, b = pairs[g % 30]
        c, d = pairs[(g + 7) % 30]
        games.append(game([a, c, b, d], [honest_seat(rng, 80, 20) for _ in range(4)]))
    out = report(games)
    assert not any(p["flag"] for p in out["people"] + out["partnerships"])
    cal = out["calibration"]
    assert cal["source"] == "bots+population"
    for centre, spread in cal["population"].values():
        assert centre >= 0 and spread >= 1


# --------------------------------------------------------------------------------------------
# The command's bad input: exit 2, one line


def bad_files(tmp_path: Path) -> dict[str, str]:
    hand = Path(__file__).parents[1] / "golden" / "ejemplo-1-pegarse.json"
    cases = {
        "not-json": "{",
        "not-a-record": '{"format": "tranque-chess/1"}',
        "array": "[1, 2]",
        "players": json.dumps(
            {"format": "tranque-game/1", "rules": "havana", "hands": [], "players": ["a"]}
        ),
        "replay": json.dumps(
            {
                "format": "tranque-game/1",
                "rules": "havana",
                "hands": [{"number": 1}],
                "players": ["a", "b", "c", "d"],
            }
        ),
    }
    out = {"hand": str(hand)}
    for name, text in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text, encoding="utf-8")
        out[name] = str(path)
    out["missing"] = str(tmp_path / "nothing-here.json")
    return out


@pytest.mark.parametrize(
    "case", ["not-json", "not-a-record", "array", "players", "replay", "hand", "missing"]
)
def test_bad_input_is_one_line_and_exit_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = bad_files(tmp_path)[case]
    assert main(["fairplay", "screen", path]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    assert captured.err.startswith("tranque fairplay: error: ")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--db", "sqlite:////nonexistent/dir/x.db"],
        ["--db", "mysql://x/y"],
        ["--db", "not a url"],
        ["--workers", "0", "x.json"],
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fairplay", "screen", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err


def test_a_database_without_the_tables_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    db = tmp_path / "empty.db"
    sqlite3.connect(db).close()
    assert main(["fairplay", "screen", "--db", f"sqlite:///{db}"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "finished games" in err, err


def test_stats_module_constants_are_sane() -> None:
    assert stats.Z_FLAG > 3.0 and stats.MIN_EDGE_DECISIONS >= 100


# --------------------------------------------------------------------------------------------
# bench fairplay's table, on synthetic games


def synthetic_game(pair: str, opponents: str, rng: random.Random, edge: float) -> dict[str, Any]:
    from tranque.fairplay.measure import OPPONENTS, PAIRS

    a, b = PAIRS[pair]
    c, d = OPPONENTS[opponents] if pair not in measure_honest() else PAIRS[opponents]
    sums = [honest_seat(rng, 25, 12) for _ in range(4)]
    for s in (0, 2):
        sums[s]["hind"] += edge * sums[s]["edge_decisions"]
        sums[s]["edge"] += edge * sums[s]["edge_decisions"]
    return {
        "pair": pair,
        "opponents": opponents,
        "seats": [a, c, b, d],
        "sums": sums,
        "screen_cpu": 0.2,
        "play_cpu": 1.0,
        "hands": 4,
    }


def measure_honest() -> tuple[str, ...]:
    from tranque.fairplay.measure import HONEST

    return HONEST


def test_the_bench_table_flags_colluders_and_spares_honest_pairs() -> None:
    from tranque.fairplay.measure import lines, summarise

    rng = random.Random(9)
    games = [synthetic_game(k, "heuristic" if k == "mixed" else k, rng, 0.0)
             for k in measure_honest() for _ in range(120)]  # fmt: skip
    games += [synthetic_game("all-seers", "strong", rng, 8.0) for _ in range(30)]
    result = summarise(games, 30, 30, 1, 200)
    rows = {(r["pair"], r["opponents"]): r for r in result["rows"]}
    seers = rows[("all-seers", "strong")]
    assert seers["flag_20"] == seers["flag_100"] == 1.0
    for kind in measure_honest():
        honest = rows[(kind, "heuristic" if kind == "mixed" else kind)]
        # A pool's own mean drawn again and again: a resampled 100 games carry the pool's
        # deviation whole, so strength flags are pessimistic here; the edge's are not.
        assert honest["edge_flag_100"] <= 0.02 and honest["flag_20"] <= 0.05, honest
    text = "\n".join(lines(result))
    assert "all-seers" in text and "N=100" in text


@pytest.mark.parametrize(
    "argv", [["--honest", "0"], ["--colluding", "-1"], ["--samples", "0"], ["--workers", "99"]]
)
def test_bench_fairplay_bad_arguments_are_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "fairplay", *argv]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
