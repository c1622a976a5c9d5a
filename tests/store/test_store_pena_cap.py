"""The cap of peñas a person belongs to holds under concurrent requests, on SQLite and
PostgreSQL: a person one short of it joins and founds many at once, and ends in exactly
``MAX_PENAS`` (the others refused ``too_many_penas``, nothing of them written). A dissolved
peña's rows all go."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tranque.club import penas as pn
from tranque.club.penas import PenaError, Penas
from tranque.store import open_store
from tranque.store.db import Store
from tranque.store.penas import SqlPenas
from tranque.store.schema import pena_members, pena_pending, pena_posts, penas


async def _outcome(call: Any) -> str:
    try:
        await call
    except PenaError as exc:
        return exc.code
    return "ok"


async def _count(store: Store, table: sa.Table) -> int:
    async with store._connect() as conn:
        return int((await conn.execute(sa.select(sa.func.count()).select_from(table))).scalar_one())


async def _check(store: Store) -> None:
    rows = SqlPenas(store)
    club = Penas(rows)
    now = time.time()
    for i in range(pn.MAX_PENAS - 1):
        await club.found("gD", f"Club-{i:02d}", "", True, "sol", now)
    for i in range(8):
        await club.found("gE", f"Abierta-{i}", "", True, "sol", now)
    # One short of the cap, eight joins and four foundings at once.
    calls = [club.join("gD", f"Abierta-{i}", now) for i in range(8)]
    calls += [club.found("gD", f"Nueva-{i}", "", True, "palma", now) for i in range(4)]
    outcomes = await asyncio.gather(*(_outcome(c) for c in calls))
    assert await rows.count_of("gD") == pn.MAX_PENAS, outcomes
    assert outcomes.count("ok") == 1, outcomes
    assert sorted(set(outcomes)) == ["ok", "too_many_penas"]
    # A refused founding wrote nothing: no peña without its founder.
    founded = outcomes[8:].count("ok")
    assert await _count(store, penas) == pn.MAX_PENAS - 1 + 8 + founded
    # Dissolving takes every row of the peña with it.
    gone = await club.found("gE", "Efimera", "", False, "sol", now)
    await club.join("gF", "Efimera", now)  # a request
    await club.invite("gE", "Efimera", "gG", now)
    await club.post("gE", "Efimera", "adiós", now)
    before = [await _count(store, t) for t in (pena_members, pena_pending, pena_posts)]
    assert before[1:] == [2, 1]
    pena, members = await club.dissolve("gE", "Efimera")
    assert (pena.id, members) == (gone.id, ["gE"])
    after = [await _count(store, t) for t in (pena_members, pena_pending, pena_posts)]
    assert after == [before[0] - 1, 0, 0]


def test_the_cap_holds_at_once_on_sqlite(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'p.db'}")
        try:
            await _check(store)
        finally:
            await store.close()

    asyncio.run(go())


@pytest.mark.slow
def test_the_cap_holds_at_once_on_postgresql(pg_url: str) -> None:
    async def go() -> None:
        store = await open_store(pg_url)
        try:
            await _check(store)
        finally:
            await store.close()

    asyncio.run(go())
