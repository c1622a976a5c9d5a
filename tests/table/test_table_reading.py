"""The pause between hands waits for a person still reading the end of the last one
(``reading``), within the table's timings: ``between_hands`` at least, ``reading_wait`` more at
most."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_table_service import FAST, SEEDS, Driver, _log_of, new_table

from tranque.table.ports import Entry
from tranque.table.service import TableError, rebuild
from tranque.table.thinking import due_here

PERSONS = {0: "ana", 2: "luis"}
PAUSE = replace(FAST, between_hands=4, reading_wait=20)


def first_hand_ended() -> tuple[Driver, float]:
    """A table of two people and two bots, right after its first hand ended: (driver, when)."""
    d = Driver(new_table(PAUSE, PERSONS))
    for _ in range(5000):
        d.settle()
        if 1 in d.svc.published:
            assert d.svc.game.phase.value == "deal"
            return d, d.svc.hand_ended_at
        if not d.person_duty(PERSONS, None):
            wake = d.svc.next_wake()
            assert wake is not None
            d.now = max(d.now, wake)
    raise AssertionError("the first hand never ended")


def reading(d: Driver, guest: str, done: bool, hand: int = 1) -> Entry:
    return d.cmd(guest, {"type": "reading", "hand": hand, "done": done})


def next_hand_at(d: Driver) -> float:
    return float(d.svc.state_for(None)["next_hand"])


def starts_at(d: Driver, when: float) -> None:
    """Nothing is due just before ``when``; at ``when`` the next hand's seed is drawn."""
    assert d.svc.due(when - 0.05) is None
    made = due_here(d.svc, when)
    assert made is not None and made.type == "hand_seed" and made.data["hand"] == 2


def test_without_readers_the_pause_is_between_hands() -> None:
    d, ended = first_hand_ended()
    st = d.svc.state_for(0)
    assert st["next_hand"] == ended + 4 and st["reading"] == []
    starts_at(d, ended + 4)


def test_the_next_hand_waits_for_every_reader_and_starts_when_the_last_is_done() -> None:
    d, ended = first_hand_ended()
    reading(d, "ana", False)
    assert next_hand_at(d) == ended + 24
    reading(d, "luis", False)
    assert d.svc.state_for(2)["reading"] == [0, 2]
    # Seen by everyone, seats included: who the table waits for.
    assert d.svc.project(d.log[-1]) == {"type": "reading", "seat": 2, "hand": 1, "done": False}
    d.now = ended + 10
    assert d.svc.due(d.now) is None  # the short pause is over, and both still read
    reading(d, "ana", True)
    assert next_hand_at(d) == ended + 24  # Luis still reads
    reading(d, "luis", True)
    assert next_hand_at(d) == ended + 10  # the last reader is done: now
    starts_at(d, ended + 10)
    # A rebuilt table has the same pause.
    rebuilt = rebuild("u1", [*_log_of(new_table(PAUSE, PERSONS)), *d.log], SEEDS)
    assert rebuilt.state_for(None) == d.svc.state_for(None)


def test_a_reader_who_is_done_early_keeps_the_short_pause() -> None:
    d, ended = first_hand_ended()
    d.now = ended + 1
    reading(d, "ana", False)
    reading(d, "ana", True)
    assert next_hand_at(d) == ended + 4
    starts_at(d, ended + 4)


def test_a_reader_never_holds_the_table_past_the_reading_wait() -> None:
    d, ended = first_hand_ended()
    reading(d, "ana", False)
    starts_at(d, ended + 24)


def test_a_reader_who_leaves_is_not_waited_for_and_a_return_does_not_cut_the_pause() -> None:
    d, ended = first_hand_ended()
    reading(d, "ana", False)
    reading(d, "luis", False)
    d.now = ended + 2
    d.apply(Entry(d.svc.seq + 1, "away", {"seat": 2}, d.now))
    assert d.svc.state_for(0)["reading"] == [0]
    reading(d, "ana", True)
    assert next_hand_at(d) == ended + 4
    # A bot taking the seat, and the player coming back, re-arm the clocks: not the pause.
    d.apply(Entry(d.svc.seq + 1, "takeover", {"seat": 2, "bot": "random"}, d.now))
    d.apply(Entry(d.svc.seq + 1, "back", {"seat": 2}, d.now))
    assert next_hand_at(d) == ended + 4  # not "now": the short pause is kept
    starts_at(d, ended + 4)


def test_reading_out_of_place_is_refused_without_a_change() -> None:
    d, ended = first_hand_ended()
    svc = d.svc
    reading(d, "ana", False)
    before = (svc.seq, dict(svc.timers), set(svc.reading))
    cases = [
        ("ana", {"hand": 2, "done": False}, "not_between_hands"),
        ("ana", {"hand": 1, "done": False}, "duplicate"),
        ("luis", {"hand": 1, "done": True}, "not_reading"),
        ("nobody", {"hand": 1, "done": False}, "not_seated"),
    ]
    for guest, msg, code in cases:
        with pytest.raises(TableError) as exc:
            svc.command(guest, {"id": "x", "type": "reading", **msg}, d.now)
        assert exc.value.code == code, msg
        assert (svc.seq, dict(svc.timers), set(svc.reading)) == before
    # Once the next hand has begun there is nothing to wait for.
    d.now = ended + 24
    d.settle()
    assert 2 not in svc.published and svc.fair is not None and svc.fair.hand == 2
    with pytest.raises(TableError) as exc:
        svc.command("ana", {"id": "y", "type": "reading", "hand": 1, "done": True}, d.now)
    assert exc.value.code == "not_between_hands"
    assert "next_hand" not in svc.state_for(0)
