"""The core's commands: replay, play and bench, through the real `tranque` entry point."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from rich.console import Console

from tranque.arena.play import play_game
from tranque.bots import make_bot
from tranque.cli import main
from tranque.rules.variants import HAVANA, ORIENTE

GOLDEN = Path(__file__).parent.parent / "golden"


def test_replay_hand_prints_the_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(GOLDEN / "ejemplo-1-pegarse.json")]) == 0
    out = capsys.readouterr().out
    assert "pegarse: seat 3 wins for pair B, 42 points" in out
    assert "98 52 00" in out


def test_replay_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--json", str(GOLDEN / "ejemplo-4-empate.json")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ended"] == "tied_tranque" and data["winner"] is None
    assert data["pips"] == [8, 8, 18, 14] and data["points"] == 0


def test_replay_rejects_an_illegal_step_with_where_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = json.loads((GOLDEN / "ejemplo-2-tranque.json").read_text())
    record["moves"][3] = "99@9"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "move 3" in err and "seat 3" in err and "99@9" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["replay", "/nonexistent.json"], "cannot read"),
        (["play", "--rules", "klondike"], "unknown rules preset"),
        (["play", "--bots", "genius"], "unknown bot"),
    ],
)
def test_bad_arguments_get_one_clear_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("rules", [HAVANA, ORIENTE])
def test_terminal_game_plays_to_the_end(rules: object) -> None:
    answers = iter(["1", "s", "n"] * 10_000)
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        if "redeal" in prompt:
            return "n"
        if "algo" in prompt:
            return "s"
        return next(answers) if "move" not in prompt else "1"

    console = Console(file=io.StringIO(), width=100)
    bots = {s: make_bot("random", s) for s in (1, 2, 3)}
    game = play_game(rules, bots, random.Random(4), console, ask)  # type: ignore[arg-type]
    assert game.is_over and game.winner is not None
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "Your hand:" in text and "Open ends:" in text
    assert any("Your move" in p for p in asked)
    assert ("Nosotros (you) win" in text) == (game.winner == 0)


def test_bench_engine_prints_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--seconds", "0.2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["checked_api_hands_per_s"] > 0
    assert figures["fast_path_hands_per_s"] > 0
    assert 20 < figures["moves_per_hand"] < 60
