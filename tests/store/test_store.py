"""The SQL store: migrations, the event log, group commits, reopening in place."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from tranque.store import async_url, open_store
from tranque.table.ports import Entry


def test_urls() -> None:
    assert async_url("postgresql://u@h/db") == "postgresql+asyncpg://u@h/db"


def test_the_log_survives_reopening_and_concurrent_appends_share_commits(tmp_path: Path) -> None:
    db = tmp_path / "t.db"

    async def go() -> None:
        store = await open_store(f"sqlite:///{db}")
        await store.create_table("t1", "g", {"x": 1})
        await store.create_table("t2", "g", {})
        await asyncio.gather(
            *(store.append("t1", [Entry(i, "e", {"i": i}, float(i))]) for i in range(1, 101))
        )
        assert store.commits < 100  # grouped
        await store.finish_table("t2", {"format": "tranque-game/1", "hands": []})
        await store.close()
        store = await open_store(f"sqlite:///{db}")  # the migration finds the schema at head
        entries = await store.load_events("t1")
        assert [e.seq for e in entries] == list(range(1, 101))
        assert entries[5].data == {"i": 6} and entries[5].ts == 6.0
        assert await store.unfinished_tables() == ["t1"]
        assert (await store.load_record("t2")) == {"format": "tranque-game/1", "hands": []}
        assert await store.load_record("t1") is None
        await store.set_meta("k", "1")
        await store.set_meta("k", "2")
        assert await store.get_meta("k") == "2"
        await store.close()

    asyncio.run(go())
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("SELECT version_num FROM alembic_version").fetchone()[0] == "0005b"
    con.close()


def test_a_sequence_number_is_never_stored_twice(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'u.db'}")
        await store.append("t", [Entry(1, "e", {}, 0.0)])
        try:
            await store.append("t", [Entry(1, "e", {}, 0.0)])
        except Exception as exc:
            assert "UNIQUE" in str(exc) or "unique" in str(exc)
        else:
            raise AssertionError("a duplicate (table, seq) was accepted")
        assert len(await store.load_events("t")) == 1
        await store.close()

    asyncio.run(go())
