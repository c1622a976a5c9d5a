"""A table whose people are away: one who never came gets a bot at once, and a table whose people
have all gone ends, with no result, ``abandon_after`` seconds after the last one left. The table
service on its own, a hand-driven clock; the server's side is tests/server/test_server_absence.py.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tranque.table.model import ABANDON, GRACE
from tranque.table.ports import Entry
from tranque.table.service import TableError, TableService, TableSettings, fixed_seeds, rebuild
from tranque.table.thinking import due_here

SEEDS = fixed_seeds(b"absence")
# No bot takes a seat over in these tests unless one says so: the game must not end by itself.
SETTINGS = TableSettings(
    pass_delay=0, bot_delay=0, between_hands=0, bot="random", grace=10_000, abandon_after=100
)


class Table:
    """A started table of ``persons`` (seat -> guest) and bots, and its log."""

    def __init__(self, persons: dict[int, str], settings: TableSettings = SETTINGS) -> None:
        self.svc = TableService("a1", SEEDS)
        self.log: list[Entry] = []
        self.add("created", {"settings": settings.to_json(), "host": "h"}, 0.0)
        for s in range(4):
            if s in persons:
                self.add("sat", {"seat": s, "guest": persons[s]}, 0.0)
            else:
                self.add("bot_sat", {"seat": s, "bot": "random"}, 0.0)
        self.run(0.0)
        assert self.svc.started

    def add(self, kind: str, data: dict[str, object], ts: float) -> Entry:
        e = Entry(self.svc.seq + 1, kind, dict(data), ts)
        self.svc.apply(e)
        self.log.append(e)
        return e

    def run(self, now: float) -> list[Entry]:
        """Every entry due at ``now`` (bots' moves thought out here)."""
        made = []
        for _ in range(10_000):
            e = due_here(self.svc, now)
            if e is None:
                return made
            self.svc.apply(e)
            self.log.append(e)
            made.append(e)
        raise AssertionError("the table never settles")


def test_a_table_whose_people_all_left_ends_with_no_result_and_rebuilds_the_same() -> None:
    t = Table({0: "ana", 2: "luis"})
    t.add("away", {"seat": 0, "left": True}, 10.0)
    assert ABANDON not in t.svc.timers  # Luis is still there
    t.add("away", {"seat": 2}, 30.0)
    assert t.svc.timers[ABANDON] == 130.0  # the last one left at 30
    assert not any(e.type == "abandoned" for e in t.run(129.9))
    ended = [e for e in t.run(130.0) if e.type == "abandoned"]
    assert len(ended) == 1 and ended[0].data == {"after": 100.0}
    svc = t.svc
    assert svc.over and svc.abandoned and svc.record is not None
    info = svc.info()
    assert info["over"] and info["abandoned"] and info["result"] is None
    assert svc.due(10_000.0) is None and svc.timers == {}  # nothing more, ever
    assert svc.public_state()["turn"] is None and svc.seat_state(0)["legal"] == []
    with pytest.raises(TableError) as refused:
        svc.command("ana", {"type": "leave", "id": "x"}, 131.0)
    assert refused.value.code == "game_over"
    assert svc.project(ended[0]) == {"type": "abandoned", "after": 100.0}
    again = rebuild("a1", t.log, SEEDS)
    assert again.over and again.abandoned and again.info() == info


def test_one_back_before_the_end_keeps_the_table_going() -> None:
    t = Table({0: "ana", 2: "luis"})
    t.add("away", {"seat": 0}, 10.0)
    t.add("away", {"seat": 2}, 20.0)
    t.add("back", {"seat": 2}, 50.0)
    assert ABANDON not in t.svc.timers
    t.run(500.0)
    assert not t.svc.abandoned
    # Gone again: the end is armed from then, not from the first time.
    t.add("away", {"seat": 2}, t.svc.last_ts + 1)
    assert t.svc.timers[ABANDON] == t.svc.last_ts + 100.0


def test_a_restart_moves_the_end_on_by_the_time_the_server_was_down() -> None:
    t = Table({1: "ana"})
    t.add("away", {"seat": 1}, 10.0)
    assert t.svc.timers[ABANDON] == 110.0
    t.add("resumed", {"shift": 40.0}, 50.0)
    assert t.svc.timers[ABANDON] == 150.0
    # A table whose person was there when the server went down: everyone is away from the restart.
    u = Table({1: "ana"})
    u.add("resumed", {"shift": 40.0}, 50.0)
    assert u.svc.timers[ABANDON] == 150.0


def test_one_who_never_came_gets_a_bot_at_once_and_one_who_left_after_the_grace() -> None:
    t = Table({0: "ana", 2: "luis"}, replace(SETTINGS, grace=60, abandon_after=10_000))
    away = t.add("away", {"seat": 0, "absent": True}, 5.0)
    assert t.svc.project(away)["absent"] is True
    assert t.svc.timers[GRACE[0]] == 5.0
    taken = [e for e in t.run(5.0) if e.type == "takeover"]
    assert [e.data["seat"] for e in taken] == [0]
    assert t.svc.seats[0].taken_over and t.svc.seats[0].away_since == 5.0
    left = t.add("away", {"seat": 2, "left": True}, 6.0)
    assert t.svc.project(left)["absent"] is False
    assert t.svc.timers[GRACE[2]] == 66.0
