"""Seeds: who contributes what, and the record's fairness section."""

from __future__ import annotations

import json

import pytest

from tranque.fair.recipe import client_commit, deal_key, server_commit
from tranque.fair.seeds import (
    HandFairness,
    SeatKind,
    SeatStatus,
    draw_seed,
    hand_fairness,
    settle,
)
from tranque.rules.errors import InvalidRecordError

SERVER = bytes(range(32))
S0, S1, S2, S3 = (bytes([s]) * 32 for s in range(1, 5))
P, B, E = SeatKind.PERSON, SeatKind.BOT, SeatKind.EMPTY


def test_draw_seed() -> None:
    a, b = draw_seed(), draw_seed()
    assert len(a) == len(b) == 32
    assert a != b


def test_settle_every_case() -> None:
    seeds, status, rejected = settle(
        [P, P, B, P],
        [client_commit(S0), client_commit(S1), None, None],
        [S0, S2, None, None],  # seat 1 reveals the wrong seed; seat 3 never committed
    )
    assert seeds == (S0, b"", b"", b"")
    assert status == (SeatStatus.REVEALED, SeatStatus.MISMATCH, SeatStatus.BOT, SeatStatus.TIMEOUT)
    assert rejected == (None, S2, None, None)


def test_settle_timeout_after_commit_and_empty_seat() -> None:
    # Seat 0 committed but never revealed; seat 2 revealed without having committed.
    seeds, status, _ = settle(
        [P, E, P, P], [client_commit(S0), None, None, client_commit(S3)], [None, None, S2, S3]
    )
    assert status == (SeatStatus.TIMEOUT, SeatStatus.EMPTY, SeatStatus.TIMEOUT, SeatStatus.REVEALED)
    assert seeds == (b"", b"", b"", S3)


def test_a_bot_seed_is_ignored_even_if_offered() -> None:
    seeds, status, _ = settle([B, B, B, B], [client_commit(S0)] * 4, [S0] * 4)
    assert seeds == (b"",) * 4
    assert status == (SeatStatus.BOT,) * 4


def test_commitment_case_does_not_matter() -> None:
    _, status, _ = settle(
        [P, E, E, E], [client_commit(S0).upper(), None, None, None], [S0, None, None, None]
    )
    assert status[0] is SeatStatus.REVEALED


def _sample() -> HandFairness:
    return hand_fairness(
        "mesa-9",
        7,
        SERVER,
        [P, P, B, P],
        [client_commit(S0), client_commit(S1), client_commit(S2), client_commit(S3)],
        [S0, S2, S2, S3],
        attempts=2,
    )


def test_hand_fairness() -> None:
    f = _sample()
    assert f.server_commit == server_commit(SERVER)
    assert f.client_commits == (client_commit(S0), client_commit(S1), None, client_commit(S3))
    assert f.client_seeds == (S0, b"", b"", S3)
    assert f.rejected_seeds == (None, S2, None, None)
    assert f.key == deal_key(SERVER, "mesa-9", 7, [S0, b"", b"", S3])
    assert f.with_attempts(3).attempts == 3


def test_json_round_trip() -> None:
    f = _sample()
    data = json.loads(json.dumps(f.to_json()))
    assert data["client_seeds"] == [S0.hex(), "", "", S3.hex()]
    assert data["seat_status"] == ["revealed", "mismatch", "bot", "revealed"]
    assert data["rejected_seeds"] == [None, S2.hex(), None, None]
    assert HandFairness.from_json(data) == f
    plain = hand_fairness("t", 1, SERVER, [E] * 4, [None] * 4, [None] * 4)
    assert "rejected_seeds" not in plain.to_json()
    assert HandFairness.from_json(plain.to_json()) == plain


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("server_seed", "zz", "fairness.server_seed is not hex"),
        ("client_seeds", ["", "", "xyz", ""], r"fairness.client_seeds\[2\] is not hex"),
        ("client_seeds", ["", ""], "client_seeds must be a list of 4"),
        ("seat_status", ["bot", "bot", "robot", "bot"], r"seat_status\[2\] = 'robot'"),
        ("hand_number", 0, "hand_number must be an integer >= 1"),
        ("attempts", True, "attempts must be an integer >= 1"),
        ("table_id", 5, "table_id must be UTF-8 text"),
        ("table_id", "mesa-\ud800", "table_id must be UTF-8 text"),
        ("hand_number", 2**32, "does not fit a u32"),
        ("client_commits", [1, None, None, None], r"client_commits\[0\]"),
    ],
)
def test_from_json_names_the_bad_field(field: str, value: object, message: str) -> None:
    data = _sample().to_json()
    data[field] = value
    with pytest.raises(InvalidRecordError, match=message):
        HandFairness.from_json(data)


def test_public_commitments_hold_no_seed() -> None:
    f = _sample()
    public = json.dumps(f.public_commitments())
    for secret in (SERVER, S0, S2, S3, f.key):
        assert secret.hex() not in public
    assert f.server_commit in public
