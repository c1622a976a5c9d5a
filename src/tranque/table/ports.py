"""The ports the table service talks through, and the log entry it writes.

A table's log holds the *inputs* that changed it (commands applied, the server seed, revealed
client seeds, clocks that ran out, bot decisions) in order; re-applying them rebuilds the table
exactly. Every entry has the table's next sequence number and an absolute time, so that clocks
re-arm with the time they had left after a restart.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Entry:
    """One applied input of one table: what the event log stores, one row each."""

    seq: int
    type: str
    data: dict[str, Any] = field(default_factory=dict)
    ts: float = 0.0


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch (wall time, so that deadlines survive a restart)."""
        ...


class WallClock:
    def now(self) -> float:
        return time.time()


class LeaseLost(Exception):
    """An append refused because the table's lease has another epoch: another node owns the
    table now. The appender must drop the table; nothing of what it was appending may be sent."""


class EventLog(Protocol):
    async def append(
        self,
        table_id: str,
        entries: Sequence[Entry],
        epoch: int | None = None,
        public: Sequence[bytes] | None = None,
    ) -> None:
        """Make the entries durable; return only once they are.

        With ``epoch`` (a node of a cluster), the entries are written only if the table's lease
        still has that epoch, checked in the same transaction; else ``LeaseLost``. Any other
        exception means the storage could not be reached: nothing may be assumed written.

        ``public``: each entry's public form (``TableService.project`` right after the entry
        was applied, encoded), kept with it for the table's history; one per entry.
        """
        ...


