"""How many tables one person may have going, and how fast one address may make them: the same
limits for a table he creates (``POST /api/tables``), for the quick-match queue he enters, and
for the table the queue opens for him.

A table the queue opens is hosted by nobody (its host is ``quick-match``, so that nobody may
seat bots at it). Counted by their host alone, four guests opened 250 public, playing tables in
about a minute through the queue. A person's unfinished tables are now the ones he hosts and the
ones he was seated at as they were made (``TableStore.open_tables_of``: a quick match's, a
rematch's): the queue refuses him once he has as many as the cap, and each table it opens is
checked again for everyone seated at it, since he may have made one meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterable

from tranque.server.edge import Limits, RateLimiter
from tranque.server.http_schemas import HttpError
from tranque.table.ports import TableStore


class TableCaps:
    """The cap on a person's unfinished tables (``--max-open-tables``) and the rate of new
    tables per client address (``--tables-per-minute``, ``--table-burst``)."""

    def __init__(self, limits: Limits, rate: RateLimiter, abandon_after: float) -> None:
        self.limits = limits
        self.rate = rate  # the server's, whose buckets a cluster's nodes share (server.app)
        self.abandon_after = abandon_after  # the default tables' setting, for the message
        self.store: TableStore | None = None  # set once the store is open (the app's lifespan)

    @property
    def cap(self) -> int:
        return self.limits.max_open_tables

    async def may_queue(self, guest: str, address: str) -> None:
        """A guest entering the quick-match queue from ``address``: a table is on its way for
        him. HttpError 429 (``rate_limited`` or ``too_many_tables``) if it may not be."""
        await self.rate.take(address)
        await self.check(guest)

    async def check(self, guest: str) -> None:
        """HttpError 429 ``too_many_tables`` if the guest has as many unfinished tables as the
        cap already."""
        if await self.at_cap([guest]):
            raise HttpError(429, "too_many_tables", self.message(), {"Retry-After": "60"})

    async def at_cap(self, guests: Iterable[str]) -> set[str]:
        """Those of ``guests`` who have as many unfinished tables as the cap already."""
        cap = self.cap
        if not cap:
            return set()
        assert self.store is not None
        full = set()
        for guest in dict.fromkeys(guests):
            if await self.store.open_tables_of(guest) >= cap:
                full.add(guest)
        return full

    def message(self) -> str:
        return (
            f"you have {self.cap} unfinished tables already (the ones you host, and the ones "
            "you were seated at by the queue or a rematch): finish one first, or leave it (a "
            f"table whose people have all left ends by itself {self.abandon_after:g} s later)"
        )
