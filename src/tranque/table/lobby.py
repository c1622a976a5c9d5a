"""``Lobby``: every table owner of this server; creates tables, rebuilds unfinished ones, and lets
tables go.

Tables come and go:

- a table that has not started ``expiry`` seconds after it was created *expires*: its owner
  stops, the store marks it ``expired``, and it is never rebuilt (one loop timer per waiting
  table, cancelled the moment it starts; no sweep over all tables);
- a finished table stays in memory ``linger`` seconds for the people looking at its last frames,
  then leaves as soon as nobody has it open (checked again every ``linger`` seconds while somebody
  does). Its record and final info stay in the store, and every HTTP route serves it from there;
  a ``hello`` for it brings it back from its log for as long as somebody has it open.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Any

from tranque.table.owner import RECENT, TableOwner, frame
from tranque.table.ports import Clock, Entry, TableStore, Thinker
from tranque.table.service import (
    SeedSource,
    TableError,
    TableService,
    TableSettings,
    resolve_bot_name,
)

log = logging.getLogger("tranque.table")

EXPIRY = 3600.0  # seconds from creation for a table to start
LINGER = 300.0  # seconds a finished table stays in memory (at least)


class Lobby:
    """Every table's owner; creates tables and rebuilds the unfinished ones after a restart."""

    def __init__(
        self,
        store: TableStore,
        clock: Clock,
        seed_source: SeedSource,
        defaults: TableSettings,
        table_ids: Callable[[], str] | None = None,
        *,
        expiry: float = EXPIRY,
        linger: float = LINGER,
        thinker: Thinker | None = None,
    ) -> None:
        self.thinker = thinker  # where every table's bots think (None: a thread of this process)
        self.store = store
        self.clock = clock
        self.seed_source = seed_source
        self.defaults = defaults
        self.owners: dict[str, TableOwner] = {}
        self.table_ids = table_ids or (lambda: secrets.token_urlsafe(6))
        self.expiry = expiry
        self.linger = linger
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._reviving: dict[str, asyncio.Future[TableOwner]] = {}
        self._expiring: set[str] = set()  # expired here, the store's mark not yet committed
        self._chores: set[asyncio.Task[Any]] = set()
        self.counts = {"created": 0, "rebuilt": 0, "expired": 0, "left_memory": 0, "revived": 0}

    # -- coming -----------------------------------------------------------------------------------

    async def recover(self) -> int:
        """Rebuild every unfinished table from its log and start it again.

        A table that never started and is past its expiry is marked expired instead, and a table
        whose match ended just before a crash gets its record saved; neither is started.
        """
        count = 0
        now = self.clock.now()
        for table_id in await self.store.unfinished_tables():
            entries = await self.store.load_events(table_id)
            if not entries:
                continue
            svc, recent = self._replay(table_id, entries)
            created = entries[0].ts
            if not svc.started and created + self.expiry <= now:
                await self.store.expire_table(table_id)
                self.counts["expired"] += 1
                log.info("table %s expired while the server was down", table_id)
                continue
            if svc.over and svc.record is not None:
                await self.store.finish_table(table_id, svc.record, svc.info())
                continue
            owner = self._start(svc, recent, created)
            if svc.started and not svc.over:
                # Clocks go on with the time they had left when the table last moved.
                owner._put(("resumed", max(0.0, now - svc.last_ts)))
            count += 1
        self.counts["rebuilt"] += count
        return count

    def _replay(
        self, table_id: str, entries: list[Entry]
    ) -> tuple[TableService, list[tuple[int, bytes]]]:
        svc = TableService(table_id, self.seed_source)
        recent: list[tuple[int, bytes]] = []
        for i, e in enumerate(entries):
            svc.apply(e)
            if i >= len(entries) - RECENT:
                recent.append((e.seq, frame(svc.project(e))))
        return svc, recent

    def _start(
        self, svc: TableService, recent: list[tuple[int, bytes]], created: float
    ) -> TableOwner:
        owner = TableOwner(svc, self.store, self.clock, on_over=self._over, thinker=self.thinker)
        owner.recent.extend(recent)
        self.owners[svc.table_id] = owner
        owner.start()
        if svc.over:
            self._arm(svc.table_id, self.linger, self._leave)
        elif not svc.started:
            self._arm(svc.table_id, created + self.expiry - self.clock.now(), self._expire)
        return owner

    async def create(
        self,
        host: str,
        nickname: str,
        settings: TableSettings,
        seat: int | None,
    ) -> TableOwner:
        table_id = self.table_ids()
        svc = TableService(table_id, self.seed_source)
        now = self.clock.now()
        first = [Entry(1, "created", {"settings": settings.to_json(), "host": host}, now)]
        svc.apply(first[0])
        if seat is not None:
            e = Entry(svc.seq + 1, "sat", {"seat": seat, "guest": host, "nickname": nickname}, now)
            svc.apply(e)
            first.append(e)
        if settings.practice:
            bot = resolve_bot_name(settings.bot)
            for s in range(4):
                if svc.seats[s].kind == "empty":
                    e = Entry(svc.seq + 1, "bot_sat", {"seat": s, "bot": bot}, now)
                    svc.apply(e)
                    first.append(e)
        await self.store.create_table(table_id, host, {"settings": settings.to_json()})
        await self.store.append(table_id, first)
        recent = [(e.seq, frame(svc.project(e))) for e in first]
        self.counts["created"] += 1
        return self._start(svc, recent, now)

    async def get(self, table_id: str) -> TableOwner | None:
        """The table's owner if it is in memory (routes that can answer from the store)."""
        return self.owners.get(table_id)

    async def join(self, table_id: str) -> TableOwner:
        """The owner a ``hello`` attaches to: the live one, or a finished table brought back
        from its log. Raises ``TableError`` ``no_table`` or ``table_expired``.

        The owner returned is in memory at that moment: the caller attaches to it before it
        next yields, so that a finished table does not leave in between.
        """
        for _ in range(3):
            owner = self.owners.get(table_id)
            if owner is not None:
                return owner
            if table_id in self._expiring:
                raise _expired(table_id)
            pending = self._reviving.get(table_id)
            if pending is None:
                pending = asyncio.ensure_future(self._revive(table_id))
                self._reviving[table_id] = pending
                pending.add_done_callback(lambda _: self._reviving.pop(table_id, None))
            owner = await asyncio.shield(pending)
            if self.owners.get(table_id) is owner:
                return owner
        raise TableError("no_table", f"table {table_id!r} is over and could not be reopened")

    async def _revive(self, table_id: str) -> TableOwner:
        row = await self.store.load_table(table_id)
        if row is not None and row["status"] == "expired":
            raise _expired(table_id)
        owner = self.owners.get(table_id)
        if owner is not None:
            return owner
        if row is None or row["status"] != "over":
            raise TableError("no_table", f"there is no live table {table_id!r}")
        entries = await self.store.load_events(table_id)
        svc, recent = self._replay(table_id, entries)
        self.counts["revived"] += 1
        log.info("finished table %s is back in memory from its log", table_id)
        owner = self._start(svc, recent, entries[0].ts)
        # At least a second for the ``hello`` that brought it back to attach.
        self._arm(table_id, max(self.linger, 1.0), self._leave)
        return owner

    # -- going ------------------------------------------------------------------------------------

    def _arm(self, table_id: str, delay: float, then: Callable[[str], None]) -> None:
        old = self._timers.pop(table_id, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self._timers[table_id] = loop.call_later(max(0.0, delay), then, table_id)

    def _over(self, owner: TableOwner) -> None:
        # People are still looking at the last frames: the table leaves memory a while later.
        self._arm(owner.table_id, self.linger, self._leave)

    def _leave(self, table_id: str) -> None:
        self._timers.pop(table_id, None)
        owner = self.owners.get(table_id)
        if owner is None or not owner.service.over:
            return
        if owner.subscribers or owner.inbox:
            self._arm(table_id, max(self.linger, 1.0), self._leave)
            return
        del self.owners[table_id]
        owner.close("table_over", f"table {table_id!r} is over: its record is in the store")
        self.counts["left_memory"] += 1
        log.info("finished table %s left memory", table_id)

    def _expire(self, table_id: str) -> None:
        self._timers.pop(table_id, None)
        owner = self.owners.get(table_id)
        # ``started`` is set when the start is applied, before it is durable: a table whose
        # start is on its way to the log is not expired.
        if owner is None or owner.service.started:
            return
        del self.owners[table_id]
        owner.close("table_expired", _expired(table_id).message)
        self._expiring.add(table_id)
        self.counts["expired"] += 1
        log.info("table %s never started: expired", table_id)
        self._chore(self._mark_expired(table_id))

    async def _mark_expired(self, table_id: str) -> None:
        try:
            await self.store.expire_table(table_id)
        finally:
            self._expiring.discard(table_id)

    def _chore(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    # -- reading ----------------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """What is in memory now, and what came and went since the start (``/api/stats``)."""
        waiting = playing = over = 0
        for owner in self.owners.values():
            svc = owner.service
            if svc.over:
                over += 1
            elif svc.started:
                playing += 1
            else:
                waiting += 1
        live = {"total": len(self.owners), "waiting": waiting, "playing": playing, "over": over}
        return {"live": live, "since_start": dict(self.counts)}

    async def close(self) -> None:
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        for owner in list(self.owners.values()):
            await owner.stop()
        for task in list(self._chores):
            with contextlib.suppress(Exception):
                await task


def _expired(table_id: str) -> TableError:
    return TableError("table_expired", f"table {table_id!r} never started and has expired")
