"""``tranque tournament pair | standings | simulate``: the JSON shapes other tools read, bad
input as one line and exit 2, and whole tournaments of bots whose files the other two commands
read back (the standings they print are the simulation's; each table's points are its
record's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tranque.cli import main
from tranque.rules.record import replay_game

EXAMPLE = {
    "format": "tranque-tournament/1", "kind": "swiss-pairs", "rules": "havana", "target": 100,
    "minutes": None, "rounds": 2,
    "entrants": [{"id": "p1", "players": ["ana", "beto"], "rating": 1620, "withdrawn": False},
                 {"id": "p2", "players": ["cuca", "dani"], "rating": 1500},
                 {"id": "p3", "players": ["eva", "fito"], "rating": 1550}],
    "played": [{"round": 1, "byes": ["p2"],
                "tables": [{"a": "p1", "b": "p3", "points": [108, 45], "winner": "a",
                            "forfeit": False, "record": "t8Zk"}]}],
}  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 and "--json" in argv else out), err


def _file(tmp_path: Path, data: Any, name: str = "t.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_pair_and_standings_print_the_fixed_shapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path, EXAMPLE)
    code, out, _ = _run(capsys, "tournament", "pair", path, "--json")
    # p1 (a win) and p2 (a bye: a win) meet; p3 had no bye and is the lowest: it sits out.
    assert code == 0 and out == {"round": 2, "tables": [{"a": "p1", "b": "p2"}], "byes": ["p3"]}
    code, out, _ = _run(capsys, "tournament", "standings", path, "--json")
    assert code == 0
    assert out == {"standings": [
        {"rank": 1, "id": "p1", "wins": 1, "points_for": 108, "points_against": 45,
         "difference": 63, "buchholz": 0, "byes": 0},
        {"rank": 2, "id": "p2", "wins": 1, "points_for": 0, "points_against": 0,
         "difference": 0, "buchholz": 0, "byes": 1},
        {"rank": 3, "id": "p3", "wins": 0, "points_for": 45, "points_against": 108,
         "difference": -63, "buchholz": 1, "byes": 0},
    ]}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: d.update(format="tranque-game/1"), "format"),
        (lambda d: d["entrants"].append(dict(d["entrants"][0])), "listed twice"),
        (lambda d: d["played"][0]["tables"][0].update(b="p9"), "unknown entrant 'p9'"),
        (lambda d: d["played"][0].update(byes=["p1"]), "appears twice"),
        (lambda d: d.update(rounds=1), "all 1 rounds are played"),
        (lambda d: d["entrants"][0].update(id=7), "not a tournament file"),
        (lambda d: [e.update(withdrawn=True) for e in d["entrants"][1:]], "nobody to pair"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, said: str
) -> None:
    data = json.loads(json.dumps(EXAMPLE))
    change(data)
    code, out, err = _run(capsys, "tournament", "pair", _file(tmp_path, data), "--json")
    assert code == 2 and out == ""
    assert said in err and len(err.strip().splitlines()) == 1, err


def test_not_json_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.json"
    path.write_text("{nope")
    code, _, err = _run(capsys, "tournament", "standings", str(path))
    assert code == 2 and "not JSON" in err and len(err.strip().splitlines()) == 1


def test_a_simulated_swiss_reads_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "simulate", "--kind", "swiss-pairs", "--entrants", "7",
            "--rounds", "4", "--target", "50", "--bots", "facil", "--seed", "3",
            "--json"]  # fmt: skip
    code, sim, _ = _run(capsys, *argv)
    assert code == 0 and sim["kind"] == "swiss-pairs" and len(sim["played"]) == 4
    for r in sim["played"]:
        assert len(r["byes"]) == 1 and len(r["tables"]) == 3  # seven pairs: one sits out
        for tb in r["tables"]:
            game = replay_game(sim["records"][tb["record"]])
            assert list(game.scores) == tb["points"] and game.is_over
            assert tb["winner"] == "ab"[game.winner]
    assert len({b for r in sim["played"] for b in r["byes"]}) == 4  # never the same bye twice
    path = _file(tmp_path, sim)
    code, out, _ = _run(capsys, "tournament", "standings", path, "--json")
    assert code == 0 and out["standings"] == sim["standings"]
    code, _, err = _run(capsys, "tournament", "pair", path, "--json")
    assert code == 2 and "all 4 rounds are played" in err


def test_a_simulated_arena_reads_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "simulate", "--kind", "arena", "--entrants", "9", "--minutes", "40",
            "--target", "50", "--bots", "facil", "--seed", "5", "--json"]  # fmt: skip
    code, sim, _ = _run(capsys, *argv)
    assert code == 0 and sim["kind"] == "arena" and "played" not in sim
    ended = [g["ended"] for g in sim["games"]]
    assert ended == sorted(ended) and len(ended) >= 9
    # Nine people: a table of four, another of four, one waits his fill time then plays bots.
    assert any(g["seats"].count(None) == 3 for g in sim["games"])
    starts = {g["table"]: g["ended"] for g in sim["games"]}
    assert len(starts) == len(sim["records"])
    for g in sim["games"]:
        game = replay_game(sim["records"][g["table"]])
        assert list(game.scores) == g["points"] and g["winner"] == "ab"[game.winner]
    path = _file(tmp_path, sim)
    code, out, _ = _run(capsys, "tournament", "standings", path, "--json")
    assert code == 0 and out["standings"] == sim["standings"]
    assert {"score", "wins"} <= set(out["standings"][0])


def test_a_capped_simulation_records_the_time_cap(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "simulate", "--kind", "swiss-pairs", "--entrants", "6", "--rounds", "2"]
    argv += ["--minutes", "3", "--target", "100", "--bots", "facil", "--seed", "5", "--json"]
    code, sim, _ = _run(capsys, *argv)
    assert code == 0
    capped = 0
    for r in sim["played"]:
        for t in r["tables"]:
            record = sim["records"][t["record"]]
            a, b = t["points"]
            if "time_cap" in record:  # ended by the cap: short of the target, the pair ahead won
                capped += 1
                assert max(a, b) < 100 and a != b
                assert record["time_cap"] == {"seconds": 180.0, "winner": t["winner"].upper()}
            else:
                assert max(a, b) >= 100
    assert capped > 0