class TableStore(EventLog, Protocol):
    """Everything the lobby keeps: the event log, table rows, finished records, small settings."""

    async def create_table(
        self, table_id: str, host: str, info: dict[str, Any], people: Sequence[str] = ()
    ) -> None:
        """The table's row; ``people``: the guests seated as it is made (``open_tables_of``)."""
        ...

    async def finish_table(
        self,
        table_id: str,
        record: dict[str, Any],
        info: dict[str, Any] | None = None,
        epoch: int | None = None,
    ) -> dict[str, Any] | None:
        """Save the record (see ``store.db.Store``); returns what the club made of the game
        (``store.settle.changes``: the ratings' changes), told to the table's sockets."""
        ...

    async def open_tables_of(self, guest: str) -> int:
        """How many unfinished tables (every node's) ``guest`` hosts or was seated at when they
        were made: what the cap on a person's tables counts."""
        ...

    async def next_count(self, key: str) -> int:
        """One more than the last value of the counter ``key``, atomically for every node."""
        ...

    async def expire_table(self, table_id: str) -> None: ...

    async def unfinished_tables(self) -> list[str]: ...

    async def table_exists(self, table_id: str) -> bool: ...

    async def load_table(self, table_id: str) -> dict[str, Any] | None:
        """``{"status", "info", "created", "ended", "host"}`` of the table, or None."""
        ...

    async def table_status(self, table_id: str) -> str | None:
        """``open``, ``over`` or ``expired``; None if there is no such table."""
        ...

    async def load_events(self, table_id: str, upto: int | None = None) -> list[Entry]: ...

    async def log_rows(self, table_id: str, after: int = 0) -> list[tuple[int, str, str, float]]:
        """``(seq, type, payload JSON, ts)`` of the entries after ``after``, not decoded."""
        ...

    async def last_seq(self, table_id: str) -> int | None: ...

    async def load_history(
        self, table_id: str, after: int, limit: int
    ) -> list[tuple[int, str | None]]:
        """``(seq, item)`` of at most ``limit`` entries after ``after``: each one's item of the
        table's history, ``{"seq", "ts", ...public form}`` as JSON text (None if not kept)."""
        ...

    async def fill_history(self, table_id: str, public: Sequence[tuple[int, str]]) -> None:
        """Keep the history items ``(seq, JSON)`` of entries that have none."""
        ...

    async def load_record(self, table_id: str) -> dict[str, Any] | None: ...

    async def get_meta(self, key: str) -> str | None: ...

    async def set_meta(self, key: str, value: str) -> None: ...

    async def keep_meta(self, key: str, value: str) -> str:
        """``value`` stored under ``key`` unless one is there already: the one kept."""
        ...

    async def add_guest(self, guest_id: str, nickname: str, ts: float) -> None: ...

    async def rename_guest(self, guest_id: str, nickname: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Lease:
    """A table this node may write: ``epoch`` is the fencing token its appends carry (None on a
    single node, which needs none)."""

    table_id: str
    epoch: int | None


class Leases(Protocol):
    """Who owns each table. On a single node, always this one; on a cluster, the database's
    ``leases`` rows, taken over when they expire (``store.leases``)."""

    node: str
    ttl: float  # seconds a lease lasts unless renewed

    async def claim(self, table_id: str) -> Lease | None:
        """The table for this node if nobody holds a live lease on it (a new epoch), else None."""
        ...

    async def holder(self, table_id: str) -> str | None:
        """The node holding a live lease on the table, if any."""
        ...

    async def renew(self, held: dict[str, int]) -> set[str]:
        """Extend the leases held (table -> epoch); return the tables lost meanwhile."""
        ...

    async def release(self, held: dict[str, int]) -> None:
        """Give the tables up at once (a drain): any node may claim them now."""
        ...

    async def orphans(self, limit: int) -> list[str]:
        """Unfinished tables with no live lease (their owner died, or let them go)."""
        ...


class SoleLeases:
    """One node: every table is this node's, with no fencing (nobody else could append)."""

    ttl = float("inf")

    def __init__(self, node: str = "solo") -> None:
        self.node = node

    async def claim(self, table_id: str) -> Lease | None:
        return Lease(table_id, None)

    async def holder(self, table_id: str) -> str | None:
        return None

    async def renew(self, held: dict[str, int]) -> set[str]:
        return set()

    async def release(self, held: dict[str, int]) -> None:
        return None

    async def orphans(self, limit: int) -> list[str]:
        return []


class Subscriber(Protocol):
    """One connection at a table: a player (his seat follows from ``guest``) or a watcher."""

    guest: str | None
    watcher: bool

    def push(self, frame: bytes) -> None:
        """Queue an encoded frame for the connection, in order; never blocks."""
        ...

    def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close the connection with the WebSocket ``code`` (1001:
        the table moved to another node, or this one is stopping: the client reconnects)."""
        ...


class Publisher(Protocol):
    def publish(self, table_id: str, entries: Sequence[Entry]) -> None: ...


@dataclass(frozen=True, slots=True)
class ThinkRequest:
    """One decision a bot must think about, with all it needs and nothing more: picklable.

    ``kind``: ``"action"`` (a play), ``"lead"`` (Salgo / Sal tú) or ``"redeal"``. ``bot`` and
    ``seed`` name the bot and its position-derived seed, so the same position gives the same
    decision wherever it is thought about. ``by`` is who the entry will credit (``"bot"`` or
    ``"clock"``). ``seq`` and ``version`` are the table's when the request was made: a table
    that has moved on drops a late answer and asks again. ``view`` is the seat's ``SeatView``.
    """

    table_id: str
    seq: int
    version: int
    seat: int
    kind: str
    by: str
    bot: str
    seed: int
    view: Any

    @property
    def key(self) -> tuple[str, int, int, str, str, str, int]:
        """What makes two requests the same decision (everything but the table's ``seq``)."""
        return (self.table_id, self.version, self.seat, self.kind, self.by, self.bot, self.seed)


class Thinker(Protocol):
    """Where bots think: never on the event loop (a pool of worker processes, or a thread).

    ``decide`` returns the answer of ``tranque.table.thinking.think``: a move's text, a lead
    choice's value, or a bool for a redeal. It may take long; it raises only if the decision
    cannot be made at all.
    """

    async def decide(self, request: ThinkRequest) -> str | bool: ...
