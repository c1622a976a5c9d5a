"""What a finished table leaves for the registered pairs in it, on SQLite and PostgreSQL: the
game counted and the pair rating moved once (a second settling of the same table moves
nothing), against the opposing pair or the two opponents' own ratings; games before the pair
was formed, or with the two not partners, are not counted; dissolving forgets it all."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from tranque.club.pairs import composite, rate_pair
from tranque.club.ratings import Skill
from tranque.store import open_store
from tranque.store.club import SqlProfiles
from tranque.store.db import Store
from tranque.store.pair_settle import settle_pairs
from tranque.store.pairs import SqlPairs
from tranque.table.ports import Entry

PEOPLE = ["gA", "gB", "gC", "gD"]


def _result(winner: str, pollona: bool = False) -> dict[str, Any]:
    return {
        "winner": winner,
        "pollona": pollona,
        "pollonas": [int(pollona and winner == "A"), int(pollona and winner == "B")],
        "viajeras": [0, 0],
        "points": [100, 43] if winner == "A" else [57, 112],
    }


async def _table(
    store: Store, tid: str, who: list[str], winner: str, pollona: bool = False
) -> None:
    await store.create_table(tid, who[0], {})
    entries = [
        Entry(s + 1, "sat", {"seat": s, "guest": g, "nickname": g}, 1.0) for s, g in enumerate(who)
    ]
    await store.append(tid, entries)
    info = {
        "settings": {"rules": "havana"},
        "seats": [{"kind": "person", "nickname": g} for g in who],
        "result": _result(winner, pollona),
    }
    await store.finish_table(tid, {"format": "tranque-game/1", "hands": []}, info)


async def _pair(rows: SqlPairs, name: str, x: str, y: str) -> int:
    pair = await rows.propose(name, *sorted((x, y)), x, time.time())
    assert pair is not None
    assert await rows.form(pair.id, time.time())
    return pair.id


async def _check(store: Store) -> None:
    rows, profiles = SqlPairs(store), SqlProfiles(store)

    async def skills() -> list[Skill]:
        got = await profiles.ratings_of(PEOPLE, "havana")
        return [got.get((g, "havana"), Skill()) for g in PEOPLE]

    # Played together before forming the pair: not counted (the pair starts at zero).
    await _table(store, "t0", PEOPLE, "A")
    ac = await _pair(rows, "Los-Primos", "gA", "gC")
    assert (await rows.record(ac))["games"] == 0
    # Against two people who are no pair: they are one player, their ratings' mean.
    before = await skills()
    await _table(store, "t1", PEOPLE, "B", pollona=True)
    expected = rate_pair(Skill(), composite(before[1], before[3]), 1, pollona=True)[0]
    assert await rows.ratings(ac) == {"havana": expected}
    # Against a registered pair: both move, one against the other.
    bd = await _pair(rows, "Dos-Gatos", "gD", "gB")
    await _table(store, "t2", PEOPLE, "A")
    ac_now, bd_now = rate_pair(expected, Skill(), 0)
    assert await rows.ratings(ac) == {"havana": ac_now}
    assert await rows.ratings(bd) == {"havana": bd_now}
    # Settled again (a second call for the same table): nothing moves.
    async with store._begin() as conn:
        again = await settle_pairs(conn, store.dialect, "t2", "havana", PEOPLE, await skills(),
                                   _result("A"), set(), time.time())  # fmt: skip
    assert again == 0
    assert await rows.ratings(ac) == {"havana": ac_now}
    assert await rows.ratings(bd) == {"havana": bd_now}
    # Not partners (side by side): not their game.
    await _table(store, "t3", ["gA", "gC", "gB", "gD"], "A")
    assert await rows.ratings(ac) == {"havana": ac_now}
    assert await rows.record(ac) == {
        "games": 2, "won": 1, "lost": 1, "pollonas_given": 0, "pollonas_suffered": 1,
        "points_for": 57 + 100, "points_against": 112 + 43,
    }  # fmt: skip
    recent = await rows.recent(ac)
    assert [(r["table"], r["won"], r["page"]) for r in recent] == [
        ("t2", True, "/g/t2"), ("t1", False, "/g/t1")
    ]  # fmt: skip
    assert recent[0]["after"] == round(ac_now.mu) and recent[1]["before"] == 1500
    # The leaderboard keeps settled ratings only (ten games).
    assert await rows.leaderboard("havana", 50) == []
    # Dissolved: the pair's rows go, the people's own ratings stay.
    kept = await skills()
    assert await rows.drop(ac)
    assert await rows.ratings(ac) == {} and (await rows.record(ac))["games"] == 0
    assert await skills() == kept
    assert [p.name for p in await rows.of("gB")] == ["Dos-Gatos"]


def test_pairs_settle_once_on_sqlite(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'p.db'}")
        try:
            await _check(store)
        finally:
            await store.close()

    asyncio.run(go())


def test_pairs_settle_once_on_postgresql(pg_url: str) -> None:
    async def go() -> None:
        store = await open_store(pg_url)
        try:
            await _check(store)
        finally:
            await store.close()

    asyncio.run(go())
