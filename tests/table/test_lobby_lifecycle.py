"""The lobby lets tables go: a finished one once nobody has it open, a never-started one when it
expires. A real store (SQLite in a temporary file), real owner tasks, a subscriber that keeps
what it is sent."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tranque.rules.variants import Rules
from tranque.store import open_store
from tranque.table.lobby import Lobby
from tranque.table.ports import WallClock
from tranque.table.service import TableError, TableSettings, fixed_seeds

FAST = TableSettings(
    pass_delay=0,
    bot_delay=0,
    between_hands=0,
    fair_window=0.5,
    bot="random",
    rules=Rules.from_json({"preset": "havana", "target": 10}),
)


class Inbox:
    """A connection as the owner sees it: a guest, and the frames pushed to it."""

    def __init__(self, guest: str | None, watcher: bool = False) -> None:
        self.guest = guest
        self.watcher = watcher
        self.frames: list[dict[str, Any]] = []

    def push(self, frame: bytes) -> None:
        self.frames.append(json.loads(frame))

    def codes(self) -> list[str]:
        return [f["code"] for f in self.frames if f["type"] == "error"]


async def until(pred: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition never held")
        await asyncio.sleep(0.02)


async def new_lobby(db: Path, **kw: Any) -> Lobby:
    store = await open_store(f"sqlite:///{db}")
    return Lobby(store, WallClock(), fixed_seeds(b"lobby"), FAST, **kw)


def test_a_finished_table_leaves_once_its_last_watcher_goes_and_comes_back_for_a_hello(
    tmp_path: Path,
) -> None:
    async def go() -> None:
        lobby = await new_lobby(tmp_path / "a.db", linger=0)
        owner = await lobby.create("h", "host", FAST, None)  # four bots play it to the end
        tid = owner.table_id
        watcher = Inbox(None, watcher=True)
        owner.attach(watcher, None)
        await until(lambda: owner.service.over, 120)
        await until(lambda: lobby.counts["left_memory"] == 0 and not owner.inbox)
        assert tid in lobby.owners  # somebody is looking at it
        owner.detach(watcher)
        await until(lambda: tid not in lobby.owners)
        assert lobby.counts["left_memory"] == 1
        await until(lambda: owner.task is not None and owner.task.done())  # its task ends
        row = await lobby.store.load_table(tid)
        assert row is not None and row["status"] == "over"
        assert row["info"] == owner.service.info()
        assert await lobby.get(tid) is None  # the routes' lookup does not bring it back

        # Two hellos at once bring back one owner, with the final position.
        a, b = await asyncio.gather(lobby.join(tid), lobby.join(tid))
        assert a is b and lobby.counts["revived"] == 1
        late = Inbox("h", watcher=True)
        a.attach(late, None)
        await until(lambda: bool(late.frames))
        sync = late.frames[0]
        assert sync["type"] == "sync" and sync["seq"] == owner.service.seq
        assert sync["table"] == owner.service.info()
        a.detach(late)
        await until(lambda: tid not in lobby.owners)
        assert lobby.counts["left_memory"] == 2
        await lobby.close()
        await lobby.store.close()  # type: ignore[attr-defined]

    asyncio.run(go())


def test_a_table_that_does_not_start_in_time_expires_and_says_so(tmp_path: Path) -> None:
    async def go() -> None:
        lobby = await new_lobby(tmp_path / "b.db", expiry=0.2)
        people = replace(FAST, practice=False)
        waiting = await lobby.create("h", "host", people, 0)
        started = await lobby.create("h", "host", FAST, 0)  # bots fill it: it starts at once
        host = Inbox("h")
        waiting.attach(host, None)
        await until(lambda: "table_expired" in host.codes())
        assert waiting.table_id not in lobby.owners and lobby.counts["expired"] == 1
        # Whatever the connection still sends gets the same answer; nothing is queued.
        waiting.command(host, {"type": "sit", "id": "c1", "seat": 1})
        assert host.frames[-1] == {
            "type": "error",
            "id": "c1",
            "code": "table_expired",
            "message": host.frames[-2]["message"],
        }
        assert not waiting.inbox
        with pytest.raises(TableError) as err:
            await lobby.join(waiting.table_id)
        assert err.value.code == "table_expired"
        row = await lobby.store.load_table(waiting.table_id)
        assert row is not None and row["status"] == "expired"
        # The started table's timer went off and left it alone.
        await until(lambda: started.table_id not in lobby._timers)
        assert started.table_id in lobby.owners
        assert lobby.stats()["live"] == {"total": 1, "waiting": 0, "playing": 1, "over": 0}
        with pytest.raises(TableError) as err:
            await lobby.join("nothing")
        assert err.value.code == "no_table"
        await lobby.close()
        await lobby.store.close()  # type: ignore[attr-defined]

    asyncio.run(go())


@pytest.mark.slow
def test_a_restart_rearms_expiry_with_the_time_left_and_saves_a_record_a_crash_missed(
    tmp_path: Path,
) -> None:
    async def go() -> None:
        db = tmp_path / "c.db"
        first = await new_lobby(db, expiry=3.0)
        waiting = await first.create("h", "host", replace(FAST, practice=False), 0)
        done = await first.create("h", "host", FAST, None)
        await until(lambda: done.service.over and done.finished_saved, 120)
        await first.close()  # the server stops: nothing expired yet
        # A crash between the last entry and the record: the table is open, with no record.
        await first.store.close()  # type: ignore[attr-defined]
        con = sqlite3.connect(db)
        with con:
            con.execute("DELETE FROM games WHERE table_id = ?", (done.table_id,))
            con.execute("UPDATE tables SET status = 'open' WHERE id = ?", (done.table_id,))
        con.close()
        created = waiting.service.last_ts  # its last (and only) entries: created, sat
        await until(lambda: time.time() >= created + 2.0)  # two of its three seconds are gone

        second = await new_lobby(db, expiry=3.0)
        restarted = time.monotonic()
        assert await second.recover() == 1  # the waiting table; the finished one is not started
        assert list(second.owners) == [waiting.table_id]
        row = await second.store.load_table(done.table_id)
        assert row is not None and row["status"] == "over"
        # The table's record, kept with who sat where (bots only here: four nulls).
        kept = {**done.service.record, "players": [None, None, None, None]}
        assert await second.store.load_record(done.table_id) == kept
        # The waiting table expires 3 s after its creation (about 1 s after the restart), not 3 s
        # after the restart.
        await until(lambda: second.counts["expired"] == 1, 10)
        assert time.monotonic() - restarted < 2.5
        await second.close()
        await second.store.close()  # type: ignore[attr-defined]

    asyncio.run(go())
