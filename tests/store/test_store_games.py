"""The finished games' rows: the public list finds public games behind many private ones and
pages by cursor; migration 0005b gives games finished before the club their plays (issue 12's
old games, missing from profiles), from the log and the replayed record, and skips a record
that does not replay."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from tests.random_play import random_game

from tranque.rules.record import game_record, replay_game
from tranque.rules.variants import HAVANA
from tranque.store import open_store
from tranque.store.db import MIGRATIONS
from tranque.store.games import SCAN, Cursor, SqlGames
from tranque.store.schema import games, tables


def test_a_cursor_reads_back_what_it_wrote_and_refuses_the_rest() -> None:
    c = Cursor(1764590100.123456, "t_1")
    assert Cursor.parse(c.text()) == c
    for bad in ["", "1.0", "x_t", "nan_t", "inf_t", "1.0_", "1.0_" + "t" * 65]:
        with pytest.raises(ValueError):
            Cursor.parse(bad)


def test_the_public_list_finds_public_games_behind_many_private_ones(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'a.db'}")
        try:
            rows = []
            for i in range(SCAN + 60):  # newest first: the private ones come before
                public = i < 2
                info = {"settings": {"public": public, "rules": "havana"}, "seats": []}
                tid = f"{'pub' if public else 'priv'}{i:04d}"
                rows.append((tid, float(i), info))
            async with store._begin() as conn:
                for tid, when, info in rows:
                    await conn.execute(tables.insert().values(
                        id=tid, host="h", status="over", info=json.dumps(info), created=when,
                        ended=when))  # fmt: skip
                    await conn.execute(games.insert().values(table_id=tid, record="{}",
                                                             finished=when))  # fmt: skip
            got = SqlGames(store)
            assert [g["table"] for g in await got.public_games(5, None)] == ["pub0001", "pub0000"]
            one = await got.public_games(1, None)
            after = Cursor(one[0]["finished"], one[0]["table"])
            assert [g["table"] for g in await got.public_games(5, after)] == ["pub0000"]
        finally:
            await store.close()

    asyncio.run(go())


def test_0005b_gives_old_games_their_plays(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    engine = sa.create_engine(f"sqlite:///{db}")
    game = random_game(HAVANA, random.Random(3))
    record = game_record(game)
    assert replay_game(record).winner == game.winner is not None
    with engine.begin() as conn:
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0004a")
        for g in ("ana", "bea", "ciro"):
            conn.exec_driver_sql(f"INSERT INTO guests VALUES ('{g}', '{g}', 1.0)")
        for tid, text in (("old", json.dumps(record)), ("bad", '{"format": "tranque-game/1"}')):
            conn.exec_driver_sql(
                f"INSERT INTO tables (id, host, status, info, created) VALUES"
                f" ('{tid}', 'ana', 'over', '{{}}', 1.0)"
            )
            conn.exec_driver_sql(
                f"INSERT INTO games (table_id, record, finished) VALUES ('{tid}', ?, 42.0)",
                (text,),
            )
            # ana sat at 0 and bea at 1, then bea stood and sat at 2; ciro sat at 1 for "bad".
            log = [("sat", {"seat": 0, "guest": "ana", "nickname": "Ana"}),
                   ("sat", {"seat": 1, "guest": "bea", "nickname": "Bea"}),
                   ("stood", {"seat": 1, "guest": "bea"}),
                   ("sat", {"seat": 2, "guest": "bea", "nickname": "Bea"})]  # fmt: skip
            for seq, (kind, data) in enumerate(log, 1):
                conn.exec_driver_sql(
                    "INSERT INTO events (table_id, seq, type, payload, ts)"
                    " VALUES (?, ?, ?, ?, 1.0)",
                    (tid, seq, kind, json.dumps(data)),
                )
    engine.dispose()

    async def go() -> None:
        store = await open_store(f"sqlite:///{db}")
        try:
            got = SqlGames(store)
            ana = await got.person_games("ana", 10, None)
            bea = await got.person_games("bea", 10, None)
            assert [g["table"] for g in ana] == ["old"] and [g["table"] for g in bea] == ["old"]
            assert (ana[0]["seat"], bea[0]["seat"]) == (0, 2)
            assert ana[0]["won"] == bea[0]["won"] == (game.winner == 0)
            assert ana[0]["rated"] is False and ana[0]["change"] is None
            assert await got.people_seats("old") == (0, 2)
            assert await got.people_seats("bad") == ()  # it does not replay: left as it was
        finally:
            await store.close()

    asyncio.run(go())
