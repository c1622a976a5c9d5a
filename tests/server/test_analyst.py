"""The analyst on a real database (SQLite, and PostgreSQL for two nodes): a finished game with
people is analysed once, by one node of two; a claim lost with its node is taken again; a game
without people is never analysed; a record that cannot be analysed is marked failed, not retried
for ever. The analyses are real (small hands of four tiles, so they are quick)."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import msgspec
import pytest
from tests.random_play import random_game

from tranque.analysis import analyze_record
from tranque.rules.game import MatchState
from tranque.rules.record import game_record, match_record
from tranque.rules.variants import Rules
from tranque.runtime.analysis_job import AnalysisRequest, run_analysis
from tranque.server.analyst import Analyst
from tranque.store import open_store
from tranque.store.db import Store
from tranque.store.games import FAIR, SqlGames
from tranque.store.schema import analyses, games, plays, tables

SHORT = Rules(tiles_each=4)
_encode = msgspec.json.Encoder().encode


def a_game(seed: int) -> dict[str, Any]:
    return game_record(random_game(SHORT, random.Random(seed)))


def a_match(seed: int) -> dict[str, Any]:
    """A match of two games or more (a pollona alone wins one)."""
    rules = Rules(tiles_each=4, target=60, games_to_win_match=2)
    for s in range(seed, seed + 50):
        rng = random.Random(s)
        match = MatchState(rules)
        while match.winner is None:
            match = match.add_game(random_game(rules, rng))
        if len(match.games) >= 2:
            return match_record(match)
    raise AssertionError("no match of two games")


class Counting:
    """A thinker whose analyses run on a thread (the real analysis), counted."""

    analysis_slots = 2

    def __init__(self) -> None:
        self.asked: list[tuple[str, int]] = []

    async def analyze(self, request: AnalysisRequest) -> dict[str, Any]:
        self.asked.append((request.table_id, request.hand))
        return await asyncio.to_thread(run_analysis, request)


async def finished(
    store: Store, tid: str, record: dict[str, Any], people: tuple[int, ...], when: float
) -> None:
    """A finished table as ``Store.finish_table`` leaves it, with people at ``people``."""
    seats = [{"kind": "person" if s in people else "bot", "nickname": f"p{s}"} for s in range(4)]
    info = {"settings": {"public": False}, "seats": seats}
    async with store._begin() as conn:
        await conn.execute(
            tables.insert().values(id=tid, host="h", status="over", info=_encode(info).decode(),
                                   created=when, ended=when)
        )  # fmt: skip
        await conn.execute(
            games.insert().values(table_id=tid, record=_encode(record).decode(), finished=when)
        )
        for s in people:
            await conn.execute(
                plays.insert().values(table_id=tid, guest=f"g-{tid}-{s}", seat=s, nickname="p",
                                      preset=None, won=False, rated=False, pollonas_given=0,
                                      pollonas_suffered=0, viajeras=0, finished=when)
            )  # fmt: skip


async def pending(store: Store, tid: str, node: str, claimed: float) -> None:
    async with store._begin() as conn:
        await conn.execute(
            analyses.insert().values(table_id=tid, part=FAIR, status="pending", seats="0",
                                     node=node, claimed=claimed, result=None, updated=claimed)
        )  # fmt: skip


async def until(check: Any, seconds: float = 120) -> None:
    """Wait for the state the test is about (each look is a query; nothing sleeps for it)."""
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, "it never happened"
        await asyncio.sleep(0.05)


def rows_result(parts: list[Any]) -> dict[str, Any]:
    result: dict[str, Any] = parts[0].result
    return result


async def status(rows: SqlGames, tid: str) -> str | None:
    found = [r for r in await rows.parts(tid) if r.part == FAIR]
    return found[0].status if found else None


async def two_nodes_once(url: str) -> None:
    store = await open_store(url)
    try:
        rows = SqlGames(store)
        records = {"g0": a_game(0), "g1": a_game(1), "m2": a_match(2)}
        for i, (tid, record) in enumerate(records.items()):
            await finished(store, tid, record, (0, 2), 1000.0 + i)
        await finished(store, "bots", a_game(9), (), 2000.0)
        first, second = Counting(), Counting()
        nodes = [Analyst(store, first, "a", poll=0.05), Analyst(store, second, "b", poll=0.05)]
        for n in nodes:
            n.start()

        async def all_done() -> bool:
            return all([await status(rows, tid) == "done" for tid in records])

        await until(all_done)
        for n in nodes:
            await n.close()
        asked = first.asked + second.asked
        # Every hand of every game analysed once, whichever node did it.
        expected = sorted(
            (tid, h["number"])
            for tid, r in records.items()
            for g in r.get("games", [r])
            for h in g["hands"]
        )
        assert sorted(asked) == expected
        for tid, record in records.items():
            [row] = await rows.parts(tid)
            assert row.seats == (0, 2)
            # Hand by hand, the very analysis `tranque analyze RECORD --seat 0 --seat 2` makes.
            assert row.result == analyze_record(record, seats=(0, 2))
        assert "games" in rows_result(await rows.parts("m2"))
        # Nothing else is due: the game of bots alone is not to be analysed at all.
        assert await rows.unanalysed(10) == [] and await rows.parts("bots") == []
    finally:
        await store.close()


@pytest.mark.slow
def test_a_game_is_analysed_once_by_one_of_two_nodes_on_sqlite(tmp_path: Any) -> None:
    asyncio.run(two_nodes_once(f"sqlite:///{tmp_path / 'a.db'}"))


@pytest.mark.slow
def test_a_game_is_analysed_once_by_one_of_two_nodes_on_postgresql(pg_url: str) -> None:
    asyncio.run(two_nodes_once(pg_url))


@pytest.mark.slow
def test_a_claim_lost_in_a_crash_is_taken_again_and_a_live_one_is_left(tmp_path: Any) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'a.db'}")
        try:
            rows = SqlGames(store)
            now = time.time()
            for i, tid in enumerate(["dead", "mine", "alive", "broken"]):
                record = a_game(i)
                if tid == "broken":
                    record["hands"][0]["moves"] = ["pass", *record["hands"][0]["moves"]]
                await finished(store, tid, record, (0,), now - 10 + i)
            await pending(store, "dead", "elsewhere", now - 1000)  # its node died long ago
            await pending(store, "mine", "b", now)  # this node's, from before its restart
            await pending(store, "alive", "elsewhere", now)  # a node at work on it now
            analyst = Analyst(store, Counting(), "b", poll=0.05, stale=120)
            analyst.start()

            async def settled() -> bool:
                states = [await status(rows, t) for t in ("dead", "mine", "broken")]
                return states == ["done", "done", "failed"]

            await until(settled)
            await analyst.close()
            [alive] = await rows.parts("alive")
            assert (alive.status, alive.node) == ("pending", "elsewhere")
            [broken] = await rows.parts("broken")
            assert "pass" in broken.result["error"] or "hand 1" in broken.result["error"]
        finally:
            await store.close()

    asyncio.run(go())


class Idle(Counting):
    """``serve --analysis 0``: a node whose workers analyse nothing."""

    analysis_slots = 0


def test_a_node_with_no_analysis_slots_leaves_every_game_to_the_others(tmp_path: Any) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'idle.db'}")
        try:
            rows = SqlGames(store)
            await finished(store, "g0", a_game(0), (0,), 1000.0)
            idle, busy = Idle(), Counting()
            off = Analyst(store, idle, "off", poll=0.05)
            off.start()
            assert off.task is None  # it does not even look
            assert not await off.ask("g0", "hindsight:1:1", (0, 1, 2, 3))  # left for the others
            assert await rows.parts("g0") == []  # and not claimed: another node may take it
            on = Analyst(store, busy, "on", poll=0.05)
            on.start()
            await until(lambda: _done(rows, "g0"))
            await on.close()
            await off.close()
            assert idle.asked == [] and busy.asked
        finally:
            await store.close()

    asyncio.run(go())


async def _done(rows: SqlGames, tid: str) -> bool:
    return await status(rows, tid) == "done"


def test_a_busy_node_holds_a_games_analysis_with_its_claim_until_it_is_quieter(
    tmp_path: Any,
) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'busy.db'}")
        try:
            rows = SqlGames(store)
            await finished(store, "g0", a_game(0), (0,), 1000.0)
            thinker = Counting()
            analyst = Analyst(store, thinker, "a", poll=0.05, busy=-1.0)  # busier than that always

            async def waited() -> bool:
                return analyst.waits >= 3

            analyst.start()
            await until(waited)
            assert thinker.asked == []  # not one hand yet
            assert await status(rows, "g0") == "pending"  # but claimed, and the claim renewed
            analyst.busy = 10.0  # quieter
            await until(lambda: _done(rows, "g0"))
            await analyst.close()
            assert thinker.asked
        finally:
            await store.close()

    asyncio.run(go())
