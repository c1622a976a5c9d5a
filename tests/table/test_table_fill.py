"""``fill`` at a table (a rematch somebody declined): who may ask, the deadline it logs, a bot
in each seat still free at the deadline, and the same on a rebuild from the log."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tranque.table.model import TableSettings
from tranque.table.service import Entry, TableError, TableService, fixed_seeds, rebuild

SEEDS = fixed_seeds(b"fill")
PEOPLE = {0: "ana", 1: "bea", 3: "dani"}  # seat 2 declined the rematch


def _table() -> tuple[TableService, list[Entry]]:
    settings = replace(TableSettings(), practice=False)
    svc = TableService("t", SEEDS)
    created = {"settings": settings.to_json(), "host": "ana", "rematch": {"table": "old",
               "declined": [{"seat": 2, "nickname": "cai"}]}}  # fmt: skip
    log = [Entry(1, "created", created, 0.0)]
    for seat, guest in PEOPLE.items():
        log.append(
            Entry(len(log) + 1, "sat", {"seat": seat, "guest": guest, "nickname": guest}, 0.0)
        )
    for e in log:
        svc.apply(e)
    return svc, log


def test_a_seated_person_asks_once_and_a_bot_takes_the_seat_at_the_deadline() -> None:
    svc, log = _table()
    assert svc.info()["rematch"]["declined"] == [{"seat": 2, "nickname": "cai"}]
    with pytest.raises(TableError) as refused:
        svc.may_fill("cai")
    assert refused.value.code == "not_seated"
    assert svc.may_fill("bea") == 1
    fill = Entry(svc.seq + 1, "fill", {"seat": 1, "window": 15.0, "guest": "bea", "cmd": "f"}, 10.0)
    svc.apply(fill)
    log.append(fill)
    assert svc.info()["filling"] == 25.0
    assert svc.project(fill) == {"type": "fill", "seat": 1, "deadline": 25.0}
    with pytest.raises(TableError) as again:
        svc.may_fill("ana")
    assert again.value.code == "filling"
    assert svc.due(24.9) is None  # nobody came yet, the window is open
    bot = svc.due(25.0)
    assert bot is not None and bot.type == "bot_sat" and bot.data["seat"] == 2
    svc.apply(bot)
    log.append(bot)
    started = svc.due(25.0)
    assert started is not None and started.type == "started"
    svc.apply(started)
    assert svc.info()["filling"] is None
    # The log alone gives the same table.
    again_svc = rebuild("t", log, SEEDS)
    assert [s.kind for s in again_svc.seats] == ["person", "person", "bot", "person"]
    assert again_svc.rematch_of == svc.rematch_of


def test_no_fill_once_every_seat_is_taken_or_the_game_started() -> None:
    svc, _ = _table()
    svc.apply(Entry(svc.seq + 1, "sat", {"seat": 2, "guest": "eva", "nickname": "eva"}, 1.0))
    with pytest.raises(TableError) as full:
        svc.may_fill("ana")
    assert full.value.code == "seat_taken"
