"""``tranque analyze`` and ``tranque bench analysis`` through the real entry point."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.commands.test_cli_errors import (
    HAND_RECORDS,
    assert_one_line,
    json_values,
    mutate,
    places,
    run,
    write,
)

from tranque.analysis import analyze_record
from tranque.analysis.engine import FairBudget, analyze

GOLDEN = Path(__file__).parent.parent / "golden"
TRANQUE = str(GOLDEN / "ejemplo-2-tranque.json")


def test_json_is_the_analysis_of_the_seats_asked() -> None:
    code, out, err = run(
        ["analyze", TRANQUE, "--hindsight", "--seat", "3", "--seat", "1", "--json"]
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["format"] == "tranque-analysis/1" and result["mode"] == "hindsight"
    plays = result["hands"][0]["plays"]
    assert plays and {p["seat"] for p in plays} == {1, 3}
    assert [p["index"] for p in plays] == sorted(p["index"] for p in plays)


def test_fair_is_the_default_and_the_report_is_readable() -> None:
    code, out, err = run(["analyze", TRANQUE, "--seat", "0"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("fair analysis") and "hand 1" in lines
    assert any("±" in line for line in lines)
    seat_line = [line for line in lines if line.startswith("  seat 0 (pair A):")]
    assert len(seat_line) == 1 and "decisions" in seat_line[0]


def test_hindsight_marks_its_estimates() -> None:
    code, out, err = run(["analyze", TRANQUE, "--hindsight"])
    assert code == 0, err
    rows = [line for line in out.splitlines() if line[:7].strip().isdigit()]
    assert rows and "~" in rows[0] and "~" not in rows[-1]  # the lead is estimated, the end not


def test_a_record_from_stdin() -> None:
    text = Path(TRANQUE).read_text()
    result = subprocess.run(
        [sys.executable, "-m", "tranque", "analyze", "-", "--hindsight", "--json", "--seat", "2"],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert {p["seat"] for p in json.loads(result.stdout)["hands"][0]["plays"]} == {2}


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--seat", "4"], "--seat must be 0, 1, 2 or 3, not 4"),
        (["--hand", "0"], "--hand must be 1 or more"),
        (["--hand", "2"], "no hand 2: a hand record has 1 hand"),
    ],
)
def test_bad_requests_get_one_line(args: list[str], needle: str) -> None:
    assert_one_line(*run(["analyze", TRANQUE, "--hindsight", *args])[::2], needle)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("[1, 2]", "not a record"),
        ("{", "is not JSON"),
        ('{"format": "tranque-hand/1"}', "missing 'hands'"),
        ('{"format": "tranque-poker/1"}', "not a tranque record"),
    ],
)
def test_bad_files_get_one_line(tmp_path: Path, content: str, needle: str) -> None:
    assert_one_line(*run(["analyze", write(tmp_path, content)])[::2], needle)


def test_a_directory_gets_one_line(tmp_path: Path) -> None:
    assert_one_line(*run(["analyze", str(tmp_path)])[::2], "is a directory")


def test_an_illegal_step_names_where(tmp_path: Path) -> None:
    record = json.loads(Path(TRANQUE).read_text())
    record["moves"][3] = "99@9"
    assert_one_line(*run(["analyze", write(tmp_path, record)])[::2], "move 3", "seat 3", "99@9")


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_fuzzed_records_never_get_a_traceback(data: st.DataObject) -> None:
    """Mangled hand records: the analysis runs (exit 0) or says what is wrong in one line."""
    record: Any = json.loads(data.draw(st.sampled_from(HAND_RECORDS)).read_text())
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(data.draw(st.sampled_from(places(record)))))
        how = data.draw(st.sampled_from(["replace", "delete", "insert"]))
        record = mutate(record, path, "replace" if not path else how, data.draw(json_values))
    with tempfile.TemporaryDirectory() as folder:
        code, _, err = run(["analyze", write(Path(folder), record), "--hindsight", "--json"])
    assert code in (0, 2) and "Traceback" not in err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err


def test_progress_goes_from_zero_to_every_decision() -> None:
    calls: list[tuple[int, int]] = []
    record = json.loads(Path(TRANQUE).read_text())
    small = FairBudget(chains=4, burn=50, thin=2, per_chain=4)
    result = analyze(record, seats=[0, 1], budget=small, progress=lambda *a: calls.append(a))
    n = len(result["hands"][0]["plays"])
    assert calls == [(k, n) for k in range(n + 1)] and n > 5


@pytest.mark.slow
def test_bench_analysis_prints_its_figures() -> None:
    code, out, err = run(["bench", "analysis", "--hands", "1", "--json"])
    assert code == 0, err
    figures = json.loads(out)
    assert figures["hands"] == 1
    for key in ("fair_s_per_seat_hand_max", "hindsight_s_per_hand_max", "fair_value_se_median"):
        assert figures[key] > 0
    assert figures["fair_worlds_per_decision"] == 8192


def test_bench_analysis_checks_its_arguments() -> None:
    assert_one_line(*run(["bench", "analysis", "--hands", "0"])[::2], "--hands must be")


def test_a_worker_process_can_call_the_entry_point() -> None:
    """What the pool will do: the function and its arguments pickled to a spawned process, the
    JSON pickled back, the same as here."""
    record = json.loads(Path(TRANQUE).read_text())
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        there = pool.submit(analyze_record, record, seats=(1,), mode="hindsight").result(120)
    assert there == analyze_record(record, seats=(1,), mode="hindsight")
    assert there["hands"][0]["plays"]
