"""Fencing in the store: an append (or a record saved) under an epoch that is no longer the
lease's writes nothing, in the same transaction; leases are claimed by one node at a time."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tranque.store import open_store
from tranque.store.leases import SqlLeases
from tranque.table.ports import Entry, LeaseLost


def _entries(first: int, n: int = 2) -> list[Entry]:
    return [Entry(first + i, "note", {"i": first + i}, time.time()) for i in range(n)]


async def _fencing(url: str) -> None:
    store = await open_store(url)
    try:
        a = SqlLeases(store, "a", ttl=30)
        b = SqlLeases(store, "b", ttl=30)
        await store.create_table("t", "host", {})
        lease_a = await a.claim("t")
        assert lease_a is not None and lease_a.epoch == 1
        assert await b.claim("t") is None  # a's lease is live: b waits
        assert await b.holder("t") == "a"
        await store.append("t", _entries(1), lease_a.epoch)
        # a stops renewing (a pause, a partition): its lease runs out, and b claims the table.
        async with store._begin() as conn:
            await conn.execute(sa.text("UPDATE leases SET expires = 0 WHERE table_id = 't'"))
        assert await a.orphans(10) == ["t"]
        lease_b = await b.claim("t")
        assert lease_b is not None and lease_b.epoch == 2
        assert await a.claim("t") is None
        # a wakes up and appends as if nothing happened: refused, nothing written.
        with pytest.raises(LeaseLost):
            await store.append("t", _entries(3), lease_a.epoch)
        with pytest.raises(LeaseLost):
            await store.finish_table("t", {"format": "x"}, None, lease_a.epoch)
        assert await a.renew({"t": 1}) == {"t"}
        assert await b.renew({"t": 2}) == set()
        await store.append("t", _entries(3), lease_b.epoch)
        log = await store.load_events("t")
        assert [e.seq for e in log] == [1, 2, 3, 4]
        async with store._connect() as conn:
            epochs = [r.epoch for r in await conn.execute(sa.text(
                "SELECT epoch FROM events WHERE table_id = 't' ORDER BY seq"
            ))]  # fmt: skip
        assert epochs == [1, 1, 2, 2]
        assert (await store.load_table("t") or {})["status"] == "open"
        # The new owner finishes the table: its lease goes with the record.
        await store.finish_table("t", {"format": "x"}, None, lease_b.epoch)
        assert await a.orphans(10) == [] and await b.holder("t") is None
    finally:
        await store.close()


def test_a_stale_epoch_appends_nothing_on_postgresql(pg_url: str) -> None:
    asyncio.run(_fencing(pg_url))


def test_a_stale_epoch_appends_nothing_on_sqlite(tmp_path: Path) -> None:
    asyncio.run(_fencing(f"sqlite:///{tmp_path / 'f.db'}"))


def test_of_many_nodes_claiming_one_table_at_once_exactly_one_gets_it(pg_url: str) -> None:
    async def go() -> None:
        stores = [await open_store(pg_url) for _ in range(4)]
        try:
            await stores[0].create_table("t", "host", {})
            nodes = [SqlLeases(s, f"n{i}", ttl=30) for i, s in enumerate(stores)]
            got = await asyncio.gather(*(n.claim("t") for n in nodes))
            assert sum(g is not None for g in got) == 1
            winner = next(n.node for n, g in zip(nodes, got, strict=True) if g is not None)
            assert await nodes[0].holder("t") == winner
        finally:
            for s in stores:
                await s.close()

    asyncio.run(go())


def test_a_group_commit_writes_the_tables_still_held_and_refuses_only_the_lost(
    pg_url: str,
) -> None:
    async def go() -> None:
        store = await open_store(pg_url)
        try:
            a = SqlLeases(store, "a", ttl=30)
            for t in ("t1", "t2"):
                await store.create_table(t, "host", {})
            l1, l2 = await a.claim("t1"), await a.claim("t2")
            assert l1 is not None and l2 is not None
            async with store._begin() as conn:
                await conn.execute(sa.text("UPDATE leases SET epoch = 9 WHERE table_id = 't2'"))
            results: list[Any] = await asyncio.gather(
                store.append("t1", _entries(1), l1.epoch),
                store.append("t2", _entries(1), l2.epoch),
                return_exceptions=True,
            )
            assert results[0] is None and isinstance(results[1], LeaseLost)
            assert len(await store.load_events("t1")) == 2
            assert await store.load_events("t2") == []
        finally:
            await store.close()

    asyncio.run(go())


async def _renewing(url: str) -> None:
    store = await open_store(url)
    try:
        a = SqlLeases(store, "a", ttl=30)
        b = SqlLeases(store, "b", ttl=30)
        held = {}
        for i in range(30):
            lease = await a.claim(f"t{i:02d}")
            assert lease is not None
            assert lease.epoch is not None
            held[lease.table_id] = lease.epoch
        async with store._begin() as conn:
            await conn.execute(sa.text("UPDATE leases SET expires = 0 WHERE table_id = 't07'"))
        assert await b.claim("t07") is not None  # taken over by b
        assert await a.claim("t21") is not None  # a's own new epoch: the one held is stale
        assert await a.renew(held) == {"t07", "t21"}
        assert await a.renew({"t21": 1}) == {"t21"}  # ours, but under another epoch
        async with store._connect() as conn:
            rows = {
                r.table_id: (r.node, r.epoch, r.expires)
                for r in await conn.execute(sa.text("SELECT * FROM leases"))
            }
        assert rows["t07"][:2] == ("b", 2) and rows["t21"][:2] == ("a", 2)
        assert all(rows[t][2] > time.time() + 20 for t in held)
        del held["t07"]
        held["t21"] = 2
        assert await a.renew(held) == set()
        assert await b.renew({"t07": 2}) == set() and await b.renew({"t07": 1}) == {"t07"}
    finally:
        await store.close()


def test_a_renewal_keeps_every_lease_held_and_names_the_lost_on_postgresql(pg_url: str) -> None:
    asyncio.run(_renewing(pg_url))


def test_a_renewal_keeps_every_lease_held_and_names_the_lost_on_sqlite(tmp_path: Path) -> None:
    asyncio.run(_renewing(f"sqlite:///{tmp_path / 'r.db'}"))
