"""``Replays``: tables rebuilt from their logs off the event loop, and kept for the next request.

Some answers need a table's state that this node does not hold: the info and the record of a
table that another node owns (or that is between owners), and the public form of the events of a
log written before each event's was kept with it (store migration 0006b). Rebuilding a table is
applying its whole log, tens of milliseconds for a long game; done on the event loop at every
request, it made every socket of the node wait behind it (issue 28). Here:

- a rebuild runs on a thread of its own: one, so that two rebuilds never take turns with each
  other and the loop for the interpreter; the loop only reads the rows, and their payloads are
  decoded on the thread;
- a table is rebuilt once: the ``keep`` tables rebuilt last stay in memory, with their info and
  record encoded, and a later request applies only the entries appended since (none, while the
  table's owner waits for a play; never any, once the table is over);
- the requests for one table share one rebuild;
- at most ``waiting`` tables wait for the thread; past that a request gets 503 ``busy`` with a
  ``Retry-After``, rather than a queue without end.

Nothing here sends: the routes answer with what this gives them (``server.routes``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
from starlette.responses import JSONResponse

from tranque.server.http_schemas import HttpError
from tranque.store.writer import history_item
from tranque.table.owner_frames import frame
from tranque.table.ports import Entry, TableStore
from tranque.table.service import SeedSource, TableService

T = TypeVar("T")
LogRows = list[tuple[int, str, str, float]]  # (seq, type, payload JSON, ts): ``log_rows``

_decode = msgspec.json.decode
log = logging.getLogger("tranque.server")


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """A table as its log said up to ``seq``: its info and its record as the routes send them
    (the bytes ``JSONResponse`` makes of ``info()`` and ``table_record()``)."""

    service: TableService  # touched on the replay thread only
    seq: int
    over: bool
    info: bytes
    record: bytes


class Replays:
    def __init__(
        self, store: TableStore, seed_source: SeedSource, keep: int = 32, waiting: int = 32
    ) -> None:
        self.store = store
        self.seed_source = seed_source
        self.keep = keep
        self.waiting = waiting
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay")
        self._kept: OrderedDict[str, Rebuilt] = OrderedDict()
        self._running: dict[tuple[str, str], asyncio.Future[Any]] = {}
        self.rebuilt = 0  # whole logs applied (for the tests and the curious)

    def close(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)

    async def table(self, table_id: str) -> Rebuilt | None:
        """The table as its log says now; None if it has no log. HttpError 503 ``busy`` when
        too many tables wait for the replay thread."""
        rebuilt: Rebuilt | None = await self._once(("table", table_id), self._up_to_date)
        return rebuilt

    async def history(self, table_id: str) -> dict[int, str]:
        """Every entry's item of the table's history (JSON text), by ``seq``: its public form
        made right after it is applied, as the owner makes it; kept in the rows that had none,
        so that a table's log is replayed for its history once. HttpError 503 ``busy`` as
        ``table``."""
        items: dict[int, str] = await self._once(("history", table_id), self._fill)
        return items

    # -- inside -----------------------------------------------------------------------------------

    async def _once(self, key: tuple[str, str], make: Callable[[str], Awaitable[T]]) -> T:
        running = self._running.get(key)
        if running is None:
            if len(self._running) >= self.waiting:
                raise HttpError(
                    503,
                    "busy",
                    "the server is rebuilding too many tables from their logs: try again soon",
                    {"Retry-After": "1"},
                )
            running = asyncio.ensure_future(make(key[1]))
            self._running[key] = running
            running.add_done_callback(lambda done: self._finished(key, done))
        # Shielded: a request that goes away does not stop the rebuild the others wait for.
        result: T = await asyncio.shield(running)
        return result

    def _finished(self, key: tuple[str, str], done: asyncio.Future[Any]) -> None:
        self._running.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved: whoever waited has it; nobody may have

    async def _up_to_date(self, table_id: str) -> Rebuilt | None:
        kept = self._kept.get(table_id)
        if kept is not None:
            self._kept.move_to_end(table_id)
            if kept.over:  # a finished table is never appended to again
                return kept
        rows = await self.store.log_rows(table_id, kept.seq if kept is not None else 0)
        if not rows:
            return kept
        loop = asyncio.get_running_loop()
        # Out of the cache while the thread applies the rows to its service: if that fails
        # half-way, nobody is served a service that is neither before nor after.
        self._kept.pop(table_id, None)
        rebuilt = await loop.run_in_executor(
            self._thread, _catch_up, table_id, self.seed_source, kept, rows
        )
        if kept is None:
            self.rebuilt += 1
        self._kept[table_id] = rebuilt
        while len(self._kept) > self.keep:
            self._kept.popitem(last=False)
        return rebuilt

    async def _fill(self, table_id: str) -> dict[int, str]:
        rows = await self.store.log_rows(table_id)
        if not rows:
            return {}
        loop = asyncio.get_running_loop()
        items = await loop.run_in_executor(self._thread, _history, table_id, self.seed_source, rows)
        self.rebuilt += 1
        try:
            await self.store.fill_history(table_id, list(items.items()))
        except Exception:  # this answer has them all the same; the next request makes them again
            log.exception("table %s: the history of its log could not be kept", table_id)
        return items


# -- on the replay thread ---------------------------------------------------------------------


def _entries(rows: LogRows) -> list[Entry]:
    return [Entry(seq, kind, _decode(payload), ts) for seq, kind, payload, ts in rows]


def _catch_up(
    table_id: str, seed_source: SeedSource, kept: Rebuilt | None, rows: LogRows
) -> Rebuilt:
    svc = kept.service if kept is not None else TableService(table_id, seed_source)
    for e in _entries(rows):
        svc.apply(e)
    info = bytes(JSONResponse(svc.info()).body)
    record = bytes(JSONResponse(svc.table_record()).body)
    return Rebuilt(svc, rows[-1][0], svc.over, info, record)


def _history(table_id: str, seed_source: SeedSource, rows: LogRows) -> dict[int, str]:
    svc = TableService(table_id, seed_source)
    items: dict[int, str] = {}
    for e in _entries(rows):
        svc.apply(e)
        items[e.seq] = history_item(e.seq, e.ts, frame(svc.event(e)))
    return items


__all__ = ["Rebuilt", "Replays"]
