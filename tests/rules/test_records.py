"""Records: every kind of bad record gets a typed error that says what and where."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tranque.rules.errors import InvalidRecordError, UnknownOptionError
from tranque.rules.record import ReplayError, load, replay_game, replay_hand
from tranque.rules.variants import BARRIO, HAVANA, Rules

GOLDEN = Path(__file__).parent.parent / "golden"


def example() -> dict:  # type: ignore[type-arg]
    return json.loads((GOLDEN / "ejemplo-1-pegarse.json").read_text())


def test_duplicated_tile_is_named() -> None:
    record = example()
    hands = record["hands"]
    first = hands[0].split()[0]
    hands[1] = " ".join([first, *hands[1].split()[1:]])
    with pytest.raises(InvalidRecordError, match=f"{first}"):
        replay_hand(record)


def test_missing_tile_is_named() -> None:
    record = example()
    sleepers = record["sleepers"].split()
    record["sleepers"] = " ".join(sleepers[1:])
    with pytest.raises(InvalidRecordError, match=f"leaves out tiles: {sleepers[0]}"):
        replay_hand(record)


def test_short_hand() -> None:
    record = example()
    record["hands"][2] = " ".join(record["hands"][2].split()[:-1])
    with pytest.raises(InvalidRecordError, match="seat 2 holds 9 tiles"):
        replay_hand(record)


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ("havanna", "unknown rules preset 'havanna'"),
        ({"targett": 50}, "unknown rules option 'targett'"),
        ({"first_leader": "dice"}, "first_leader='dice' is not one of"),
        ({"target": "100"}, "must be an integer"),
        ({"max_pip": 8}, "max_pip must be 6 or 9"),
    ],
)
def test_unknown_options(rules: object, message: str) -> None:
    record = example()
    record["rules"] = rules
    with pytest.raises(UnknownOptionError, match=message):
        replay_hand(record)


def test_rules_objects_round_trip() -> None:
    custom = Rules(target=150, capicua_multiplier=2)
    assert Rules.from_json(custom.to_json()) == custom
    assert Rules.from_json({"preset": "barrio"}) == BARRIO
    assert HAVANA.to_json() == "havana"


def test_illegal_step_gives_move_seat_and_reason() -> None:
    record = example()
    record["moves"][5] = "pass"
    with pytest.raises(ReplayError) as info:
        replay_hand(record)
    err = info.value
    assert err.move == 5 and err.seat == (record["leader"] + 5) % 4
    assert "must play" in err.reason


def test_moves_after_the_end_are_rejected() -> None:
    record = example()
    record["moves"].append("pass")
    with pytest.raises(ReplayError, match="after the hand ended"):
        replay_hand(record)


@pytest.mark.parametrize(
    "text", ["", "{", "[]", '{"format": "chess"}', '{"format": "tranque-hand/1"}']
)
def test_not_a_record(text: str) -> None:
    with pytest.raises(InvalidRecordError):
        replay_hand(load(text))


def test_game_record_checks_who_led() -> None:
    from tests.rules.test_properties import Script, play_game
    from tranque.rules.record import game_record

    record = game_record(play_game(Script("havana", (tuple(range(55)),), (3, 1, 4)), check=False))
    bad = copy.deepcopy(record)
    bad["hands"][0]["leader"] = (bad["hands"][0]["leader"] + 1) % 4
    with pytest.raises(ReplayError, match="led"):
        replay_game(bad)
    bad = copy.deepcopy(record)
    bad["hands"][0]["setup"]["draw"] = [["99", "00"], ["11", "22"]]
    with pytest.raises(ReplayError, match="draw"):
        replay_game(bad)
