"""Which tables are in this node's memory, and how they leave it: the lobby's timers, its
counts, and the words it passes on to the club (a table changed, a table gone).

Tables come and go:

- a table that has not started ``expiry`` seconds after it was created *expires*: its owner
  stops, the store marks it ``expired``, and it is never rebuilt (one loop timer per waiting
  table, cancelled the moment it starts; no sweep over all tables);
- a finished table stays in memory ``linger`` seconds for the people looking at its last frames,
  then leaves as soon as nobody has it open (checked again every ``linger`` seconds while somebody
  does). Its record and final info stay in the store, and every HTTP route serves it from there;
  a ``hello`` for it brings it back from its log for as long as somebody has it open.

A mixin of ``Lobby`` (table/lobby.py), apart from it because it is the going half: the lobby
brings tables into memory (creates, rebuilds, takes over, revives them), this lets them go.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from tranque.table.model import TableError
from tranque.table.owner import TableOwner
from tranque.table.ports import Leases, TableStore
from tranque.table.relay import Relay

log = logging.getLogger("tranque.table")


class LobbyMemory:
    """The going half of ``Lobby`` (see there for the state it reads)."""

    store: TableStore
    leases: Leases
    relay: Relay
    clustered: bool
    linger: float
    owners: dict[str, TableOwner]
    counts: dict[str, int]
    on_change: Callable[[TableOwner], None] | None
    on_gone: Callable[[str], None] | None
    on_over: Callable[[str], None] | None
    _timers: dict[str, asyncio.TimerHandle]
    _expiring: set[str]  # expired here, the store's mark not yet committed
    _chores: set[asyncio.Task[Any]]

    def _changed(self, owner: TableOwner) -> None:
        if self.on_change is not None:
            self.on_change(owner)

    def _gone(self, table_id: str) -> None:
        if self.on_gone is not None:
            self.on_gone(table_id)

    def _dropped(self, owner: TableOwner) -> None:
        """The owner stopped without its table being over (its lease lost, or its log could not
        be written): the table leaves memory, to be rebuilt from its log where it is wanted."""
        self._gone(owner.table_id)
        if self.owners.get(owner.table_id) is owner:
            del self.owners[owner.table_id]
            self.counts["lost"] += 1
        timer = self._timers.pop(owner.table_id, None)
        if timer is not None:
            timer.cancel()

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
        if self.on_over is not None:
            self.on_over(owner.table_id)

    def _leave(self, table_id: str) -> None:
        self._timers.pop(table_id, None)
        owner = self.owners.get(table_id)
        if owner is None or not owner.service.over:
            return
        if owner.subscribers or owner.inbox:
            self._arm(table_id, max(self.linger, 1.0), self._leave)
            return
        del self.owners[table_id]
        self._gone(table_id)
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
        self._gone(table_id)
        owner.close("table_expired", table_expired(table_id).message)
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
        body: dict[str, Any] = {"live": live, "since_start": dict(self.counts)}
        if self.clustered:
            body["node"] = self.leases.node
            body["relay"] = self.relay.stats()
        return body


def table_expired(table_id: str) -> TableError:
    """The error of a table that never started and expired: the lobby's answer to a hello for
    it, and the owner's goodbye to whoever was there."""
    return TableError("table_expired", f"table {table_id!r} never started and has expired")
