"""``server.seat_ratings``: each seat's rating looked up when the seating changes, on a real
SQLite store with real ratings (a finished rated table settled them); many tables changing at
once are one batch, a query per preset; bots, empty seats and custom rules have none."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tranque.club.ratings import Skill, rate
from tranque.server.seat_ratings import SeatRatings
from tranque.store import open_store
from tranque.store.club import SqlAccounts, SqlProfiles
from tranque.table.owner import TableOwner
from tranque.table.ports import Entry
from tranque.table.service import TableService, TableSettings, fixed_seeds

PEOPLE = ["gA", "gB", "gC", "gD"]


async def _rated(store: Any) -> list[Skill]:
    """A finished table of the four, pair B winning: their ratings after it."""
    await store.create_table("done", "gA", {})
    sat = [
        Entry(s + 1, "sat", {"seat": s, "guest": g, "nickname": g}, 1.0)
        for s, g in enumerate(PEOPLE)
    ]
    await store.append("done", sat)
    info = {
        "settings": {"rules": "havana"},
        "seats": [{"kind": "person", "nickname": g} for g in PEOPLE],
        "result": {"winner": "B", "pollona": False, "pollonas": [0, 0], "viajeras": [0, 0]},
    }
    told = await store.finish_table("done", {"format": "tranque-game/1", "hands": []}, info)
    after = rate([Skill()] * 4, 1)
    # What the owner pushes as the ``rating`` frame: each seat's change, no guest id.
    assert told is not None and told["rated"] and told["preset"] == "havana"
    assert [x["after"] for x in told["seats"]] == [a.rating for a in after]
    assert "gA" not in str(told)
    return after


def _owner(tid: str, rules: Any, seats: list[tuple[str, str]]) -> TableOwner:
    """A table (not started) with ``seats``: ("person", guest), ("bot", name) or ("empty", "")."""
    svc = TableService(tid, fixed_seeds(b"x"))
    settings = TableSettings(practice=False).to_json() | {"rules": rules}
    svc.apply(Entry(1, "created", {"settings": settings, "host": "h"}, 0.0))
    for s, (kind, who) in enumerate(seats):
        if kind == "person":
            svc.apply(Entry(svc.seq + 1, "sat", {"seat": s, "guest": who, "nickname": who}, 0.0))
        elif kind == "bot":
            svc.apply(Entry(svc.seq + 1, "bot_sat", {"seat": s, "bot": who}, 0.0))
    return TableOwner(svc, store=None, clock=None)  # type: ignore[arg-type]


class Told:
    """The owners the seat ratings told, and an event per count reached (no sleeping)."""

    def __init__(self) -> None:
        self.owners: list[TableOwner] = []
        self.changed = asyncio.Event()

    def __call__(self, owner: TableOwner) -> None:
        self.owners.append(owner)
        self.changed.set()

    async def reach(self, n: int) -> None:
        while len(self.owners) < n:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 10)


def test_many_tables_at_once_are_one_lookup_per_preset_and_a_change_is_looked_up_again(
    tmp_path: Path,
) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 's.db'}")
        try:
            after = await _rated(store)
            told = Told()
            profiles = SqlProfiles(store)
            await store.add_guest("gB", "Beto", 0.0)  # an account holder: his name is a link
            await SqlAccounts(store).create_account("gB", "beto", "beto", "beto", "h", "s", 0.0)
            sr = SeatRatings(profiles.ratings_of, told, names=profiles.account_names)
            mixed = [("person", "gB"), ("bot", "heuristic"), ("person", "newcomer"), ("empty", "")]
            owners = [
                _owner(f"h{i}", "havana", [("person", g) for g in PEOPLE]) for i in range(150)
            ]
            owners += [_owner(f"o{i}", "oriente", mixed) for i in range(150)]
            custom = _owner("c", {"preset": "havana", "target": 50}, [("person", "gA")])
            owners.append(custom)
            assert all(sr.seats(o) is None for o in owners)  # nothing known yet
            await told.reach(len(owners))
            assert sr.lookups == 2  # 301 tables: one query for Havana, one for Oriente
            havana = {"preset": "havana", "seats": [
                {"rating": a.rating, "provisional": True, "games": 1} for a in after]}  # fmt: skip
            assert owners[0].seat_ratings == havana | {"profiles": [None, "beto", None, None]}
            havana["profiles"] = [None, "beto", None, None]
            new = {"rating": 1500, "provisional": True, "games": 0}
            assert owners[200].seat_ratings == {
                "preset": "oriente",
                "seats": [new, None, new, None],
                "profiles": ["beto", None, None, None],
            }
            # Custom rules: no ratings, but the names still link.
            assert custom.seat_ratings == {"preset": None, "seats": [None] * 4,
                                           "profiles": [None] * 4}  # fmt: skip
            assert sr.profiles(owners[200]) == ["beto", None, None, None]
            # Touched again without a change: the known ratings, no new lookup.
            assert sr.seats(owners[0]) == havana["seats"]
            assert sr.seats(owners[0]) == havana["seats"]
            # Somebody stands: that table alone is looked up again.
            svc = owners[0].service
            svc.apply(Entry(svc.seq + 1, "stood", {"seat": 2}, 0.0))
            assert sr.seats(owners[0]) == havana["seats"]  # the last known, until the answer
            await told.reach(len(owners) + 1)
            assert told.owners[-1] is owners[0] and sr.lookups == 3
            assert owners[0].seat_ratings is not None
            assert owners[0].seat_ratings["seats"][2] is None
            # A table gone from this node is forgotten.
            sr.gone("h1")
            assert "h1" not in sr.known
            await sr.close()
        finally:
            await store.close()

    asyncio.run(go())


def test_a_lookup_that_fails_keeps_the_table_for_the_next_try(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'f.db'}")
        told = Told()
        failed = asyncio.Event()
        profiles = SqlProfiles(store)

        async def read(guests: Any, preset: str) -> Any:
            try:
                return await profiles.ratings_of(guests, preset)
            except Exception:
                failed.set()
                raise

        sr = SeatRatings(read, told)
        await store.close()  # the database is away: the real query fails
        owner = _owner("t", "havana", [("person", "gA")])
        sr.seats(owner)
        await asyncio.wait_for(failed.wait(), 10)
        assert owner.seat_ratings is None and told.owners == []
        assert "t" in sr.dirty  # to be tried again after the pause
        await sr.close()

    asyncio.run(go())


def test_a_seat_that_changes_while_its_lookup_is_out_is_looked_up_again(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'r.db'}")
        try:
            told = Told()
            profiles = SqlProfiles(store)
            owner = _owner("t", "havana", [("person", g) for g in PEOPLE])
            sr: SeatRatings

            async def read(guests: Any, preset: str) -> Any:
                got = await profiles.ratings_of(guests, preset)
                if sr.lookups == 1:  # seat 1 stands while the first query is out
                    svc = owner.service
                    svc.apply(Entry(svc.seq + 1, "stood", {"seat": 1}, 0.0))
                    sr.seats(owner)  # what the owner's change calls
                return got

            sr = SeatRatings(read, told)
            sr.seats(owner)
            await told.reach(1)
            # Told once, with the seating as it is now: the answer for the old one was dropped.
            assert sr.lookups == 2 and told.owners == [owner]
            assert owner.seat_ratings is not None and owner.seat_ratings["seats"][1] is None
            await sr.close()
        finally:
            await store.close()

    asyncio.run(go())
