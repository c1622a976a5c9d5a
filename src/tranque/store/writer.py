"""The event log's writer: appends group-committed, and fenced by the tables' leases.

Every table owner waiting on ``append`` at the same moment shares one transaction, and each
returns only once that transaction is committed (an owner sends nothing before its entries are
durable). Each row keeps the entry and, when the owner gives it, the entry's public form (what it
sent the spectators) as an item of the table's history: the history is read from those, never
replayed. A row with an
epoch is written only while its table's lease has that epoch; a table whose lease has moved on
gets ``LeaseLost`` and nothing of its append is written.

A mixin of ``Store`` (store/db.py), apart from it because it is the one part of the store that
runs as a task of its own (the writer) with its own statements and, on PostgreSQL, its own
connection; the store's connections, life and every other query stay in db.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Sequence
from typing import Any

import msgspec

from tranque.table.ports import Entry, LeaseLost

MAX_GROUP = 2000  # rows per group commit
INSERT_EVENT = (
    "INSERT INTO events (table_id, seq, type, payload, ts, epoch, public)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
# One statement for a whole group on PostgreSQL: the columns as arrays; rows with an epoch are
# written only while their table's lease has it (see ``LogWriter._write_pg``).
INSERT_FENCED_PG = """
WITH e AS (
    SELECT * FROM unnest(
        $1::text[], $2::int[], $3::text[], $4::text[], $5::float8[], $6::int[], $7::text[]
    ) AS e(table_id, seq, type, payload, ts, epoch, public)
), held AS (
    SELECT table_id, epoch FROM leases
    WHERE table_id IN (SELECT table_id FROM e WHERE epoch IS NOT NULL)
    FOR SHARE
), ins AS (
    INSERT INTO events (table_id, seq, type, payload, ts, epoch, public)
    SELECT e.* FROM e
    WHERE e.epoch IS NULL
       OR EXISTS (SELECT 1 FROM held WHERE held.table_id = e.table_id AND held.epoch = e.epoch)
    RETURNING table_id
)
SELECT DISTINCT table_id FROM ins
"""

_encode = msgspec.json.Encoder().encode

# (table, entries, epoch, the entries' public forms or None, the waiter)
Append = tuple[str, Sequence[Entry], int | None, Sequence[bytes] | None, "asyncio.Future[None]"]


class LogWriter:
    """The group-commit writer of ``Store`` (see there for the connections it writes on)."""

    # Set up by ``Store.__init__``.
    _queue: asyncio.Queue[Append | None]  # None: the store is closing
    _writer: asyncio.Task[None] | None
    _raw: sqlite3.Connection | None  # SQLite's one connection, None on PostgreSQL
    _pg_dsn: str
    _pg_writer: Any  # the writer's own asyncpg connection (PostgreSQL)
    commits: int  # group commits made (for the benchmark)

    def start(self) -> None:
        raise NotImplementedError  # Store's: starts the writer (and SQLite's checkpoints)

    async def append(
        self,
        table_id: str,
        entries: Sequence[Entry],
        epoch: int | None = None,
        public: Sequence[bytes] | None = None,
    ) -> None:
        if self._writer is None:
            self.start()
        if public is not None and len(public) != len(entries):
            raise ValueError("one public form per entry")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((table_id, entries, epoch, public, fut))
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
                fenced = await self._write(group)
            except Exception:
                # One table's bad append (a sequence number stored twice) must not fail the
                # others that shared its transaction: write each on its own and tell each.
                for item in group:
                    try:
                        fenced = await self._write([item])
                    except Exception as exc:  # this waiter learns of it; nothing is sent
                        _settle(item[4], exc)
                    else:
                        _settle(item[4], lease_lost(item[0]) if fenced else None)
                continue
            for table_id, _, _, _, fut in group:
                _settle(fut, lease_lost(table_id) if table_id in fenced else None)

    async def _write(self, group: list[Append]) -> set[str]:
        """Write the group in one transaction; return the tables whose appends were refused
        because their lease has another epoch now (those rows are not written)."""
        raw = self._raw
        fenced: set[str] = set()
        if raw is not None:
            try:
                fenced = _fenced_sqlite(raw, group)
                raw.executemany(INSERT_EVENT, _rows(group, fenced))
                raw.commit()
            except BaseException:
                raw.rollback()
                raise
        else:
            fenced = await self._write_pg(group)
        self.commits += 1
        return fenced

    async def _write_pg(self, group: list[Append]) -> set[str]:
        """The group commit on PostgreSQL: one statement, one round trip, on the writer's own
        asyncpg connection (SQLAlchemy's engine spent most of a move's time here: a checkout, a
        ping, a compiled statement, four round trips per group).

        The statement locks the leases of the group's fenced tables ``FOR SHARE`` and inserts
        only the rows whose epoch is their lease's: a takeover (which updates the lease row)
        waits for it, and if the takeover came first PostgreSQL re-reads the row and sees the
        new epoch. It answers the tables it wrote; a fenced table not among them was refused.
        """
        con = self._pg_writer
        if con is None or con.is_closed():
            import asyncpg

            con = self._pg_writer = await asyncpg.connect(self._pg_dsn, timeout=10)
        wanted = {tid for tid, _, epoch, _, _ in group if epoch is not None}
        rows = _rows(group, set())
        if not rows:
            return set()
        try:
            written = await con.fetch(INSERT_FENCED_PG, *(list(c) for c in zip(*rows, strict=True)))
        except BaseException:
            # A connection that failed mid-statement is not trusted again.
            with contextlib.suppress(Exception):
                await con.close(timeout=1)
            self._pg_writer = None
            raise
        return wanted - {r["table_id"] for r in written}


def _settle(fut: asyncio.Future[None], exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is None:
        fut.set_result(None)
    else:
        fut.set_exception(exc)


def lease_lost(table_id: str) -> LeaseLost:
    """What an append (or ``Store.finish_table``) gets when the table's lease has moved on."""
    return LeaseLost(f"table {table_id!r} is owned by another node now: nothing was appended")


def history_item(seq: int, ts: float, public: bytes) -> str:
    """The event as an item of the table's history: ``{"seq": seq, "ts": ts, **form}``, the
    bytes msgspec gives that object, made from the form's encoding (an object whose keys are
    never ``seq`` nor ``ts``). Kept whole in the row, so that a page of the history is its rows'
    texts joined, with nothing to decode or encode on the event loop."""
    rest = public[1:].decode()
    return f'{{"seq":{seq:d},"ts":{_encode(ts).decode()}{"" if rest == "}" else ","}{rest}'


def _rows(group: list[Append], fenced: set[str]) -> list[tuple[Any, ...]]:
    return [
        (table_id, e.seq, e.type, _encode(e.data).decode(), e.ts, epoch, _item(e, public, i))
        for table_id, entries, epoch, public, _ in group
        if table_id not in fenced
        for i, e in enumerate(entries)
    ]


def _item(e: Entry, public: Sequence[bytes] | None, i: int) -> str | None:
    return None if public is None else history_item(e.seq, e.ts, public[i])


def _fenced_sqlite(raw: sqlite3.Connection, group: list[Append]) -> set[str]:
    """The fencing check on SQLite (one writer at a time: no lock needed to read the lease)."""
    fenced = set()
    for table_id, _, epoch, _, _ in group:
        if epoch is not None:
            row = raw.execute("SELECT epoch FROM leases WHERE table_id = ?", (table_id,)).fetchone()
            if row is None or row[0] != epoch:
                fenced.add(table_id)
    return fenced
