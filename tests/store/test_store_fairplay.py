"""What the fair-play screen reads of a database (``SqlGames.finished_with_people``), on SQLite
and on PostgreSQL: finished games with people, oldest first, paged by cursor, each record with
its players: from the record, or from ``plays`` for a record kept before records had them, and a
guest's handle turned into his account's name once he has claimed one."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from tests.random_play import random_game

from tranque.cli import main
from tranque.rules.record import game_record
from tranque.rules.variants import HAVANA
from tranque.store import open_store
from tranque.store.games import SqlGames
from tranque.store.schema import accounts, games, guests, plays, tables


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'fp.db'}"
    return str(request.getfixturevalue("pg_url"))


def _play(table: str, guest: str, seat: int, when: float) -> dict[str, Any]:
    return dict(
        table_id=table, guest=guest, seat=seat, nickname=guest, preset="havana", won=False,
        rated=False, pollonas_given=0, pollonas_suffered=0, viajeras=0, finished=when,
    )  # fmt: skip


async def _fill(url: str) -> dict[str, dict[str, Any]]:
    records = {f"t{i}": game_record(random_game(HAVANA, random.Random(i))) for i in (1, 2, 3)}
    records["t2"]["players"] = ["~g3", None, "~g1", None]  # g1 has claimed "Ana" since
    store = await open_store(url)
    try:
        async with store._begin() as conn:
            for g in ("g1", "g2", "g3"):
                await conn.execute(guests.insert().values(id=g, nickname=g, created=1.0))
            await conn.execute(accounts.insert().values(
                guest="g1", name="Ana", name_key="ana", password_hash="x", created=2.0,
                name_skeleton="ana"))  # fmt: skip
            for i, (tid, record) in enumerate(records.items()):
                when = 10.0 + i
                row = dict(id=tid, host="g1", status="over", info="{}", created=when, ended=when)
                await conn.execute(tables.insert().values(**row))
                await conn.execute(games.insert().values(
                    table_id=tid, record=json.dumps(record), finished=when))  # fmt: skip
            # t1: kept before records had players; t2: has them; t3: bots only, no plays.
            await conn.execute(plays.insert(), [_play("t1", "g1", 0, 10.0),
                                                _play("t1", "g2", 2, 10.0),
                                                _play("t2", "g3", 0, 11.0),
                                                _play("t2", "g1", 2, 11.0)])  # fmt: skip
    finally:
        await store.close()
    return records


def test_the_screen_reads_finished_games_with_people_and_their_players(
    db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async def go() -> None:
        await _fill(db_url)
        store = await open_store(db_url, migrate=False)
        try:
            got = SqlGames(store)
            rows = await got.finished_with_people(None, 10)
            assert [c.table for c, _ in rows] == ["t1", "t2"]  # t3 had nobody
            assert rows[0][1]["players"] == ["Ana", None, "~g2", None]
            assert rows[1][1]["players"] == ["~g3", None, "Ana", None]
            first = await got.finished_with_people(None, 1)
            then = await got.finished_with_people(first[0][0], 1)
            assert [c.table for c, _ in first + then] == ["t1", "t2"]
            assert await got.finished_with_people(then[0][0], 1) == []
        finally:
            await store.close()

    asyncio.run(go())
    assert main(["fairplay", "screen", "--db", db_url, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 2
    people = {p["id"]: p for p in out["people"]}
    assert sorted(people) == ["Ana", "~g2", "~g3"] and people["Ana"]["games"] == 2
    assert [p["ids"] for p in out["partnerships"]] == [["Ana", "~g2"], ["Ana", "~g3"]]


def test_keep_writes_the_runs_flags_for_the_moderators_page(
    db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tranque.fairplay import stats
    from tranque.store.moderation import SqlModeration

    asyncio.run(_fill(db_url))
    assert main(["fairplay", "screen", "--keep", "x.json"]) == 2  # --keep needs --db
    assert "give --db" in capsys.readouterr().err
    real = stats.report

    def flagging(screened: Any) -> dict[str, Any]:
        # Two games are far too few for a flag: this run's report says Ana is one.
        out = real(screened)
        for p in out["people"]:
            if p["id"] == "Ana":
                p.update(flag=True, reasons=["suddenly_stronger"])
        return out

    monkeypatch.setattr(stats, "report", flagging)
    assert main(["fairplay", "screen", "--db", db_url, "--keep", "--json"]) == 0
    capsys.readouterr()

    async def kept() -> list[dict[str, Any]]:
        store = await open_store(db_url, migrate=False)
        try:
            return list((await SqlModeration(store).page(0.0))["flags"])
        finally:
            await store.close()

    [flag] = asyncio.run(kept())
    assert flag["subject"] == "Ana" and flag["kind"] == "person"
    assert flag["stats"]["reasons"] == ["suddenly_stronger"] and flag["stats"]["games"] == 2
