"""verify: an honest record passes every check; each kind of tampering is caught and named."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from fair_games import SERVER_SEED, play_fair_game

from tranque.fair.recipe import client_commit, deal_for, deal_key
from tranque.fair.seeds import SeatKind, hand_fairness
from tranque.fair.verify import Check, verify_record
from tranque.rules.errors import InvalidRecordError
from tranque.rules.hand import HandState
from tranque.rules.record import hand_record, replay_game
from tranque.rules.variants import HAVANA, MIAMI, ORIENTE, Rules


def failed(checks: list[Check]) -> list[Check]:
    return [c for c in checks if not c.ok]


def one_failure(checks: list[Check], name_part: str) -> Check:
    """The single failed check, which must be the one named."""
    bad = failed(checks)
    assert len(bad) == 1 and name_part in bad[0].name, bad
    return bad[0]


@pytest.fixture(scope="module")
def havana_game() -> dict[str, Any]:
    """A whole Havana game at table mesa-1 from hand 15 (vector 1: seat 2 asks for a redeal)."""
    record, _, _ = play_fair_game(HAVANA, "mesa-1", 15)
    return json.loads(json.dumps(record))


def test_an_honest_game_passes(havana_game: dict[str, Any]) -> None:
    checks = verify_record(havana_game)
    assert not failed(checks)
    names = [c.name for c in checks]
    assert "hand 1: server seed matches its commitment" in names
    assert "hand 1: seat 0 client seed matches its commitment" in names
    assert "hand 1: seat 2 contributes the empty seed (bot)" in names
    assert "hand 1: redeal 1: the asking seat held 5+ doubles" in names
    assert "hand 1: deal (attempt 1) matches the hands in the record" in names
    assert any(n.startswith("hand 1: first-hand draw") for n in names)
    replay_game(havana_game)  # the record is also one the rules accept


def test_the_redeal_is_vector_1(havana_game: dict[str, Any]) -> None:
    first = havana_game["hands"][0]
    assert first["setup"]["redeals"][0]["asked_by"] == 2
    assert first["setup"]["redeals"][0]["hands"][2] == "88 77 76 94 74 33 42 22 21 11"
    assert first["fairness"]["attempts"] == 2


@pytest.mark.parametrize("rules", [MIAMI, ORIENTE], ids=lambda r: r.name)
def test_other_rules_pass(rules: Rules) -> None:
    record, _, _ = play_fair_game(rules, "mesa-x", 3, max_hands=3)
    assert not failed(verify_record(record))
    if rules is MIAMI:
        assert record["hands"][0]["setup"]["coin"] in (0, 1)


def test_the_tied_draw_of_vector_2() -> None:
    record, _, _ = play_fair_game(HAVANA, "mesa-6", 1, max_hands=1)
    assert record["hands"][0]["setup"]["draw"] == [["60", "33"], ["64", "42"]]
    checks = verify_record(record)
    assert not failed(checks)
    assert any(c.name == "hand 1: first-hand draw (2 attempt(s))" for c in checks)


# --------------------------------------------------------------------------------------------
# Tampering


def test_an_altered_tile_is_named(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    hands = game["hands"][1]["hands"]
    a, b = hands[0].split()[0], hands[1].split()[0]
    hands[0] = hands[0].replace(a, b, 1)
    hands[1] = hands[1].replace(b, a, 1)
    bad = one_failure(verify_record(game), "hand 2: deal")
    assert f"seat 0: the record has {b} where the recipe deals {a}" in bad.detail
    assert f"seat 1: the record has {a} where the recipe deals {b}" in bad.detail


def test_an_altered_sleeper_is_named(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    hand = game["hands"][2]
    tile = hand["sleepers"].split()[0]
    hand["sleepers"] = " ".join(hand["sleepers"].split()[1:])
    bad = one_failure(verify_record(game), "hand 3: deal")
    assert f"sleepers: the record has nothing where the recipe deals {tile}" in bad.detail


def test_an_altered_server_seed_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    f = game["hands"][1]["fairness"]
    f["server_seed"] = "ff" + f["server_seed"][2:]
    bad = failed(verify_record(game))
    assert [c.name for c in bad] == [
        "hand 2: server seed matches its commitment",
        "hand 2: deal (attempt 0) matches the hands in the record",
    ]


def test_an_altered_server_commitment_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    f = game["hands"][0]["fairness"]
    f["server_commit"] = f["server_commit"][:-1] + ("0" if f["server_commit"][-1] != "0" else "1")
    bad = one_failure(verify_record(game), "hand 1: server seed")
    assert "the commitment" in bad.detail


def test_an_altered_client_seed_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    f = game["hands"][2]["fairness"]
    f["client_seeds"][3] = "00" + f["client_seeds"][3][2:]
    names = [c.name for c in failed(verify_record(game))]
    assert names == [
        "hand 3: seat 3 client seed matches its commitment",
        "hand 3: deal (attempt 0) matches the hands in the record",
    ]


def test_an_altered_client_commitment_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    game["hands"][1]["fairness"]["client_commits"][0] = client_commit(b"x" * 32)
    one_failure(verify_record(game), "hand 2: seat 0 client seed matches its commitment")


def test_a_seed_dropped_from_the_key_is_caught(havana_game: dict[str, Any]) -> None:
    """The server calls a person a timeout to leave their seed out: the deal no longer matches."""
    game = copy.deepcopy(havana_game)
    f = game["hands"][1]["fairness"]
    f["seat_status"][1] = "timeout"
    f["client_seeds"][1] = ""
    names = [c.name for c in failed(verify_record(game))]
    assert names == ["hand 2: deal (attempt 0) matches the hands in the record"]


def test_a_bot_seat_with_a_seed_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    game["hands"][0]["fairness"]["client_seeds"][2] = "ab" * 32
    bad = failed(verify_record(game))
    assert bad[0].name == "hand 1: seat 2 contributes the empty seed (bot)"


def test_an_unjustified_redeal_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    game["hands"][0]["setup"]["redeals"][0]["asked_by"] = 1  # seat 1 held no double
    bad = one_failure(verify_record(game), "the asking seat held 5+ doubles")
    assert bad.detail.startswith("seat 1 held 0 doubles")


def test_a_hidden_redeal_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    game["hands"][0]["setup"]["redeals"] = []
    names = [c.name for c in failed(verify_record(game))]
    assert names == ["hand 1: attempts count the deals"]


def test_an_altered_thrown_in_deal_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    redeal = game["hands"][0]["setup"]["redeals"][0]
    redeal["hands"][2], redeal["hands"][0] = redeal["hands"][0], redeal["hands"][2]
    names = [c.name for c in failed(verify_record(game))]
    assert names == ["hand 1: redeal 1: the deal thrown in is attempt 0"]


def test_an_altered_draw_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    setup = game["hands"][0]["setup"]
    setup["draw"] = [["99", "00"]]
    one_failure(verify_record(game), "first-hand draw")
    setup["draw"] = None
    one_failure(verify_record(game), "first-hand draw")


def test_a_wrong_leading_pair_after_the_draw_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    setup = game["hands"][0]["setup"]
    setup["leading_pair"] ^= 1
    one_failure(verify_record(game), "the draw gives the lead")


def test_an_altered_coin_is_caught() -> None:
    record, _, _ = play_fair_game(MIAMI, "mesa-m", 1, max_hands=1)
    setup = record["hands"][0]["setup"]
    setup["coin"] ^= 1
    setup["leading_pair"] ^= 1
    one_failure(verify_record(record), "coin")


def test_a_reused_hand_number_is_caught(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    game["hands"][2] = copy.deepcopy(game["hands"][1])
    game["hands"][2]["number"] = 3
    bad = one_failure(verify_record(game), "never reused")
    assert "hands 15, 16, 16" in bad.detail


def test_a_missing_or_malformed_fairness_section(havana_game: dict[str, Any]) -> None:
    game = copy.deepcopy(havana_game)
    del game["hands"][1]["fairness"]
    one_failure(verify_record(game), "hand 2: fairness section present")
    game["hands"][1]["fairness"] = {"table_id": "mesa-1"}
    one_failure(verify_record(game), "hand 2: fairness section well formed")


def test_not_a_record() -> None:
    with pytest.raises(InvalidRecordError, match="unknown record format"):
        verify_record({"format": "something"})
    with pytest.raises(InvalidRecordError):
        verify_record([1, 2])


# --------------------------------------------------------------------------------------------
# A lone hand record (no setup): redeals are recomputed from the key


SEEDS = [bytes(range(32, 64)), bytes(range(64, 96)), None, bytes(range(96, 128))]
KINDS = [SeatKind.PERSON, SeatKind.PERSON, SeatKind.BOT, SeatKind.PERSON]


def _hand_record(
    attempts: int,
    table: str = "mesa-1",
    number: int = 15,
    revealed: list[bytes | None] = SEEDS,
) -> dict[str, Any]:
    commits = [None if s is None else client_commit(s) for s in SEEDS]
    f = hand_fairness(table, number, SERVER_SEED, KINDS, commits, revealed, attempts=attempts)
    deal = deal_for(f.key, HAVANA, attempts - 1)
    hand = HandState.start(HAVANA, deal, leader=0)
    return json.loads(json.dumps(hand_record(hand, fairness=f.to_json())))


def test_seats_that_contribute_nothing_pass() -> None:
    # Seat 0 reveals a seed that does not match; seat 1 never reveals.
    record = _hand_record(1, revealed=[b"\x00" * 32, None, None, SEEDS[3]])
    checks = verify_record(record)
    assert not failed(checks)
    assert record["fairness"]["seat_status"] == ["mismatch", "timeout", "bot", "revealed"]
    assert "seat 0 contributes the empty seed (mismatch)" in [c.name for c in checks]


def test_a_false_mismatch_is_caught() -> None:
    """A server that calls a good seed a mismatch, to leave it out, is caught by its own record."""
    record = _hand_record(1, revealed=[b"\x00" * 32, *SEEDS[1:]])
    record["fairness"]["rejected_seeds"][0] = SEEDS[0].hex()
    bad = one_failure(verify_record(record), "seat 0 contributes the empty seed (mismatch)")
    assert "does match its commitment" in bad.detail


def test_a_lone_hand_record_with_a_redeal() -> None:
    record = _hand_record(attempts=2)
    checks = verify_record(record)
    assert not failed(checks)
    redeal = next(c for c in checks if c.name == "redeal after attempt 0 was allowed")
    assert redeal.detail.startswith("seat 2 held 5 doubles")


def test_a_lone_hand_record_with_an_unjustified_redeal() -> None:
    # Hand 16 of mesa-1: nobody holds five doubles at attempt 0.
    key = deal_key(
        SERVER_SEED,
        "mesa-1",
        16,
        [bytes(range(32, 64)), bytes(range(64, 96)), b"", bytes(range(96, 128))],
    )
    assert max(deal_for(key, HAVANA, 0).doubles(s) for s in range(4)) < 5
    record = _hand_record(attempts=2, number=16)
    one_failure(verify_record(record), "redeal after attempt 0 was allowed")


def test_a_forged_huge_attempt_count_is_refused_quickly() -> None:
    record = _hand_record(attempts=1)
    record["fairness"]["attempts"] = 2**40
    bad = failed(verify_record(record))
    # Attempt 0 gave seat 2 five doubles; attempt 1 gave nobody the right: the count stops there.
    assert [c.name for c in bad] == [
        "redeal after attempt 1 was allowed",
        f"deal (attempt {2**40 - 1}) matches the hands in the record",
    ]
    assert "u32" in bad[-1].detail


# --------------------------------------------------------------------------------------------
# Robustness: no value in a record can make verify crash


def _paths(node: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*path, i))
    return out


def _replaced(record: Any, path: tuple[object, ...], value: object) -> Any:
    record = copy.deepcopy(record)
    if not path:
        return value
    node = record
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return record


WEIRD: list[object] = [None, True, -1, 0, 2**40, 1.5, "", "zz", "\ud800", [], {}, [None] * 4]


def test_no_value_makes_verify_crash(havana_game: dict[str, Any]) -> None:
    """Replace every value of a 1-hand game record by odd ones: a named check fails or the
    record is refused as malformed, never an unexpected exception."""
    game = copy.deepcopy(havana_game)
    game["hands"] = game["hands"][:1]
    for path in _paths(game):
        for value in WEIRD:
            try:
                checks = verify_record(_replaced(game, path, value))
            except InvalidRecordError:
                continue
            assert all(isinstance(c, Check) for c in checks)
