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
        # Kept with who sat where (nobody sat at t2: four nulls).
        assert (await store.load_record("t2")) == {
            "format": "tranque-game/1",
            "hands": [],
            "players": [None, None, None, None],
        }
        assert await store.load_record("t1") is None
        await store.set_meta("k", "1")
        await store.set_meta("k", "2")
        assert await store.get_meta("k") == "2"
        await store.close()

    asyncio.run(go())
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("SELECT version_num FROM alembic_version").fetchone()[0] == "0013a"
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


def test_the_sqlite_log_starts_over_under_a_steady_stream_of_commits(tmp_path: Path) -> None:
    """Checkpoints run beside the commits; the log (the WAL file) must still start over from
    its beginning, not grow with every commit for as long as the commits keep coming."""
    db = tmp_path / "w.db"
    wal = Path(f"{db}-wal")
    payload = {"pad": "x" * 3000}  # a page or so per row

    async def go() -> tuple[int, int]:
        store = await open_store(f"sqlite:///{db}")
        store.checkpoint_every = 0.02
        await store.create_table("t", "g", {})
        written = 0
        for i in range(1, 2001):  # one commit each: about 8 MB of log in all
            await store.append("t", [Entry(i, "e", payload, float(i))])
            written += 1
            if i % 20 == 0:
                await asyncio.sleep(0.002)  # the checkpoints' thread gets its turns
        biggest = wal.stat().st_size
        await store.close()
        return written, biggest

    written, biggest = asyncio.run(go())
    assert written == 2000
    # Without a restart the log holds every commit's pages (34 MB when it was so); starting
    # over after each checkpoint it held 3.2 MB at most.
    assert biggest < 12 * 2**20, biggest
