"""``QuickMatch``: "Jugar ahora · Con personas". People wait in the queue of their variant; every
node runs the same loop, and whichever takes a group of tickets out of the queue (atomically,
in the ``MatchQueue`` adapter) opens their table; every node then tells its own waiting sockets
where they sit.

Why every node matches, rather than one elected node: the queue's atomic ``take`` already makes
each ticket seated once, so no election is needed, and no node's death stops the matching.
A node that dies between taking tickets and opening their table loses those tickets, and a
Redis restart loses every ticket: a node whose waiting guest has had no ticket and no seat for
``LOST_AFTER`` seconds tells him (``unqueued`` with reason ``lost``), and he queues again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from tranque.club.matching import FILL, Seating, Ticket
from tranque.club.ports import MatchQueue, Placement

log = logging.getLogger("tranque.club")

TICK = 0.25  # seconds between two looks at the queues
VARIANTS = ("havana", "miami", "oriente", "barrio")
# Seconds a waiting guest may have neither a ticket nor a seat: between a node's taking his
# ticket and its writing where he sits (the opening of a table) he has neither, for a moment.
LOST_AFTER = 5.0

Notify = Callable[[dict[str, Any]], None]  # pushes a frame to a waiting socket
OpenTable = Callable[[Seating], Awaitable[str]]  # opens a seated table, returns its id


class Requeued(Exception):
    """The table could not be opened for some of its people (``unseated``: a chip table whose
    stake they can no longer cover); the others are back in the queue, as they were."""

    def __init__(self, unseated: set[str], reason: str) -> None:
        super().__init__(reason)
        self.unseated, self.reason = unseated, reason


class QuickMatch:
    def __init__(
        self,
        queue: MatchQueue,
        open_table: OpenTable,
        now: Callable[[], float],
        *,
        fill: float = FILL,
        tick: float = TICK,
        variants: Iterable[str] = VARIANTS,
    ) -> None:
        self.queue = queue
        self.open_table = open_table
        self.now = now
        self.fill = fill
        self.tick = tick
        self.variants = tuple(variants)
        self.local: dict[str, Notify] = {}  # guests waiting on this node's sockets
        self.missing: dict[str, float] = {}  # guest -> since when he has no ticket nor seat
        self.lost_after = LOST_AFTER
        self.fill_times: list[float] = []  # seconds each seated person waited (the bench's)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="quick match")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def join(self, ticket: Ticket, notify: Notify) -> dict[str, Any]:
        """Queue the ticket (``QueueError`` if refused); the ``queued`` frame to answer."""
        await self.queue.join(ticket)
        earlier = self.local.get(ticket.guest)
        if earlier is not None and earlier != notify:
            earlier({"type": "unqueued", "reason": "elsewhere"})
        self.local[ticket.guest] = notify
        self.missing.pop(ticket.guest, None)
        waiting = await self.queue.waiting(ticket.variant)
        return {
            "type": "queued",
            "variant": ticket.variant,
            "party": ticket.party,
            "rating": round(ticket.rating),  # what the closest-ratings seating goes by
            "since": ticket.since,
            "fill": self.fill,
            "waiting": waiting,
        }

    async def leave(self, guest: str, notify: Notify | None = None) -> bool:
        """Out of the queue (one tap, or the socket closed). False if not waiting."""
        if notify is not None and self.local.get(guest) != notify:
            return False  # another socket of the guest queued since
        self.local.pop(guest, None)
        self.missing.pop(guest, None)
        return await self.queue.leave(guest)

    async def _run(self) -> None:
        while True:
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("the quick-match queue could not be reached", exc_info=True)
            await asyncio.sleep(self.tick)

    async def step(self) -> None:
        """One look: seat what can be seated, then tell this node's sockets where they sit.
        Only the queues somebody waits in are taken from: most looks find them all empty."""
        for variant in await self.queue.busy(self.variants):
            for seating in await self.queue.take(variant, self.now(), self.fill):
                await self._open(seating)
        if self.local:
            for guest, where in (await self.queue.placed(list(self.local))).items():
                self.missing.pop(guest, None)
                notify = self.local.pop(guest, None)
                if notify is not None:
                    notify({"type": "matched", "table": where.table, "seat": where.seat})
            await self._find_lost()

    async def _find_lost(self) -> None:
        """Tell the guests whose tickets were lost (see the module's docstring)."""
        now = self.now()
        present = await self.queue.present(list(self.local))
        for guest in list(self.local):
            if guest in present:
                self.missing.pop(guest, None)
                continue
            since = self.missing.setdefault(guest, now)
            if now - since >= self.lost_after:
                del self.missing[guest]
                self.local.pop(guest)({"type": "unqueued", "reason": "lost"})

    async def _open(self, seating: Seating) -> None:
        try:
            table = await self.open_table(seating)
        except Requeued as exc:
            for guest in exc.unseated:
                notify = self.local.pop(guest, None)
                if notify is not None:
                    notify({"type": "unqueued", "reason": exc.reason})
            return
        except Exception:
            log.exception("a quick-match table could not be opened; its people queue again")
            for t in seating.people:
                notify = self.local.pop(t.guest, None)
                if notify is not None:
                    notify({"type": "unqueued", "reason": "lost"})
            return
        now = self.now()
        self.fill_times.extend(now - t.since for t in seating.people)
        await self.queue.place(
            {t.guest: Placement(table, s) for s, t in enumerate(seating.seats) if t is not None}
        )
