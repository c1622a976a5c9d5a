"""``Store``: the event log, tables, finished records and settings on SQLAlchemy Core.

SQLite is the default (``sqlite:///tranque.db``, in WAL mode); PostgreSQL is a URL away
(``postgresql://...`` runs on asyncpg). The schema is created and upgraded in place by the Alembic
migrations in ``tranque/store/migrations``, run at start-up (store/engine.py: the connections'
set-up and the migrations).

Appends are group-committed (``LogWriter``, store/writer.py): every table owner waiting on
``append`` at the same moment shares one transaction, and each returns only once that transaction
is committed. An owner sends nothing before its entries are durable, so nothing a client saw can
be lost by a crash.

On SQLite every statement runs on the event loop's own thread, through one connection. In WAL
mode with ``synchronous=NORMAL`` a commit is a write to the operating system's cache (no fsync:
it survives ``kill -9``, not a power cut) and costs tens of microseconds. Handing it to a thread
(aiosqlite) cost far more: each hand-off waits for the GIL, and under load every statement waited
up to a switch interval behind the busy loop, which made commits the tail of the move latency.
One connection on one thread also means no two writers ever wait on SQLite's lock. PostgreSQL
keeps the async engine: its driver never blocks the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from tranque.store import ledger
from tranque.store.engine import MIGRATION_LOCK, OnLoop, migrate_schema, sqlite_connect
from tranque.store.engine import MIGRATIONS as MIGRATIONS  # where the tests find them
from tranque.store.engine import async_url as async_url  # what the commands import from here
from tranque.store.schema import events, games, guests, leases, meta, table_people, tables
from tranque.store.settle import record_players, seat_guests, settle
from tranque.store.writer import Append, LogWriter, lease_lost
from tranque.table.ports import Entry

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode

TABLE_STATUS_SQLITE = "SELECT status FROM tables WHERE id = ?"
HISTORY_PAGE_SQLITE = (
    "SELECT seq, public FROM events WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?"
)


class Store(LogWriter):
    def __init__(
        self, engine: AsyncEngine | None, sqlite_path: str | None = None, pg_dsn: str = ""
    ) -> None:
        self.engine = engine  # the async engine (PostgreSQL), None on SQLite
        self._pg_dsn = pg_dsn  # the writer's own connection (PostgreSQL): ``_write_pg``
        self._pg_writer: Any = None
        self._sqlite_path = sqlite_path
        self._raw: sqlite3.Connection | None = None
        self._sync: sa.Engine | None = None
        if sqlite_path is not None:
            raw = sqlite_connect(sqlite_path)
            self._raw = raw
            self._sync = sa.create_engine("sqlite://", creator=lambda: raw, poolclass=StaticPool)
        # None: the store is closing; the writer stops once what came before is written.
        self._queue: asyncio.Queue[Append | None] = asyncio.Queue()
        self._closing = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self.checkpoint_every = 2.0  # seconds between two checkpoints of SQLite's log
        self.commits = 0  # group commits made (for the benchmark)

    @property
    def dialect(self) -> str:
        return "sqlite" if self._sync is not None else self._async.dialect.name

    @property
    def _async(self) -> AsyncEngine:
        assert self.engine is not None
        return self.engine

    @contextlib.asynccontextmanager
    async def _begin(self) -> AsyncIterator[Any]:
        """A transaction: committed when the block ends, rolled back if it raises."""
        if self._sync is not None:
            with self._sync.begin() as conn:
                yield OnLoop(conn)
        else:
            async with self._async.begin() as conn:
                yield conn

    @contextlib.asynccontextmanager
    async def _connect(self) -> AsyncIterator[Any]:
        """A connection for reading."""
        if self._sync is not None:
            with self._sync.connect() as conn:
                yield OnLoop(conn)
        else:
            async with self._async.connect() as conn:
                yield conn

    # -- life -----------------------------------------------------------------------------------

    async def migrate(self) -> None:
        """Upgrade the schema to the newest migration. On PostgreSQL under an advisory lock held
        for the transaction: nodes that start at the same moment migrate one after the other,
        and all but the first find nothing to do."""
        if self._sync is not None:
            with self._sync.begin() as conn:
                migrate_schema(conn)
        else:
            async with self._async.begin() as conn:
                await conn.execute(
                    sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                )
                await conn.run_sync(migrate_schema)

    async def revision(self) -> str:
        """The schema's Alembic revision."""
        async with self._connect() as conn:
            row = (await conn.execute(sa.text("SELECT version_num FROM alembic_version"))).first()
        return "" if row is None else str(row.version_num)

    async def ping(self) -> None:
        """One round trip to the database; raises if it cannot be reached."""
        async with self._connect() as conn:
            await conn.execute(sa.text("SELECT 1"))

    def start(self) -> None:
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_loop(), name="store writer")
        if self._sqlite_path and self._checkpointer is None:
            self._checkpointer = asyncio.create_task(self._checkpoints(), name="checkpoints")

    async def _checkpoints(self) -> None:
        path, raw = self._sqlite_path, self._raw
        assert path is not None and raw is not None

        def checkpoint() -> None:
            con = sqlite3.connect(path)
            try:
                con.execute("PRAGMA wal_checkpoint(PASSIVE)")
            finally:
                con.close()

        while True:
            # Stopped between checkpoints, never in one.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), self.checkpoint_every)
                return
            with contextlib.suppress(Exception):
                await asyncio.to_thread(checkpoint)
                # That checkpoint could not take the frames committed while it ran, and while
                # any frame is left the log cannot start over: under a steady stream of commits
                # it grew for ever (by 20 MB a second at 2,000 tables, every page read slower).
                # The rest is taken here, between two commits on the writer's own connection:
                # nothing writes meanwhile, so it takes all, and the next commit restarts the
                # log from its beginning. It copies only what came during the thread's run.
                raw.execute("PRAGMA wal_checkpoint(PASSIVE)")

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
        if self._sync is not None:
            self._sync.dispose()
        if self._raw is not None:
            self._raw.close()
            self._raw = None
        if self._pg_writer is not None:
            with contextlib.suppress(Exception):
                await self._pg_writer.close(timeout=2)
            self._pg_writer = None
        if self.engine is not None:
            await self.engine.dispose()

    # -- the event log --------------------------------------------------------------------------

    async def load_events(self, table_id: str, upto: int | None = None) -> list[Entry]:
        """The table's log in order; with ``upto``, only the entries with ``seq <= upto``."""
        q = (
            sa.select(events.c.seq, events.c.type, events.c.payload, events.c.ts)
            .where(events.c.table_id == table_id)
            .order_by(events.c.seq)
        )
        if upto is not None:
            q = q.where(events.c.seq <= upto)
        async with self._connect() as conn:
            result = await conn.execute(q)
            return [Entry(r.seq, r.type, _decode(r.payload), r.ts) for r in result]

    async def log_rows(self, table_id: str, after: int = 0) -> list[tuple[int, str, str, float]]:
        """``(seq, type, payload, ts)`` of the table's entries with ``seq > after``, in order, the
        payload as its JSON text: ``server.replays`` decodes it off the event loop."""
        q = (
            sa.select(events.c.seq, events.c.type, events.c.payload, events.c.ts)
            .where(events.c.table_id == table_id, events.c.seq > after)
            .order_by(events.c.seq)
        )
        async with self._connect() as conn:
            return [(r.seq, r.type, r.payload, r.ts) for r in await conn.execute(q)]

    async def last_seq(self, table_id: str) -> int | None:
        """The sequence number of the table's last entry; None if its log is empty."""
        q = sa.select(sa.func.max(events.c.seq)).where(events.c.table_id == table_id)
        async with self._connect() as conn:
            last = (await conn.execute(q)).scalar()
        return None if last is None else int(last)

    async def load_history(
        self, table_id: str, after: int, limit: int
    ) -> list[tuple[int, str | None]]:
        """``(seq, item)`` of the first ``limit`` entries with ``seq > after``: each entry's
        item of the history (``writer.history_item``, JSON text), None for a row written before
        they were kept.

        On SQLite straight on the connection: a page is hundreds of rows and a hundred
        kilobytes, and SQLAlchemy's rows took twice the time of the query itself, on the loop."""
        raw = self._raw
        if raw is not None:
            rows: list[tuple[int, str | None]] = raw.execute(
                HISTORY_PAGE_SQLITE, (table_id, after, limit)
            ).fetchall()
            return rows
        q = (
            sa.select(events.c.seq, events.c.public)
            .where(events.c.table_id == table_id, events.c.seq > after)
            .order_by(events.c.seq)
            .limit(limit)
        )
        async with self._connect() as conn:
            return [(r.seq, r.public) for r in await conn.execute(q)]

    async def fill_history(self, table_id: str, public: Sequence[tuple[int, str]]) -> None:
        """Write the history items ``(seq, JSON text)`` into the rows that have none. Written
        only where there is none: two nodes filling the same table write the same thing."""
        if not public:
            return
        e = events.c
        q = (
            events.update()
            .where(e.table_id == table_id, e.seq == sa.bindparam("s"), e.public.is_(None))
            .values(public=sa.bindparam("p"))
        )
        async with self._begin() as conn:
            await conn.execute(q, [{"s": seq, "p": text} for seq, text in public])

    # -- tables and records ---------------------------------------------------------------------

    async def create_table(
        self, table_id: str, host: str, info: dict[str, Any], people: Sequence[str] = ()
    ) -> None:
        """The table's row, and its ``people`` (the guests seated as it is made: they count it
        against their cap, ``open_tables_of``), in one transaction."""
        async with self._begin() as conn:
            await insert_table(conn, table_id, host, info, people, time.time())

    async def table_exists(self, table_id: str) -> bool:
        async with self._connect() as conn:
            row = (
                await conn.execute(sa.select(tables.c.id).where(tables.c.id == table_id))
            ).first()
            return row is not None

    async def finish_table(
        self,
        table_id: str,
        record: dict[str, Any],
        info: dict[str, Any] | None = None,
        epoch: int | None = None,
    ) -> dict[str, Any] | None:
        """Save the record and mark the table over; ``info`` (the table's final info: seats,
        nicknames, tally) replaces the stored settings, so it is served once the table has left
        memory. With ``epoch``, only while the lease has it (else ``LeaseLost``), and the lease
        goes: a finished table is never appended to again, and any node may serve it. Returns
        what ``store.settle`` made of it (the ratings' changes) when ``info`` is given."""
        now = time.time()
        values: dict[str, Any] = {"status": "over", "ended": now}
        if info is not None:
            values["info"] = _encode(info).decode()
        async with self._begin() as conn:
            if epoch is not None:
                gone = await conn.execute(
                    leases.delete().where(leases.c.table_id == table_id, leases.c.epoch == epoch)
                )
                if gone.rowcount != 1:
                    raise lease_lost(table_id)
            # Who sat where (from the log's ``sat`` and ``stood``), read once for every step
            # below: each read scans the table's whole log, on the loop, at every game's end.
            who = await seat_guests(conn, table_id)
            # In the stored record only (the screen of fair play groups by it).
            record = {**record, "players": await record_players(conn, table_id, who)}
            await conn.execute(
                games.insert().values(
                    table_id=table_id, record=_encode(record).decode(), finished=now
                )
            )
            await conn.execute(tables.update().where(tables.c.id == table_id).values(**values))
            if info is not None:
                # The people's plays and the ratings, once, with the record (store.settle);
                # a chip table's escrows paid out in the same transaction (store.ledger).
                rated = await settle(conn, self.dialect, table_id, info, now, who)
                if ledger.stake_of(info):
                    await ledger.settle(conn, self.dialect, table_id, info, who, now)
                return rated
        return None

    async def expire_table(self, table_id: str) -> None:
        """Mark a table that never started ``expired``: it is not rebuilt at start again."""
        now = time.time()
        async with self._begin() as conn:
            done = await conn.execute(
                tables.update()
                .where(tables.c.id == table_id, tables.c.status == "open")
                .values(status="expired", ended=now)
            )
            if done.rowcount == 1:  # a chip table's escrows go back with it (store.ledger)
                await ledger.void(conn, self.dialect, table_id, now)

    async def table_status(self, table_id: str) -> str | None:
        """The table's status (``open``, ``over``, ``expired``), or None: what a page of its
        history needs of its row (on SQLite straight on the connection, as the page itself)."""
        raw = self._raw
        if raw is not None:
            found = raw.execute(TABLE_STATUS_SQLITE, (table_id,)).fetchone()
            return None if found is None else str(found[0])
        async with self._connect() as conn:
            q = sa.select(tables.c.status).where(tables.c.id == table_id)
            status = (await conn.execute(q)).scalar()
        return None if status is None else str(status)

    async def load_table(self, table_id: str) -> dict[str, Any] | None:
        """The table's row: ``status``, ``info`` (decoded), ``created``, ``ended``; or None."""
        q = sa.select(
            tables.c.status, tables.c.info, tables.c.created, tables.c.ended, tables.c.host
        ).where(tables.c.id == table_id)
        async with self._connect() as conn:
            row = (await conn.execute(q)).first()
        if row is None:
            return None
        return {
            "status": row.status,
            "info": _decode(row.info),
            "created": row.created,
            "ended": row.ended,
            "host": row.host,
        }

    async def unfinished_tables(self) -> list[str]:
        async with self._connect() as conn:
            result = await conn.execute(
                sa.select(tables.c.id).where(tables.c.status == "open").order_by(tables.c.created)
            )
            return [r.id for r in result]

    async def load_record(self, table_id: str) -> dict[str, Any] | None:
        async with self._connect() as conn:
            row = (
                await conn.execute(sa.select(games.c.record).where(games.c.table_id == table_id))
            ).first()
            return None if row is None else _decode(row.record)

    # -- small things ---------------------------------------------------------------------------

    async def get_meta(self, key: str) -> str | None:
        async with self._connect() as conn:
            row = (await conn.execute(sa.select(meta.c.value).where(meta.c.key == key))).first()
            return None if row is None else row.value

    async def keep_meta(self, key: str, value: str) -> str:
        """Store ``value`` under ``key`` unless a value is there already; return the one kept.
        Atomic: of nodes starting together with no secret, all keep the first one's."""
        async with self._begin() as conn:
            await conn.execute(
                sa.text(
                    "INSERT INTO meta (key, value) VALUES (:key, :value)"
                    " ON CONFLICT (key) DO NOTHING"
                ),
                {"key": key, "value": value},
            )
            row = (await conn.execute(sa.select(meta.c.value).where(meta.c.key == key))).first()
        assert row is not None
        return str(row.value)

    async def set_meta(self, key: str, value: str) -> None:
        async with self._begin() as conn:
            updated = await conn.execute(meta.update().where(meta.c.key == key).values(value=value))
            if updated.rowcount == 0:
                await conn.execute(meta.insert().values(key=key, value=value))

    async def next_count(self, key: str) -> int:
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    sa.text(
                        "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
                        " WHERE key = :key RETURNING value"
                    ),
                    {"key": key},
                )
            ).first()
            if row is not None:
                return int(row.value)
            await conn.execute(meta.insert().values(key=key, value="1"))
            return 1

    async def open_tables_of(self, guest: str) -> int:
        """How many unfinished tables (every node's) the guest hosts or was seated at when they
        were made (a quick match, a rematch): what his cap counts."""
        seated = sa.select(table_people.c.table_id).where(table_people.c.guest == guest)
        q = sa.select(sa.func.count()).where(
            tables.c.status == "open", sa.or_(tables.c.host == guest, tables.c.id.in_(seated))
        )
        async with self._connect() as conn:
            return int((await conn.execute(q)).scalar_one())

    async def add_guest(self, guest_id: str, nickname: str, ts: float) -> None:
        async with self._begin() as conn:
            await conn.execute(guests.insert().values(id=guest_id, nickname=nickname, created=ts))

    async def rename_guest(self, guest_id: str, nickname: str) -> None:
        """The guest's nickname from now on (his profile's name until he claims an account)."""
        async with self._begin() as conn:
            await conn.execute(
                guests.update().where(guests.c.id == guest_id).values(nickname=nickname)
            )


async def insert_table(
    conn: Any, table_id: str, host: str, info: dict[str, Any], people: Sequence[str], ts: float
) -> None:
    """A new table's row and its people's rows, in the caller's transaction."""
    await conn.execute(
        tables.insert().values(
            id=table_id, host=host, status="open", info=_encode(info).decode(), created=ts
        )
    )
    if people:
        rows = [{"table_id": table_id, "guest": g} for g in dict.fromkeys(people)]
        await conn.execute(table_people.insert(), rows)


async def open_store(url: str, *, migrate: bool = True) -> Store:
    """Open (and create or upgrade) the database at ``url``, ready for use; with ``migrate``
    false, as it is (a reader such as ``tranque ledger check`` changes nothing)."""
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        store = Store(None, sqlite_path=parsed.database or "")
    else:
        # pre_ping: connections broken while the database was away are replaced, not reused.
        dsn = "postgresql://" + url.split("://", 1)[1]
        store = Store(create_async_engine(async_url(url), pool_pre_ping=True), pg_dsn=dsn)
    if migrate:
        await store.migrate()
    store.start()
    return store
