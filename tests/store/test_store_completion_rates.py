"""Many people's completion rates in two queries (``SqlProfiles.completion_rates``), as the
seats of a table show them, equal to each profile's own (``completion``), on SQLite and
PostgreSQL; and the seats' ``ratings`` body carries them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tranque.server.seat_ratings import body_of
from tranque.store import open_store
from tranque.store.club import SqlProfiles
from tranque.store.schema import departures, plays


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: Any, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'c.db'}"
    return str(request.getfixturevalue("pg_url"))


def _play(table: str, guest: str) -> dict[str, Any]:
    return dict(
        table_id=table, guest=guest, seat=0, nickname=guest, preset="havana", won=False,
        rated=True, pollonas_given=0, pollonas_suffered=0, viajeras=0, finished=1.0,
    )  # fmt: skip


def test_completion_rates_of_many_are_each_ones_own(url: str) -> None:
    async def go() -> None:
        store = await open_store(url)
        try:
            async with store._begin() as conn:
                # a: 3 finished. b: 2 played, one of them as a leaver, and 1 aborted. c: none.
                await conn.execute(plays.insert(), [_play(f"t{i}", "a") for i in range(3)])
                await conn.execute(plays.insert(), [_play(f"t{i}", "b") for i in range(2)])
                await conn.execute(departures.insert(), [
                    {"table_id": "t1", "guest": "b", "kind": "leaver", "ts": 1.0},
                    {"table_id": "t9", "guest": "b", "kind": "aborted", "ts": 2.0},
                ])  # fmt: skip
            profiles = SqlProfiles(store)
            rates = await profiles.completion_rates(["a", "b", "c"])
            assert rates == {"a": 1.0, "b": round(1 / 3, 3), "c": None}
            for g in "abc":
                assert rates[g] == (await profiles.completion(g))["rate"]
        finally:
            await store.close()

    asyncio.run(go())
    key = ("havana", (("person", "a"), ("bot", None), ("person", "b"), ("empty", None)))
    body = body_of(key, {}, rates={"a": 1.0, "b": 0.333})
    assert [s and s["completion"] for s in body["seats"]] == [1.0, None, 0.333, None]
    assert "completion" not in body_of(key, {})["seats"][0]  # no reader: no key
