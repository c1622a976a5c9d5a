"""The ports of the club, and their in-process adapters for one node.

``MatchQueue``: the quick-match queue, one for every node of a cluster (``runtime.redis_queue``)
or this process's own (``LocalQueue``). Forming tables is the adapter's atomic step: whichever
node takes a group of tickets out of the queue is the only one that seats them.

``LobbyDirectory``: the public tables' summaries that the lobby lists, every node's
(``runtime.redis_lobby``) or this process's (``LocalDirectory``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from tranque.club.matching import Seating, Ticket, form_tables


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a ticket was seated: its table and seat."""

    table: str
    seat: int


class QueueError(Exception):
    """A refused queue request (a code and a sentence, as a table's ``TableError``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class MatchQueue(Protocol):
    async def join(self, ticket: Ticket) -> str | None:
        """Put the ticket in its variant's queue (replacing the guest's earlier ticket, if
        any); ``party_full`` if its party has two others waiting already. Returns the nickname
        of the friend of the ticket's party who waits already, if any (read in the same look
        as the party's check: the invited friend is told who invited him)."""
        ...

    async def leave(self, guest: str) -> bool:
        """Take the guest out of the queue; False if he was not in it (or was just seated)."""
        ...

    async def busy(self, variants: Iterable[str]) -> list[str]:
        """Those of these queues that somebody waits in, in one look."""
        ...

    async def counts(self, variants: Iterable[str]) -> dict[str, int]:
        """How many wait in each of these queues that somebody waits in, in one look: the
        matching loop asks this at every tick (what to seat, and the count each waiting
        person is shown), so on a shared store it is one round trip, not one per queue."""
        ...

    async def take(self, variant: str, now: float, fill: float) -> list[Seating]:
        """Atomically remove and return the tables ``form_tables`` makes of the variant's
        queue now: no ticket is ever returned to two callers."""
        ...

    async def take_singles(self, variant: str, n: int) -> list[Ticket]:
        """Atomically remove and return up to ``n`` of the variant's people who wait alone
        (not in a party), longest-waiting first: a table's free seat (``fill``) takes them."""
        ...

    async def place(self, placements: dict[str, Placement]) -> None:
        """Say where seated guests sit (kept a minute, for their nodes to read)."""
        ...

    async def placed(self, guests: Iterable[str]) -> dict[str, Placement]:
        """Where each of these guests was seated, for those who were (each is told once)."""
        ...

    async def waiting(self, variant: str) -> int:
        """How many people wait for the variant."""
        ...

    async def present(self, guests: Iterable[str]) -> set[str]:
        """Those of these guests who have a ticket in the queue now."""
        ...


def party_mates(tickets: Iterable[Ticket], ticket: Ticket) -> list[Ticket]:
    """The others waiting with the ticket's party (none for a ticket of no party)."""
    if ticket.party is None:
        return []
    return [t for t in tickets if t.party == ticket.party and t.guest != ticket.guest]


def party_mate(tickets: Iterable[Ticket], ticket: Ticket) -> str | None:
    """The nickname of the friend waiting with the ticket's party, or None; QueueError
    ``party_full`` if two others wait with it already (a party is two friends: a third one
    with its link is refused)."""
    mates = party_mates(tickets, ticket)
    if len(mates) >= 2:
        raise QueueError("party_full", "that party has two friends in it already")
    return mates[0].nickname if mates else None


class LocalQueue:
    """The queue of one node, in memory."""

    def __init__(self) -> None:
        self.tickets: dict[str, Ticket] = {}
        self.placements: dict[str, Placement] = {}

    async def join(self, ticket: Ticket) -> str | None:
        mate = party_mate(self.tickets.values(), ticket)
        self.tickets[ticket.guest] = ticket
        self.placements.pop(ticket.guest, None)
        return mate

    async def leave(self, guest: str) -> bool:
        return self.tickets.pop(guest, None) is not None

    async def busy(self, variants: Iterable[str]) -> list[str]:
        return list(await self.counts(variants))

    async def counts(self, variants: Iterable[str]) -> dict[str, int]:
        waiting = Counter(t.variant for t in self.tickets.values())
        return {v: waiting[v] for v in variants if waiting[v]}

    async def take(self, variant: str, now: float, fill: float) -> list[Seating]:
        mine = [t for t in self.tickets.values() if t.variant == variant]
        tables = form_tables(mine, now, fill=fill)
        for seating in tables:
            for t in seating.people:
                del self.tickets[t.guest]
        return tables

    async def take_singles(self, variant: str, n: int) -> list[Ticket]:
        mine = [t for t in self.tickets.values() if t.variant == variant and t.party is None]
        taken = sorted(mine, key=lambda t: (t.since, t.guest))[:n]
        for t in taken:
            del self.tickets[t.guest]
        return taken

    async def place(self, placements: dict[str, Placement]) -> None:
        self.placements.update(placements)

    async def placed(self, guests: Iterable[str]) -> dict[str, Placement]:
        return {g: self.placements.pop(g) for g in guests if g in self.placements}

    async def waiting(self, variant: str) -> int:
        return sum(1 for t in self.tickets.values() if t.variant == variant)

    async def present(self, guests: Iterable[str]) -> set[str]:
        return {g for g in guests if g in self.tickets}


class LobbyDirectory(Protocol):
    async def put(self, table: str, summary: dict[str, Any]) -> None:
        """Show the table in the lobby with this summary (replacing the last one)."""
        ...

    async def remove(self, table: str) -> None: ...

    async def listing(self) -> tuple[int, list[dict[str, Any]]]:
        """A version (changes with every put and remove) and every summary."""
        ...

    async def version(self) -> int:
        """The version alone: cheap enough to ask several times a second."""
        ...


class LocalDirectory:
    """The lobby of one node, in memory."""

    ttl = math.inf

    def __init__(self) -> None:
        self.summaries: dict[str, dict[str, Any]] = {}
        self._version = 0

    async def put(self, table: str, summary: dict[str, Any]) -> None:
        if self.summaries.get(table) != summary:
            self.summaries[table] = summary
            self._version += 1

    async def remove(self, table: str) -> None:
        if self.summaries.pop(table, None) is not None:
            self._version += 1

    async def listing(self) -> tuple[int, list[dict[str, Any]]]:
        return self._version, list(self.summaries.values())

    async def version(self) -> int:
        return self._version
