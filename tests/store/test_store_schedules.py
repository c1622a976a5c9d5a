"""Scheduled tournaments in the rows, on SQLite and PostgreSQL: each occurrence's tournament is
created once, whatever looks again (the runner's next look, a restarted server, a second node
looking at the same moment), made by no person, starting itself at its start; a removed schedule
makes no more (store.schedules, server.tournament_schedules)."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa

from tranque.cli import main
from tranque.server.tournament_schedules import Scheduler
from tranque.store import open_store
from tranque.store.db import Store
from tranque.store.schedules import SqlSchedules
from tranque.store.schema import tournaments
from tranque.store.tournaments import REGISTERING, SqlTournaments


def utc(*args: int) -> float:
    return datetime(*args, tzinfo=UTC).timestamp()


# Every Saturday at 20:00 in Havana, registration open 24 hours before: the first start after
# NOW is Saturday 7 March 2026, 20:00 (UTC-5: 01:00 UTC on the 8th), open since the 7th 01:00.
NOW = utc(2026, 3, 7, 12)
FIRST = utc(2026, 3, 8, 1)
SECOND = utc(2026, 3, 15, 0)  # summer time from the 8th: 20:00 is UTC-4
HAVANA_SWISS = {
    "name": "Suizo del sábado", "kind": "swiss-pairs", "rules": "havana", "rounds": 5,
    "minutes": 30, "no_show": 120.0, "public": True, "weekdays": (5,), "at": "20:00",
    "zone": "America/Havana", "opens_hours": 24.0,
}  # fmt: skip


async def _made(store: Store) -> list[Any]:
    q = sa.select(tournaments).where(tournaments.c.schedule.is_not(None))
    async with store._connect() as conn:
        return list(await conn.execute(q.order_by(tournaments.c.starts)))


async def _scenario(url: str) -> None:
    store = await open_store(url)
    other = await open_store(url)  # a second node on the same database
    try:
        rows = SqlSchedules(store)
        sid = await rows.add(HAVANA_SWISS, NOW - 86400 * 10)
        scheduler = Scheduler(rows)
        assert await scheduler.look(FIRST - 24 * 3600 - 1) == []  # not open yet
        (tid,) = await scheduler.look(NOW)
        # The next look, forced (the same moment), and a little later: nothing new.
        assert await scheduler.look(NOW, force=True) == []
        assert await scheduler.look(NOW + 60) == []
        assert await scheduler.look(NOW + 60, force=True) == []
        # A restart (a new runner on the same rows), and two nodes at the same moment.
        assert await Scheduler(SqlSchedules(store)).look(NOW + 120) == []
        both = await asyncio.gather(
            Scheduler(SqlSchedules(store)).look(NOW + 180),
            Scheduler(SqlSchedules(other)).look(NOW + 180),
        )
        assert both == [[], []]
        (row,) = await _made(store)
        assert (row.id, row.schedule, row.occurrence) == (tid, sid, f"{sid}@{int(FIRST)}")
        assert (row.creator, row.state, row.starts) == ("", REGISTERING, FIRST)
        assert (row.name, row.minutes, row.rounds, row.target) == ("Suizo del sábado", 30, 5, 100)
        t = await SqlTournaments(store).get(tid)
        assert t is not None and t.schedule == sid
        # The list shows the next one not made yet: the Saturday after.
        (nxt,) = await scheduler.upcoming(NOW)
        assert (nxt["name"], nxt["starts"], nxt["opens"]) == (row.name, SECOND, SECOND - 86400)
        # A week on (past summer time's start), the next Saturday's opens 24 hours before it.
        assert await scheduler.look(SECOND - 86400 - 1, force=True) == []
        assert len(await scheduler.look(SECOND - 86400, force=True)) == 1
        assert [r.starts for r in await _made(store)] == [FIRST, SECOND]
        # Removed: nothing more is made, and what was made stays.
        assert await rows.remove(sid) and not await rows.remove(sid)
        assert await scheduler.look(SECOND + 6 * 86400, force=True) == []
        assert await scheduler.upcoming(NOW) == []
        assert len(await _made(store)) == 2
    finally:
        await store.close()
        await other.close()


def test_an_occurrence_is_created_once_on_sqlite(tmp_path: Path) -> None:
    asyncio.run(_scenario(f"sqlite:///{tmp_path / 's.db'}"))


def test_an_occurrence_is_created_once_on_postgresql(pg_url: str) -> None:
    asyncio.run(_scenario(pg_url))


def test_the_schedule_command_adds_lists_and_removes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'c.db'}"]
    add = ["tournament", "schedule", "add", "--name", "Suizo del sábado", "--days", "sat"]
    add += ["--at", "20:00", "--zone", "America/Havana", "--minutes", "30", "--rounds", "5"]
    # Each bad part is one line naming it, exit 2, nothing written.
    for change, said in (
        (["--days", "funday"], "'funday' is not a weekday"),
        (["--at", "8pm"], "'8pm' is not a time of day"),
        (["--zone", "Mars/Olympus"], "is not an IANA time zone"),
        (["--minutes", "25"], "--minutes is one of 20, 30, 40, 60"),
        (["--rules", "miami"], "a time cap is for one-game rules"),
        (["--rules", "nope"], "--rules must be one of"),
        (["--opens", "200"], "registration opens 0 to 168 hours before"),
        (["--rounds", "0"], "--rounds is 1 to 15"),
    ):
        assert main([*add, *change, *db]) == 2
        err = capsys.readouterr().err
        assert said in err and len(err.strip().splitlines()) == 1, err
    assert main(["tournament", "schedule", "list", "--json", *db]) == 0
    assert json.loads(capsys.readouterr().out) == {"schedules": []}
    assert main([*add, *db]) == 0
    sid = capsys.readouterr().out.strip()
    assert main(["tournament", "schedule", "list", "--json", *db]) == 0
    (s,) = json.loads(capsys.readouterr().out)["schedules"]
    assert (s["id"], s["name"], s["weekdays"], s["at"], s["zone"]) == (
        sid,
        "Suizo del sábado",
        [5],
        "20:00",
        "America/Havana",
    )
    assert (s["minutes"], s["rounds"], s["opens_hours"], s["public"]) == (30, 5, 24.0, True)
    assert s["next"] > time.time()
    assert datetime.fromtimestamp(s["next"], ZoneInfo("America/Havana")).strftime("%a %H:%M") == (
        "Sat 20:00"
    )
    assert main(["tournament", "schedule", "list", *db]) == 0
    assert "Suizo del sábado: sat 20:00 America/Havana" in capsys.readouterr().out
    assert main(["tournament", "schedule", "remove", sid, *db]) == 0
    capsys.readouterr()
    assert main(["tournament", "schedule", "remove", sid, *db]) == 2
    assert f"there is no schedule {sid!r}" in capsys.readouterr().err


def test_a_schedule_that_cannot_be_worked_out_does_not_stop_the_others(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'z.db'}")
        try:
            rows = SqlSchedules(store)
            # A zone this machine does not know (the command line refuses it; a database
            # moved to a machine with other time zone data might hold one).
            await rows.add({**HAVANA_SWISS, "zone": "Mars/Olympus"}, NOW - 20)
            sid = await rows.add(HAVANA_SWISS, NOW - 10)
            scheduler = Scheduler(rows)
            assert len(await scheduler.look(NOW)) == 1
            assert [x["schedule"] for x in await scheduler.upcoming(NOW)] == [sid]
        finally:
            await store.close()

    asyncio.run(go())
