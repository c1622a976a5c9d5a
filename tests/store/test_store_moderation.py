"""The moderation's rows (store.moderation) on SQLite and PostgreSQL: roles, an action and its
log line in one transaction, the log only ever appended to, reports, blocks, the screen's flags,
and a closed account out of the leaderboards."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tranque.moderation.rules import ModerationError, Standing
from tranque.moderation.service import COMMAND, Moderation
from tranque.store import open_store
from tranque.store.club import SqlProfiles
from tranque.store.moderation import SqlModeration
from tranque.store.schema import moderation_log, ratings


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: Any, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'mod.db'}"
    return str(request.getfixturevalue("pg_url"))


async def _log(rows: SqlModeration) -> list[tuple[str, str, str]]:
    async with rows.store._connect() as conn:
        q = sa.select(moderation_log).order_by(moderation_log.c.id)
        return [(r.moderator, r.action, r.target) for r in await conn.execute(q)]


def test_roles_actions_and_their_log_lines(url: str) -> None:
    async def go() -> None:
        store = await open_store(url)
        try:
            rows = SqlModeration(store)
            mod = Moderation(rows)
            assert await mod.set_role("m", "moderator", True, COMMAND, "trusted", 1.0)
            assert not await mod.set_role("m", "moderator", True, COMMAND, "again", 2.0)
            assert await mod.is_moderator("m") and not await mod.is_moderator("p")
            e = await mod.act("m", "p", "suspend", "signals to his partner", 100.0, hours=2)
            assert e.until == 100.0 + 7200
            assert await rows.standing("p") == Standing(100.0 + 7200, None, 0)
            assert await rows.suspended_among(["p", "q"], 101.0) == {"p"}
            assert await rows.suspended_among(["p", "q"], 100.0 + 7200) == set()
            # A refused action writes nothing.
            with pytest.raises(ModerationError):
                await mod.act("p", "m", "close", "revenge", 102.0)
            await mod.act("m", "p", "warn", "be nice", 103.0)
            await mod.act("m", "p", "lift", "appeal heard", 104.0)
            assert await rows.standing("p") == Standing(None, None, 1)
            await mod.act("m", "p", "close", "third time", 105.0)
            assert (await rows.standing("p")).closed == 105.0
            assert await mod.set_role("m", "moderator", False, COMMAND, "stepped down", 106.0)
            assert await _log(rows) == [
                (COMMAND, "grant:moderator", "m"),
                ("m", "suspend", "p"),
                ("m", "warn", "p"),
                ("m", "lift", "p"),
                ("m", "close", "p"),
                (COMMAND, "revoke:moderator", "m"),
            ]
        finally:
            await store.close()

    asyncio.run(go())


def test_reports_reviews_blocks_and_flags(url: str) -> None:
    async def go() -> None:
        store = await open_store(url)
        try:
            rows = SqlModeration(store)
            mod = Moderation(rows)
            await mod.set_role("m", "moderator", True, COMMAND, "trusted", 1.0)
            await mod.report("a", "p", "program", "t1", 10.0)
            with pytest.raises(ModerationError) as info:
                await mod.report("a", "p", "abuse", None, 11.0)
            assert info.value.code == "reported_already"
            await mod.report("b", "p", "partner_signals", None, 12.0)
            kept = await rows.save_flags(
                [{"id": "p", "reasons": ["stronger_than_the_strong_bot"], "games": 20},
                 {"ids": ["p", "q"], "reasons": ["hindsight_edge"], "games": 9}], 13.0,
            )  # fmt: skip
            assert kept == 2
            page = await rows.page(14.0)
            assert {f["subject"] for f in page["flags"]} == {"p", "p+q"}
            assert [r["reporter"] for r in page["reports"]] == ["b", "a"]
            await mod.act("m", "p", "review", "looked at his games: fine", 15.0, subject="p+q")
            page = await rows.page(16.0)
            assert [f["subject"] for f in page["flags"]] == ["p"]
            assert page["reports"] == []
            assert page["log"][0]["action"] == "review"
            # A flag seen again stays reviewed; its figures are the latest.
            await rows.save_flags([{"ids": ["p", "q"], "reasons": ["x"], "games": 10}], 17.0)
            assert [f["subject"] for f in (await rows.page(18.0))["flags"]] == ["p"]
            assert await mod.block("a", "p", True, 20.0)
            assert not await mod.block("a", "p", True, 21.0)
            assert await rows.blocked_by("a") == ["p"]
            assert await rows.blocks_among(["p", "a", "z"]) == {frozenset(("a", "p"))}
            assert await mod.block("a", "p", False, 22.0)
            assert await rows.blocks_among(["p", "a"]) == set()
            with pytest.raises(ModerationError):
                await mod.block("a", "a", True, 23.0)
        finally:
            await store.close()

    asyncio.run(go())


def test_a_closed_account_leaves_the_leaderboards(url: str) -> None:
    async def go() -> None:
        store = await open_store(url)
        try:
            async with store._begin() as conn:
                await conn.execute(
                    ratings.insert(),
                    [{"guest": g, "preset": "havana", "mu": mu, "sigma": 100.0, "games": 12,
                      "updated": 1.0} for g, mu in (("p", 1900.0), ("q", 1600.0))],
                )  # fmt: skip
            board = SqlProfiles(store)
            assert [r["guest"] for r in await board.leaderboard("havana", 10, 50)] == ["p", "q"]
            mod = Moderation(SqlModeration(store))
            await mod.set_role("m", "moderator", True, COMMAND, "trusted", 1.0)
            await mod.act("m", "p", "suspend", "a week off", 2.0, hours=24 * 7)
            assert [r["guest"] for r in await board.leaderboard("havana", 10, 50)] == ["p", "q"]
            await mod.act("m", "p", "close", "sold his account", 3.0)
            assert [r["guest"] for r in await board.leaderboard("havana", 10, 50)] == ["q"]
        finally:
            await store.close()

    asyncio.run(go())


def test_a_suspended_persons_game_is_not_rated_and_is_again_once_it_ends(url: str) -> None:
    from test_store_club import PEOPLE, _skills, _table

    from tranque.club.ratings import Skill, rate

    async def go() -> None:
        store = await open_store(url)
        try:
            mod = Moderation(SqlModeration(store))
            await mod.set_role("m", "moderator", True, COMMAND, "trusted", 1.0)
            now = time.time()
            await mod.act("m", "gC", "suspend", "partner signals", now, hours=1)
            await _table(store, "t1", PEOPLE, ["person"] * 4, winner="B")
            assert await _skills(store) == [None] * 4  # nobody's rating moved
            profiles = SqlProfiles(store)
            assert [r["rated"] for r in await profiles.recent("gA")] == [False]
            await mod.act("m", "gC", "lift", "appeal heard", now + 1)
            await _table(store, "t2", PEOPLE, ["person"] * 4, winner="B")
            assert await _skills(store) == rate([Skill()] * 4, 1)
        finally:
            await store.close()

    asyncio.run(go())
