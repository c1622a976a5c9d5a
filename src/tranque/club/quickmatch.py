"""``QuickMatch``: "Jugar ahora · Con personas". People wait in the queue of their variant; every
node runs the same loop, and whichever takes a group of tickets out of the queue (atomically,
in the ``MatchQueue`` adapter) opens their table; every node then tells its own waiting sockets
where they sit.

Why every node matches, rather than one elected node: the queue's atomic ``take`` already makes
each ticket seated once, so no election is needed, and no node's death stops the matching.
A node that dies between taking tickets and opening their table loses those tickets, and a
Redis restart loses every ticket: a node whose waiting guest has had no ticket and no seat for
``LOST_AFTER`` seconds tells him (``unqueued`` with reason ``lost``), and he queues again.

How many wait is pushed, not only answered: the loop already counts every queue at each look
(one round trip on a cluster, where the queue is Redis and people of one queue wait on several
nodes), so each node tells its own waiting sockets the count of their queue whenever it differs
from what they were last told (``queue_count``). A person who came on another node is counted
within a look, with no message between the nodes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
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
# Seats a queued person at a table's free seat: his seat, or None when none is free any more.
SeatAt = Callable[[Ticket], Awaitable[int | None]]


@dataclass(slots=True)
class Wanted:
    """A table's free seats offered to one queue (``fill``) until ``until``: the people who
    wait there are seated in them first, longest-waiting first; bots take what is left then."""

    queue: str
    until: float
    seat_at: SeatAt


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
        self.tickets: dict[str, Ticket] = {}  # their tickets, as they queued
        self.told: dict[str, int] = {}  # the count each of them was last shown
        self.missing: dict[str, float] = {}  # guest -> since when he has no ticket nor seat
        self.lost_after = LOST_AFTER
        self.fill_times: list[float] = []  # seconds each seated person waited (the bench's)
        self.wanted: dict[str, Wanted] = {}  # table -> its free seats offered to a queue
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="quick match")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def join(self, ticket: Ticket, notify: Notify) -> dict[str, Any]:
        """Queue the ticket (``QueueError`` if refused); the ``queued`` frame to answer.

        A guest already waiting here for the same queue keeps his place and his clock: making a
        party, or his page queueing again after a cut, is not arriving anew (the fill time runs
        from when he first came, as the page promised him)."""
        before = self.tickets.get(ticket.guest)
        if before is not None and before.variant == ticket.variant:
            ticket = replace(ticket, since=before.since)
        mate = await self.queue.join(ticket)
        earlier = self.local.get(ticket.guest)
        if earlier is not None and earlier != notify:
            earlier({"type": "unqueued", "reason": "elsewhere"})
        self.local[ticket.guest] = notify
        self.tickets[ticket.guest] = ticket
        self.missing.pop(ticket.guest, None)
        waiting = await self.queue.waiting(ticket.variant)
        self.told[ticket.guest] = waiting
        return {
            "type": "queued",
            "variant": ticket.variant,
            "party": ticket.party,
            "rating": round(ticket.rating),  # what the closest-ratings seating goes by
            "since": ticket.since,
            "fill": self.fill,
            "waiting": waiting,
            "partner": mate,  # the party's friend waiting already: who invited him
        }

    async def leave(self, guest: str, notify: Notify | None = None) -> bool:
        """Out of the queue (one tap, or the socket closed). False if not waiting."""
        if notify is not None and self.local.get(guest) != notify:
            return False  # another socket of the guest queued since
        self._forget(guest)
        return await self.queue.leave(guest)

    def _forget(self, guest: str) -> Notify | None:
        """The guest no longer waits on this node; his socket's ``notify``, if he did."""
        self.missing.pop(guest, None)
        self.tickets.pop(guest, None)
        self.told.pop(guest, None)
        return self.local.pop(guest, None)

    def want(self, table: str, queue: str, until: float, seat_at: SeatAt) -> None:
        """Offer a table's free seats to ``queue``'s people until ``until`` (see ``Wanted``)."""
        self.wanted[table] = Wanted(queue, until, seat_at)

    async def _fill_wanted(self) -> None:
        """Seat one waiting person at each table that wants one, people before bots. A table
        whose seats are all taken, or whose window ended, wants no more."""
        now = self.now()
        for table, want in list(self.wanted.items()):
            if want.until <= now:
                del self.wanted[table]
                continue
            for ticket in await self.queue.take_singles(want.queue, 1):
                try:
                    seat = await want.seat_at(ticket)
                except Exception:
                    log.warning("a free seat of table %s could not be taken", table, exc_info=True)
                    seat = None
                if seat is None:
                    await self.queue.join(ticket)  # back where he was, for the next table
                    self.wanted.pop(table, None)
                    continue
                self.fill_times.append(now - ticket.since)
                await self.queue.place({ticket.guest: Placement(table, seat)})

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
        Only the queues somebody waits in are taken from: most looks find them all empty.
        A table's free seats (``want``) take their people first."""
        if self.wanted:
            await self._fill_wanted()
        counts = await self.queue.counts(self.variants)
        for variant in list(counts):
            for seating in await self.queue.take(variant, self.now(), self.fill):
                counts[variant] -= len(seating.people)
                await self._open(seating)
        if self.local:
            for guest, where in (await self.queue.placed(list(self.local))).items():
                notify = self._forget(guest)
                if notify is not None:
                    notify({"type": "matched", "table": where.table, "seat": where.seat})
            present = await self.queue.present(list(self.local))
            self._tell_counts(counts, present)
            self._find_lost(present)

    def _tell_counts(self, counts: dict[str, int], present: set[str]) -> None:
        """Each socket of this node whose ticket waits gets its queue's count when it changed."""
        for guest, notify in self.local.items():
            ticket = self.tickets.get(guest)
            if ticket is None or guest not in present:
                continue
            n = counts.get(ticket.variant, 0)
            if n > 0 and self.told.get(guest) != n:
                self.told[guest] = n
                notify({"type": "queue_count", "waiting": n})

    def _find_lost(self, present: set[str]) -> None:
        """Tell the guests whose tickets were lost (see the module's docstring)."""
        now = self.now()
        for guest in list(self.local):
            if guest in present:
                self.missing.pop(guest, None)
                continue
            since = self.missing.setdefault(guest, now)
            if now - since >= self.lost_after:
                notify = self._forget(guest)
                assert notify is not None
                notify({"type": "unqueued", "reason": "lost"})

    async def _open(self, seating: Seating) -> None:
        try:
            table = await self.open_table(seating)
        except Requeued as exc:
            for guest in exc.unseated:
                notify = self._forget(guest)
                if notify is not None:
                    notify({"type": "unqueued", "reason": exc.reason})
            return
        except Exception:
            log.exception("a quick-match table could not be opened; its people queue again")
            for t in seating.people:
                notify = self._forget(t.guest)
                if notify is not None:
                    notify({"type": "unqueued", "reason": "lost"})
            return
        now = self.now()
        self.fill_times.extend(now - t.since for t in seating.people)
        await self.queue.place(
            {t.guest: Placement(table, s) for s, t in enumerate(seating.seats) if t is not None}
        )
