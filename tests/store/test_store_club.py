"""What a finished table leaves in the club's rows: the plays, and ratings updated once, with
the record, for tables four people began (on SQLite and on PostgreSQL)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tranque.club.ratings import Skill, rate
from tranque.store import open_store
from tranque.store.club import SqlProfiles
from tranque.store.db import Store
from tranque.table.ports import Entry

PEOPLE = ["gA", "gB", "gC", "gD"]


async def _table(
    store: Store,
    tid: str,
    who: list[str | None],
    kinds: list[str],
    *,
    winner: str = "A",
    pollona: bool = False,
    rules: Any = "havana",
) -> None:
    """A finished table as the owner saves it: the log's ``sat`` entries and the final info."""
    await store.create_table(tid, who[0] or "host", {})
    entries = [
        Entry(i + 1, "sat", {"seat": s, "guest": g, "nickname": g}, 1.0)
        for i, (s, g) in enumerate((s, g) for s, g in enumerate(who) if g is not None)
    ]
    await store.append(tid, entries)
    info = {
        "settings": {"rules": rules},
        "seats": [{"kind": k, "nickname": who[s] or "bot"} for s, k in enumerate(kinds)],
        "result": {
            "winner": winner,
            "pollona": pollona,
            "pollonas": [int(pollona and winner == "A"), int(pollona and winner == "B")],
            "viajeras": [2, 1],
        },
    }
    await store.finish_table(tid, {"format": "tranque-game/1", "hands": []}, info)


async def _skills(store: Store, preset: str = "havana") -> list[Skill | None]:
    got = await SqlProfiles(store).ratings_of(PEOPLE, preset)
    return [got.get((g, preset)) for g in PEOPLE]


async def _check_settlement(store: Store) -> None:
    profiles = SqlProfiles(store)
    # Four people: every rating moves as club.ratings says, with a pollona counting double.
    await _table(store, "t1", PEOPLE, ["person"] * 4, winner="B", pollona=True)
    expected = rate([Skill()] * 4, 1, pollona=True)
    assert await _skills(store) == expected
    # A leaver keeps his seat ("person", a bot finishing for him): he takes his pair's result.
    kinds = ["person"] * 4
    await _table(store, "t2", PEOPLE, kinds, winner="A")
    expected = rate(expected, 0)
    assert await _skills(store) == expected
    # With a bot in a seat nothing is rated, but the people's plays count.
    await _table(store, "t3", ["gA", None, "gC", "gD"], ["person", "bot", "person", "person"])
    assert await _skills(store) == expected
    # Custom rules are not a preset: not rated either.
    await _table(store, "t4", PEOPLE, kinds, rules={"preset": "havana", "target": 30})
    assert await _skills(store) == expected
    # Saving a record twice fails, and rates nothing twice.
    with pytest.raises(Exception):  # noqa: B017 - the driver's integrity error
        await store.finish_table("t2", {"format": "tranque-game/1", "hands": []}, {})
    assert await _skills(store) == expected
    counts = await profiles.counts("gA")
    assert counts == {
        "played": 4,
        "won": 3,
        "pollonas_given": 0,
        "pollonas_suffered": 1,
        "viajeras": 2 * 4,  # pair A's, in every game
    }
    recent = await profiles.recent("gB")
    assert [(r["table"], r["rated"]) for r in recent] == [("t4", False), ("t2", True), ("t1", True)]
    assert recent[2]["change"] == round(rate([Skill()] * 4, 1, pollona=True)[1].mu) - 1500
    history = await profiles.history("gB")
    assert [h["table"] for h in history] == ["t1", "t2"]


def test_settlement_on_sqlite(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'c.db'}")
        try:
            await _check_settlement(store)
        finally:
            await store.close()

    asyncio.run(go())


def test_settlement_on_postgresql_and_games_finishing_at_once(pg_url: str) -> None:
    """Two games with people in common saved at the same moment: both updates land (the rating
    rows are locked in one order, so they wait for each other and neither is lost)."""

    async def go() -> None:
        store = await open_store(pg_url)
        other = await open_store(pg_url)  # a second node on the same database
        try:
            await _check_settlement(store)
            before = await _skills(store)
            await asyncio.gather(
                _table(store, "x1", PEOPLE, ["person"] * 4, winner="A"),
                _table(other, "x2", ["gD", "gC", "gB", "gA"], ["person"] * 4, winner="A"),
            )
            after = await _skills(store)
            assert all(a is not None and b is not None and a.games == b.games + 2
                       for a, b in zip(after, before, strict=True))  # fmt: skip
        finally:
            await store.close()
            await other.close()

    asyncio.run(go())
