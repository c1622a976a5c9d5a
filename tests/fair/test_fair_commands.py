"""``tranque deal`` and ``tranque verify`` through the real command line entry point."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fair_games import play_fair_game

from tranque.cli import main
from tranque.rules.variants import HAVANA

DOC = Path(__file__).parents[2] / "docs" / "fairness.md"
SERVER = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
SEED0 = "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
SEED1 = "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
SEED3 = "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
SEEDS = ["--seed0", SEED0, "--seed1", SEED1, "--seed3", SEED3]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_deal_prints_what_the_document_shows(capsys: pytest.CaptureFixture[str]) -> None:
    """The example in docs/fairness.md is this command's real output."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```\n\$ tranque deal (.*?)\n```", text, re.S)
    assert block is not None
    command, _, shown = block.group(1).partition("\n" + "server commit")
    argv = command.replace("\\\n", " ").split()
    code, out, _ = run(capsys, "deal", *argv)
    assert code == 0
    assert out == "server commit" + shown + "\n"


def test_deal_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["deal", "--server-seed", SERVER, "--table", "mesa-1", "--hand", "15", *SEEDS]
    code, out, _ = run(capsys, *argv, "--attempt", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["key"] == "4b924a95e2425c9321f134e99d85c1fe32f51c70dfd179a75f80ce45a6a70757"
    assert data["hands"][2] == "88 66 55 94 64 54 93 72 61 40"
    assert data["sleepers"] == "99 95 63 53 52 42 32 22 91 41 90 60 50 20 10"
    assert data["client_commits"][2] is None
    assert data["attempt"] == 1 and data["rules"] == "havana"
    assert "draw" not in data and "coin" not in data


def test_deal_notes_a_possible_redeal(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["deal", "--server-seed", SERVER, "--table", "mesa-1", "--hand", "15", *SEEDS]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert "seat 2 may ask for a redeal (--attempt 1 gives it)" in out


def test_deal_double_six(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["deal", "--server-seed", SERVER, "--table", "oriente-ñ", "--hand", "1"]
    code, out, _ = run(capsys, *argv, "--rules", "oriente")
    assert code == 0
    assert "seat 2         32 41 31 21 11 20 00" in out
    assert "sleepers       (none)" in out
    code, out, _ = run(capsys, *argv, "--rules", '{"preset": "oriente", "target": 50}', "--json")
    assert json.loads(out)["hands"][2] == "32 41 31 21 11 20 00"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--server-seed", "xyz"], "--server-seed is not hex: 'xyz'"),
        (["--server-seed", "00ff"], "--server-seed is 2 bytes; seeds are 32 bytes"),
        (["--seed1", "abc"], "--seed1 is not hex"),
        (["--seed3", "00" * 31], "--seed3 is 31 bytes"),
        (["--rules", "havanna"], "unknown rules preset 'havanna'"),
        (["--rules", "{nope"], "--rules is not valid JSON"),
        (["--rules", '{"tiles_each": 20}'], "does not fit four hands"),
        (["--hand", "0"], "--hand must be from 1"),
        (["--attempt", "-1"], "--attempt must be from 0"),
    ],
)
def test_deal_bad_arguments(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    base = {"--server-seed": SERVER, "--table": "t", "--hand": "1"}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    argv = [x for pair in base.items() for x in pair]
    code, out, err = run(capsys, "deal", *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("tranque deal: error: "), err
    assert message in err
    assert "Traceback" not in err


def test_server_seed_with_0x_and_capitals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "deal", "--server-seed", "0x" + SERVER.upper(), "--table", "t", "--hand", "1"
    )
    assert code == 0 and "key" in out


# --------------------------------------------------------------------------------------------
# verify


@pytest.fixture(scope="module")
def game_record() -> dict[str, Any]:
    record, _, _ = play_fair_game(HAVANA, "mesa-1", 15, max_hands=2)
    return record


def test_verify_an_honest_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game_record: dict[str, Any]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_record), encoding="utf-8")
    code, out, _ = run(capsys, "verify", str(path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("ok    hand 1: server seed matches its commitment")
    assert re.fullmatch(r"all \d+ checks match", lines[-1])
    assert not any(line.startswith("FAIL") for line in lines)


def test_verify_names_what_was_altered(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game_record: dict[str, Any]
) -> None:
    record = json.loads(json.dumps(game_record))
    f = record["hands"][1]["fairness"]
    f["client_commits"][3] = "ab" + f["client_commits"][3][2:]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code, out, _ = run(capsys, "verify", str(path))
    assert code == 1
    fails = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert len(fails) == 1
    assert fails[0].startswith("FAIL  hand 2: seat 3 client seed matches its commitment: ")
    assert out.splitlines()[-1].startswith("1 of ")

    code, out, _ = run(capsys, "verify", str(path), "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False
    assert [c["name"] for c in data["checks"] if not c["ok"]] == [
        "hand 2: seat 3 client seed matches its commitment"
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ('{"format": "tranque-chess/1"}', "unknown record format"),
        ('{"format": "tranque-game/1", "rules": "havana", "hands": 5}', "must be a list"),
        ('{"format": "tranque-hand/1", "rules": "nope"}', "unknown rules preset"),
    ],
)
def test_verify_bad_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "x.json"
    path.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, "verify", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_verify_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "verify", str(tmp_path / "nope.json"))
    assert code == 2 and "No such file" in err
