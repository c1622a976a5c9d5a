"""Records carry the people: ``players`` is optional, checked when read, and invisible to every
reader that does not know it (replay, verify, the analysis)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.fair.fair_games import play_fair_game
from tests.random_play import random_game

from tranque.cli import main
from tranque.rules.errors import InvalidRecordError
from tranque.rules.record import match_record, players_of, replay_game, replay_match
from tranque.rules.variants import HAVANA, MIAMI

PLAYERS = ["Anita", None, "~5c1e0f", "beto"]


@pytest.fixture(scope="module")
def fair_record() -> dict[str, Any]:
    record, _, _ = play_fair_game(HAVANA, "mesa-9", 1, max_hands=2)
    return record


def test_players_are_read_when_there_and_none_when_not() -> None:
    assert players_of({"players": PLAYERS}) == tuple(PLAYERS)
    assert players_of({"format": "tranque-game/1"}) is None
    assert players_of({"players": None}) is None


@pytest.mark.parametrize(
    "bad",
    [
        ["a", "b", "c"],  # three seats
        ["a", "b", "c", "d", "e"],
        "anita",
        {"0": "anita"},
        ["a", 7, None, None],  # not a handle
        ["a", "", None, None],  # empty
        ["a", True, None, None],
        ["a", "x" * 81, None, None],
    ],
)
def test_malformed_players_are_a_typed_error(bad: object) -> None:
    with pytest.raises(InvalidRecordError, match="'players'"):
        players_of({"players": bad})


def test_a_game_record_with_players_replays_and_verifies_as_before(
    fair_record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with_players = {**fair_record, "players": PLAYERS}
    assert replay_game(with_players) == replay_game(fair_record)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(with_players), encoding="utf-8")
    assert main(["verify", str(path)]) == 0
    assert "FAIL" not in capsys.readouterr().out
    assert main(["replay", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "tranque-game/1"


def test_a_match_record_with_players_replays_as_before() -> None:
    import random

    from tranque.rules.game import MatchState

    match = MatchState(MIAMI)
    rng = random.Random(3)
    while match.winner is None:
        match = match.add_game(random_game(MIAMI, rng))
    record = match_record(match)
    assert replay_match({**record, "players": PLAYERS}) == replay_match(record)
