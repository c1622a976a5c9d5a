"""How the store reaches its database: SQLite on the event loop's own thread, PostgreSQL through
its async driver, and the Alembic migrations that create and upgrade the schema.

Apart from ``Store`` (store/db.py) because none of it is a query: it is the connection's set-up
(SQLite's pragmas, the URL's driver) and the one adapter that lets the store ``await`` a
statement on SQLite's synchronous connection (``OnLoop``). Why SQLite runs on the loop's
thread is in db.py.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"
# Every node migrating at once waits its turn on this lock, then finds the schema up to date.
MIGRATION_LOCK = 0x7472616E717565  # "tranque"


def async_url(url: str) -> str:
    """``postgresql://`` -> ``postgresql+asyncpg://`` (SQLite needs no async driver: see above)."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+asyncpg://" + url.split("://", 1)[1]
    return url


def sqlite_connect(path: str) -> sqlite3.Connection:
    con = sqlite3.connect(path or ":memory:", check_same_thread=False)
    con.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode: a commit survives the process being killed (not a power cut).
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("PRAGMA busy_timeout=5000")
    # Checkpoints run from a background thread (PASSIVE, on another connection), so that a
    # commit never waits for one: that wait was the tail of the move latency.
    con.execute("PRAGMA wal_autocheckpoint=0")
    # A log that started over is cut back to this size, so a burst does not keep its disk.
    con.execute(f"PRAGMA journal_size_limit={64 * 2**20}")
    return con


def migrate_schema(connection: sa.Connection) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")


class OnLoop:
    """A synchronous SQLAlchemy connection behind the awaitable calls the store makes.

    ``await conn.execute(...)`` runs the statement at once, on the loop's thread; it never
    suspends, so no other coroutine can run inside a transaction and interleave with it.
    """

    def __init__(self, conn: sa.Connection) -> None:
        self.conn = conn

    async def execute(self, statement: Any, params: Any = None) -> Any:
        return self.conn.execute(statement, params)
