"""``Store``: the event log, tables, finished records and settings on SQLAlchemy Core (async).

SQLite is the default (``sqlite:///tranque.db``, driven by aiosqlite, in WAL mode); PostgreSQL is
a URL away (``postgresql://...`` runs on asyncpg). The schema is created and upgraded in place by
the Alembic migrations in ``tranque/store/migrations``, run at start-up.

Appends are group-committed: every table owner waiting on ``append`` at the same moment shares one
transaction, and each returns only once that transaction is committed. An owner sends nothing
before its entries are durable, so nothing a client saw can be lost by a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from tranque.store.schema import events, games, guests, meta, tables
from tranque.table.ports import Entry

MIGRATIONS = Path(__file__).parent / "migrations"
MAX_GROUP = 2000  # rows per group commit


def async_url(url: str) -> str:
    """``sqlite:///x.db`` -> ``sqlite+aiosqlite:///x.db``; ``postgresql://`` -> asyncpg."""
    if url.startswith("sqlite:"):
        return "sqlite+aiosqlite:" + url[len("sqlite:") :]
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+asyncpg://" + url.split("://", 1)[1]
    return url


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode: a commit survives the process being killed (not a power cut).
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    # Checkpoints run from a background task (PASSIVE, on another connection), so that a
    # commit never waits for one: that wait was the tail of the move latency.
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.close()


def _migrate(connection: sa.Connection) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")


