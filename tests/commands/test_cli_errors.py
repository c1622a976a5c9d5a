"""Bad input to the commands ends in one line on stderr and exit 2, never a traceback.

Each case of issue 10 has its test here, through the real entry point (``tranque.cli.main``);
then a fuzz test mutates real records at random and replays them.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tranque.cli import main
from tranque.rules.dealing import deal_next
from tranque.rules.game import GameState, LeadChoice, Phase
from tranque.rules.record import game_record, match_record
from tranque.rules.variants import HAVANA, MIAMI, Rules

GOLDEN = Path(__file__).parent.parent / "golden"
HAND_RECORDS = sorted(GOLDEN.glob("ejemplo-*.json"))


def played_game(rules: Rules, seed: int, hands: int | None = None) -> GameState:
    """A game of random legal moves (the whole game, or its first ``hands`` hands)."""
    rng = random.Random(seed)
    game = GameState.new(rules)
    while not game.is_over and (hands is None or len(game.played) < hands):
        if game.phase is Phase.DEAL:
            game = deal_next(game, rng)
        elif game.phase is Phase.REDEAL:
            game = game.answer_redeal(game.redeal_eligible()[0], rng.random() < 0.3)
        elif game.phase is Phase.CHOOSE:
            game = game.choose_leader(rng.choice(list(LeadChoice)), None)
        else:
            game = game.play(rng.choice(game.legal_actions()))
    return game


def run(args: list[str]) -> tuple[int, str, str]:
    """``tranque ARGS`` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:  # argparse's own exits (--help, usage errors)
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def assert_one_line(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, err


def write(tmp_path: Path, data: object, name: str = "record.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


@pytest.fixture(scope="module")
def havana_game() -> dict[str, Any]:
    return game_record(played_game(HAVANA, 5, hands=2))


@pytest.fixture(scope="module")
def miami_game() -> dict[str, Any]:
    return game_record(played_game(MIAMI, 3, hands=1))


def test_redeals_given_as_a_number(tmp_path: Path, havana_game: dict[str, Any]) -> None:
    bad = copy.deepcopy(havana_game)
    bad["hands"][0]["setup"]["redeals"] = 3
    code, _, err = run(["replay", write(tmp_path, bad)])
    assert_one_line(code, err, "'redeals' must be a list, not 3")


def test_a_redeal_that_is_not_an_object(tmp_path: Path, havana_game: dict[str, Any]) -> None:
    bad = copy.deepcopy(havana_game)
    bad["hands"][0]["setup"]["redeals"] = [7]
    code, _, err = run(["replay", write(tmp_path, bad)])
    assert_one_line(code, err, "redeal 0: must be an object")


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_deeply_nested_json(tmp_path: Path, command: str) -> None:
    code, _, err = run([command, write(tmp_path, "[" * 100_000 + "]" * 100_000)])
    assert_one_line(code, err, "nested too deeply")


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_an_integer_of_5000_digits_anywhere(
    tmp_path: Path, command: str, havana_game: dict[str, Any]
) -> None:
    text = json.dumps(havana_game).replace('"moves"', '"x": ' + "7" * 5000 + ', "moves"', 1)
    code, _, err = run([command, write(tmp_path, text)])
    assert_one_line(code, err, "4300 digits")


def test_a_boolean_coin_is_not_pair_b(tmp_path: Path, miami_game: dict[str, Any]) -> None:
    setup = miami_game["hands"][0]["setup"]
    assert setup["coin"] in (0, 1)
    bad = copy.deepcopy(miami_game)
    bad["hands"][0]["setup"]["coin"] = True
    code, _, err = run(["replay", write(tmp_path, bad)])
    assert_one_line(code, err, "'coin' must be an integer, not true")
    assert "seat True" not in err


@pytest.mark.parametrize("field", ["leader", "number"])
def test_booleans_are_not_seats_or_numbers(
    tmp_path: Path, havana_game: dict[str, Any], field: str
) -> None:
    bad = copy.deepcopy(havana_game)
    bad["hands"][1][field] = True
    code, _, err = run(["replay", write(tmp_path, bad)])
    assert_one_line(code, err, f"'{field}' must be an integer, not true")


def test_hand_number_as_text(tmp_path: Path, havana_game: dict[str, Any]) -> None:
    bad = copy.deepcopy(havana_game)
    bad["hands"][0]["number"] = "1"
    code, _, err = run(["replay", write(tmp_path, bad)])
    assert_one_line(code, err, """'number' must be an integer, not "1\"""")
    assert "not 1" not in err


@pytest.mark.parametrize("value", [0, "", [], "x"])
def test_setup_of_the_wrong_type_is_not_taken_as_empty(
    tmp_path: Path, havana_game: dict[str, Any], value: object
) -> None:
    bad = copy.deepcopy(havana_game)
    bad["hands"][0]["setup"] = value
    code, _, err = run(["replay", write(tmp_path, bad)])
    assert_one_line(code, err, "'setup' must be an object")


def test_a_move_after_the_end_names_the_seat(tmp_path: Path) -> None:
    record = json.loads((GOLDEN / "ejemplo-1-pegarse.json").read_text())
    n = len(record["moves"])
    record["moves"].append("pass")
    code, _, err = run(["replay", write(tmp_path, record)])
    seat = (record["leader"] + n) % 4
    assert_one_line(code, err, f"move {n}, seat {seat}: 'pass' comes after the hand ended")


def test_a_move_after_the_end_of_a_game_hand_names_the_seat(
    tmp_path: Path, havana_game: dict[str, Any]
) -> None:
    bad = copy.deepcopy(havana_game)
    hand = bad["hands"][0]
    n = len(hand["moves"])
    hand["moves"].append("pass")
    code, _, err = run(["replay", write(tmp_path, bad)])
    seat = (hand["leader"] + n) % 4
    assert_one_line(code, err, f"hand 1, move {n}, seat {seat}: 'pass' comes after the hand ended")


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_a_directory(tmp_path: Path, command: str) -> None:
    code, _, err = run([command, str(tmp_path)])
    assert_one_line(code, err, "is a directory")
    assert "Errno" not in err


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_not_utf8(tmp_path: Path, command: str) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"format": "tranque-hand/1", "x": "\xe9"}')
    code, _, err = run([command, str(path)])
    assert_one_line(code, err, "not UTF-8")


def test_arena_help_says_only_what_exists() -> None:
    code, out, _ = run(["arena", "--help"])
    assert code == 0
    assert "--list" not in out and "%%" not in out and "95%" in out


# --------------------------------------------------------------------------------------------
# Fuzz: no record, however mangled, gets a traceback out of `tranque replay` or `tranque verify`.

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.sampled_from([0, 1, 2, 3, 4, -1, 10**30])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["99", "94@4", "pass", "salgo", "sal_tu", "havana", "miami", "00 11"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)


def node_paths(node: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every place in a JSON tree, the root included."""
    out = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            out += node_paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += node_paths(value, (*path, i))
    return out


def places(record: object) -> list[list[tuple[object, ...]]]:
    """The record's places grouped by shape (list positions blurred), so that a field such as
    ``setup.redeals`` is as likely a target as one of forty moves."""
    groups: dict[tuple[object, ...], list[tuple[object, ...]]] = {}
    for path in node_paths(record):
        shape = tuple("#" if isinstance(step, int) else step for step in path)
        groups.setdefault(shape, []).append(path)
    return list(groups.values())


def mutate(record: object, path: tuple[object, ...], how: str, value: object) -> object:
    if not path:
        return value
    record = copy.deepcopy(record)
    parent: Any = record
    for step in path[:-1]:
        parent = parent[step]
    last: Any = path[-1]
    if how == "delete":
        del parent[last]
    elif how == "insert" and isinstance(parent, list):
        parent.insert(last, value)
    else:
        parent[last] = value
    return record


def _records() -> list[object]:
    records: list[object] = [json.loads(p.read_text()) for p in HAND_RECORDS]
    records.append(game_record(played_game(HAVANA, 5, hands=2)))
    records.append(game_record(played_game(MIAMI, 3, hands=1)))
    records.append(match_record(*_one_game_match()))
    return records


def _one_game_match() -> tuple[Any, None]:
    from tranque.rules.game import MatchState

    return MatchState(HAVANA).add_game(played_game(HAVANA, 9)), None


RECORDS = _records()


def fuzz_once(data: st.DataObject) -> None:
    """Mutate a real record 1-3 times, then replay and verify it: exit 0, 1 or 2, no traceback."""
    # Game and match records have the most structure (setup, draws, redeals): drawn half the time.
    record = data.draw(st.sampled_from(RECORDS[-3:]) | st.sampled_from(RECORDS), label="record")
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        group = data.draw(st.sampled_from(places(record)), label="field")
        path = data.draw(st.sampled_from(group), label="path")
        how = data.draw(st.sampled_from(["replace", "delete", "insert"]), label="how")
        if how != "replace" and not path:
            how = "replace"
        record = mutate(record, path, how, data.draw(json_values, label="value"))
    with tempfile.TemporaryDirectory() as folder:
        file = write(Path(folder), record)
        for command in ("replay", "verify"):
            code, _, err = run([command, file])
            assert code in (0, 1, 2), (command, code, err)
            assert "Traceback" not in err
            if code == 2:
                assert len(err.strip().splitlines()) == 1, (command, err)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_fuzzed_records_never_get_a_traceback(data: st.DataObject) -> None:
    fuzz_once(data)


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_many_fuzzed_records_never_get_a_traceback(data: st.DataObject) -> None:
    fuzz_once(data)
