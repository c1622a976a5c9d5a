"""The store's side of tables that come and go: expired tables, final info, the 0002 migration."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from tranque.store import open_store
from tranque.store.db import MIGRATIONS
from tranque.table.ports import Entry


def test_expired_tables_are_not_unfinished_and_finished_ones_keep_their_final_info(
    tmp_path: Path,
) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'l.db'}")
        for tid in ("waiting", "playing", "done"):
            await store.create_table(tid, "g", {"settings": {"x": 1}})
        await store.append("playing", [Entry(i, "e", {"i": i}, float(i)) for i in range(1, 11)])
        await store.expire_table("waiting")
        final = {"table": "done", "seats": [{"nickname": "ana"}], "over": True}
        await store.finish_table("done", {"format": "tranque-game/1", "hands": []}, final)
        await store.expire_table("done")  # only an open table expires
        assert await store.unfinished_tables() == ["playing"]
        waiting = await store.load_table("waiting")
        assert waiting is not None and waiting["status"] == "expired" and waiting["ended"]
        done = await store.load_table("done")
        assert done is not None and done["status"] == "over" and done["info"] == final
        playing = await store.load_table("playing")
        assert playing is not None and playing["status"] == "open" and playing["ended"] is None
        assert playing["info"] == {"settings": {"x": 1}} and playing["host"] == "g"
        assert await store.load_table("nothing") is None
        assert [e.seq for e in await store.load_events("playing", upto=4)] == [1, 2, 3, 4]
        assert len(await store.load_events("playing")) == 10
        await store.close()

    asyncio.run(go())


def test_the_0002_migration_gives_tables_already_over_their_end_time(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        conn.exec_driver_sql(
            "INSERT INTO tables (id, host, status, info, created) VALUES"
            " ('old', 'g', 'over', '{}', 1.0), ('open', 'g', 'open', '{}', 2.0)"
        )
        conn.exec_driver_sql(
            "INSERT INTO games (table_id, record, finished) VALUES ('old', '{}', 42.0)"
        )
    engine.dispose()

    async def go() -> None:
        store = await open_store(f"sqlite:///{db}")
        old = await store.load_table("old")
        assert old is not None and old["ended"] == 42.0 and old["status"] == "over"
        still = await store.load_table("open")
        assert still is not None and still["ended"] is None
        assert await store.unfinished_tables() == ["open"]
        await store.close()

    asyncio.run(go())
    con = sqlite3.connect(db)
    assert con.execute("SELECT version_num FROM alembic_version").fetchone()[0] == "0013a"
    con.close()
