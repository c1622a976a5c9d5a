"""``server.replays`` on a real SQLite store: a table rebuilt from its log once, brought up to
date with the entries written since, kept within its bound, and refused past the waiting bound;
the history items of a log written without them, made once and kept in the rows."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest
from starlette.responses import JSONResponse

from tranque.rules.variants import Rules
from tranque.server.http_schemas import HttpError
from tranque.server.replays import Replays
from tranque.store.db import Store, open_store
from tranque.store.writer import history_item
from tranque.table.owner_frames import frame
from tranque.table.ports import Entry
from tranque.table.service import TableService, TableSettings, fixed_seeds, rebuild
from tranque.table.thinking import due_here

SEEDS = fixed_seeds(b"replays")
LONG = Rules.from_json({"preset": "havana", "target": 1000, "games_to_win_match": 3})
BOTS = TableSettings(
    rules=LONG, pass_delay=0, bot_delay=0, between_hands=0, bot="random", practice=True
)


def bots_log(tid: str, entries: int) -> list[Entry]:
    """The first ``entries`` entries of a table of four random bots, as its owner logs them."""
    svc = TableService(tid, SEEDS)
    now = 0.0
    log = [Entry(1, "created", {"settings": BOTS.to_json(), "host": "h"}, now)]
    log += [Entry(2 + s, "bot_sat", {"seat": s, "bot": "random"}, now) for s in range(4)]
    for e in log:
        svc.apply(e)
    while len(log) < entries:
        e = due_here(svc, now)
        if e is None:
            wake = svc.next_wake()
            assert wake is not None and not svc.over, "the table stopped short"
            now = max(now, wake)
            continue
        svc.apply(e)
        log.append(e)
    return log


def answers(tid: str, log: list[Entry]) -> tuple[bytes, bytes]:
    """The info and record the routes sent for the table rebuilt on the loop (before)."""
    svc = rebuild(tid, log, SEEDS)
    return bytes(JSONResponse(svc.info()).body), bytes(JSONResponse(svc.table_record()).body)


async def new_store(tmp_path: Path, logs: dict[str, list[Entry]]) -> Store:
    store = await open_store(f"sqlite:///{tmp_path / 'r.db'}")
    for tid, log in logs.items():
        await store.create_table(tid, "h", {"settings": BOTS.to_json()})
        await store.append(tid, log)
    return store


def test_a_table_is_rebuilt_once_and_brought_up_to_date(tmp_path: Path) -> None:
    log = bots_log("t1", 300)

    async def go() -> None:
        store = await new_store(tmp_path, {"t1": log[:200]})
        replays = Replays(store, SEEDS, keep=2)
        try:
            first = await replays.table("t1")
            assert first is not None and first.seq == 200
            assert (first.info, first.record) == answers("t1", log[:200])
            again = await asyncio.gather(*(replays.table("t1") for _ in range(8)))
            assert all(r is first for r in again) and replays.rebuilt == 1
            await store.append("t1", log[200:])  # the owner (on another node) plays on
            later = await replays.table("t1")
            assert later is not None and later.seq == 300
            assert (later.info, later.record) == answers("t1", log)
            assert replays.rebuilt == 1  # the 100 new entries applied, not the 300
            assert await replays.table("none") is None
        finally:
            replays.close()
            await store.close()

    asyncio.run(go())


def test_kept_and_waiting_are_bounded(tmp_path: Path) -> None:
    logs = {tid: bots_log(tid, 60) for tid in ("t1", "t2", "t3")}

    async def go() -> None:
        store = await new_store(tmp_path, logs)
        replays = Replays(store, SEEDS, keep=2, waiting=1)
        try:
            got = await asyncio.gather(
                replays.table("t1"), replays.table("t2"), return_exceptions=True
            )
            assert got[0] is not None and not isinstance(got[0], BaseException)
            assert isinstance(got[1], HttpError) and (got[1].status, got[1].code) == (503, "busy")
            assert got[1].headers == {"Retry-After": "1"}
            for tid in ("t2", "t3"):  # one at a time: each waits for nothing
                assert await replays.table(tid) is not None
            assert replays.rebuilt == 3
            assert await replays.table("t1") is not None  # t1 was let go for t3: again
            assert replays.rebuilt == 4
        finally:
            replays.close()
            await store.close()

    asyncio.run(go())


def test_the_history_of_a_log_written_without_it_is_made_once_and_kept(tmp_path: Path) -> None:
    log = bots_log("t1", 150)
    svc = TableService("t1", SEEDS)
    items = {}
    for e in log:
        svc.apply(e)
        items[e.seq] = history_item(e.seq, e.ts, frame(svc.project(e)))

    async def go() -> None:
        store = await new_store(tmp_path, {"t1": log})  # no public forms: as before 0006b
        replays = Replays(store, SEEDS)
        try:
            assert {item for _, item in await store.load_history("t1", 0, 500)} == {None}
            assert await replays.history("t1") == items
            assert dict(await store.load_history("t1", 0, 500)) == items
        finally:
            replays.close()
            await store.close()

    asyncio.run(go())
    # Each item is the object the replayed history encoded before, byte for byte.
    svc = TableService("t1", SEEDS)
    for e in log:
        svc.apply(e)
        before = msgspec.json.encode({"seq": e.seq, "ts": e.ts, **svc.project(e)})
        assert items[e.seq].encode() == before


@pytest.mark.parametrize("public", [b'{"type":"x"}', b'{"type":"y","seat":2,"n":null}'])
def test_a_history_item_is_the_encoded_object(public: bytes) -> None:
    for seq, ts in [(1, 0.0), (7, 1733412345.123456), (2**31 - 1, 1e22)]:
        item = history_item(seq, ts, public)
        assert item.encode() == msgspec.json.encode(
            {"seq": seq, "ts": ts, **msgspec.json.decode(public)}
        )