class Store:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        # None: the store is closing; the writer stops once what came before is written.
        self._queue: asyncio.Queue[tuple[str, Sequence[Entry], asyncio.Future[None]] | None] = (
            asyncio.Queue()
        )
        self._closing = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self.commits = 0  # group commits made (for the benchmark)

    # -- life -----------------------------------------------------------------------------------

    async def migrate(self) -> None:
        async with self.engine.begin() as conn:
            await conn.run_sync(_migrate)

    def start(self) -> None:
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_loop(), name="store writer")
        if self.engine.dialect.name == "sqlite" and self._checkpointer is None:
            self._checkpointer = asyncio.create_task(self._checkpoints(), name="checkpoints")

    async def _checkpoints(self) -> None:
        while True:
            # Stopped between checkpoints, never in one: a connection cancelled in the middle of
            # a statement is not given back to the pool (aiosqlite warns when it is collected).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), 2.0)
                return
            with contextlib.suppress(Exception):
                async with self.engine.connect() as conn:
                    await conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    async def close(self) -> None:
        self._closing.set()
        if self._checkpointer is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpointer
            self._checkpointer = None
        if self._writer is not None:
            # What is queued, and the group being written, are written; then the writer stops.
            self._queue.put_nowait(None)
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        await self.engine.dispose()

    # -- the event log --------------------------------------------------------------------------

    async def append(self, table_id: str, entries: Sequence[Entry]) -> None:
        if self._writer is None:
            self.start()
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((table_id, entries, fut))
        await fut

    async def _write_loop(self) -> None:
        closing = False
        while not closing:
            first = await self._queue.get()
            if first is None:
                return
            group = [first]
            rows = len(first[1])
            while not self._queue.empty() and rows < MAX_GROUP:
                item = self._queue.get_nowait()
                if item is None:
                    closing = True
                    break
                group.append(item)
                rows += len(item[1])
            try:
                await self._write(group)
            except Exception as exc:  # every waiter learns of the failure; nothing is sent
                for _, _, fut in group:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            for _, _, fut in group:
                if not fut.done():
                    fut.set_result(None)

    async def _write(self, group: list[tuple[str, Sequence[Entry], asyncio.Future[None]]]) -> None:
        rows = [
            {
                "table_id": table_id,
                "seq": e.seq,
                "type": e.type,
                "payload": json.dumps(e.data, separators=(",", ":")),
                "ts": e.ts,
            }
            for table_id, entries, _ in group
            for e in entries
        ]
        async with self.engine.begin() as conn:
            await conn.execute(events.insert(), rows)
        self.commits += 1

    async def load_events(self, table_id: str, upto: int | None = None) -> list[Entry]:
        """The table's log in order; with ``upto``, only the entries with ``seq <= upto``."""
        q = (
            sa.select(events.c.seq, events.c.type, events.c.payload, events.c.ts)
            .where(events.c.table_id == table_id)
            .order_by(events.c.seq)
        )
        if upto is not None:
            q = q.where(events.c.seq <= upto)
        async with self.engine.connect() as conn:
            result = await conn.execute(q)
            return [Entry(r.seq, r.type, json.loads(r.payload), r.ts) for r in result]

    # -- tables and records ---------------------------------------------------------------------

    async def create_table(self, table_id: str, host: str, info: dict[str, Any]) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                tables.insert().values(
                    id=table_id,
                    host=host,
                    status="open",
                    info=json.dumps(info),
                    created=time.time(),
                )
            )

    async def table_exists(self, table_id: str) -> bool:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(tables.c.id).where(tables.c.id == table_id))
            ).first()
            return row is not None

    async def finish_table(
        self, table_id: str, record: dict[str, Any], info: dict[str, Any] | None = None
    ) -> None:
        """Save the record and mark the table over; ``info`` (the table's final info: seats,
        nicknames, tally) replaces the stored settings, so it is served once the table has left
        memory."""
        now = time.time()
        values: dict[str, Any] = {"status": "over", "ended": now}
        if info is not None:
            values["info"] = json.dumps(info)
        async with self.engine.begin() as conn:
            await conn.execute(
                games.insert().values(table_id=table_id, record=json.dumps(record), finished=now)
            )
            await conn.execute(tables.update().where(tables.c.id == table_id).values(**values))

    async def expire_table(self, table_id: str) -> None:
        """Mark a table that never started ``expired``: it is not rebuilt at start again."""
        async with self.engine.begin() as conn:
            await conn.execute(
                tables.update()
                .where(tables.c.id == table_id, tables.c.status == "open")
                .values(status="expired", ended=time.time())
            )

    async def load_table(self, table_id: str) -> dict[str, Any] | None:
        """The table's row: ``status``, ``info`` (decoded), ``created``, ``ended``; or None."""
        q = sa.select(
            tables.c.status, tables.c.info, tables.c.created, tables.c.ended, tables.c.host
        ).where(tables.c.id == table_id)
        async with self.engine.connect() as conn:
            row = (await conn.execute(q)).first()
        if row is None:
            return None
        return {
            "status": row.status,
            "info": json.loads(row.info),
            "created": row.created,
            "ended": row.ended,
            "host": row.host,
        }

    async def unfinished_tables(self) -> list[str]:
        async with self.engine.connect() as conn:
            result = await conn.execute(
                sa.select(tables.c.id).where(tables.c.status == "open").order_by(tables.c.created)
            )
            return [r.id for r in result]

    async def load_record(self, table_id: str) -> dict[str, Any] | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(games.c.record).where(games.c.table_id == table_id))
            ).first()
            return None if row is None else json.loads(row.record)

    # -- small things ---------------------------------------------------------------------------

    async def get_meta(self, key: str) -> str | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(meta.c.value).where(meta.c.key == key))).first()
            return None if row is None else row.value

    async def set_meta(self, key: str, value: str) -> None:
        async with self.engine.begin() as conn:
            updated = await conn.execute(meta.update().where(meta.c.key == key).values(value=value))
            if updated.rowcount == 0:
                await conn.execute(meta.insert().values(key=key, value=value))

    async def add_guest(self, guest_id: str, nickname: str, ts: float) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(guests.insert().values(id=guest_id, nickname=nickname, created=ts))


async def open_store(url: str) -> Store:
    """Open (and create or upgrade) the database at ``url``, ready for use."""
    engine = create_async_engine(async_url(url))
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    store = Store(engine)
    await store.migrate()
    store.start()
    return store
