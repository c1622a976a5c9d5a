"""A table's public history over HTTP: what it costs the event loop, and what it says.

The history is read from what the log keeps (each event's public form, written with it), never
rebuilt on the event loop: sixteen reads of a long table kept in flight leave every socket
answered at once.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from history_load import describe, long_table, pings_under_load

from tranque.client import TableClient, create_table, new_guest
from tranque.store.db import open_store
from tranque.table.service import TableService, fixed_seeds

PAGES = [f"?after={after}&limit=500" for after in (0, 500, 1000, 1500)]


@pytest.mark.slow
def test_sixteen_history_reads_in_flight_leave_every_socket_answered(server_factory: Any) -> None:
    """16 reads of a 2,000-event table's history in flight (its four pages in turn, the last
    of which ends at event 2,000) while a socket pings: every read is answered from the forms
    the log kept, none replays it, and the pings' figures are printed."""
    sp = server_factory()

    async def go() -> None:
        tid, client = await long_table(sp.base, 2000)
        paths = [f"/api/tables/{tid}/history{page}" for page in PAGES]
        rtts, statuses = await pings_under_load(sp.base, paths)
        await client.close()
        figures = describe(rtts)
        print(json.dumps({"history_load": figures, "answers": dict(statuses)}))
        assert set(statuses) == {200} and statuses[200] >= 16, statuses
        assert len(rtts) >= 50, figures  # a ping every 10 ms, for 4 s
        # What keeps the loop answered is that no read replays the log: each page is the
        # public forms kept as the events were written. (The pings' figures are printed
        # above, for the record; a speed is a benchmark's figure, not a test's.)
        stats = httpx.get(f"{sp.base}/api/stats", timeout=30).json()
        assert stats["replays"] == {"rebuilt": 0}, stats

    asyncio.run(go())


# -- what it says ------------------------------------------------------------------------------


async def replayed(db: Path, tid: str) -> list[dict[str, Any]]:
    """The table's history as the server made it before the forms were kept: its log replayed
    from the start, each entry projected right after it is applied."""
    store = await open_store(f"sqlite:///{db}", migrate=False)
    try:
        entries = await store.load_events(tid)
    finally:
        await store.close()
    svc = TableService(tid, fixed_seeds(b"unused: the seeds are in the log"))
    out = []
    for e in entries:
        svc.apply(e)
        out.append({"seq": e.seq, "ts": e.ts, **svc.project(e)})
    return out


async def pages_match(base: str, tid: str, items: list[dict[str, Any]]) -> None:
    """Every way of paging the history gives the bytes the replay's items encode to."""
    n = len(items)
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for after, limit in [(0, 500), (0, 7), (5, 13), (n - 3, 500), (n - 1, 1), (n, 10)]:
            r = await http.get(f"/api/tables/{tid}/history?after={after}&limit={limit}")
            assert r.status_code == 200, r.text
            assert r.content == msgspec.json.encode(items[after : after + limit]), (after, limit)
            assert ("next" in r.links) == (after + limit < n), (after, limit)


@pytest.mark.slow
def test_the_history_is_byte_for_byte_the_replay_of_the_log_also_for_rows_before_it_was_kept(
    server_factory: Any,
) -> None:
    """A match with a person who leaves and comes back (``away``, ``back``): its history, page
    by page, is byte for byte what replaying the log gave. Then the log as it was written
    before the forms were kept (no form in any row): the same bytes, and the rows have them."""
    sp = server_factory()
    tid = ""

    async def play() -> None:
        nonlocal tid
        g = await new_guest(sp.base, "ana")
        t = await create_table(
            sp.base, g["token"], rules={"preset": "miami", "target": 30}, practice=True, seat=0
        )
        tid = t["table"]
        c = TableClient(sp.base, g["token"], tid, keep_frames=False)
        await c.connect()
        await c.play_game(stop=lambda c: c.seq >= 40, timeout=120)
        await c.drop()  # away ...
        await c.connect(resume=True)  # ... and back
        await c.play_game(timeout=240)
        items = await replayed(sp.db, tid)
        kinds = {item["type"] for item in items}
        missing = {"away", "back", "dealt", "hand_commit", "committed", "played"} - kinds
        assert not missing, missing
        assert items[-1]["seq"] == c.seq
        await pages_match(sp.base, tid, items)
        await c.close()

    asyncio.run(play())
    sp.stop()
    con = sqlite3.connect(sp.db)
    kept = dict(con.execute("SELECT seq, public FROM events WHERE table_id = ?", (tid,)))
    assert None not in kept.values()
    con.execute("UPDATE events SET public = NULL")  # as the rows were before migration 0006b
    con.commit()
    sp.start()

    async def again() -> None:
        items = await replayed(sp.db, tid)
        await pages_match(sp.base, tid, items)

    asyncio.run(again())
    filled = dict(con.execute("SELECT seq, public FROM events WHERE table_id = ?", (tid,)))
    assert filled == kept  # made once, by a replay, and kept: as the owner wrote them
    con.close()
    assert "Traceback" not in sp.errors()
