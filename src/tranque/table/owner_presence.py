"""Who is at the table: a connection that comes (``attach``) or goes (``detach``), and the
people who never came once the arrival window is over.

A mixin of ``TableOwner`` (table/owner.py), apart from its loop because who is connected is
the owner's own knowledge, not the table's state: it turns it into ordinary entries (``back``,
``away``) through the owner's ``_commit``, so a table rebuilt from its log is the same table,
and tells the lobby (``on_change``) when somebody's presence changed.
"""

from __future__ import annotations

import logging

from tranque.table.entries import Away, Back, logged
from tranque.table.ports import Clock, Entry, Subscriber
from tranque.table.rematch import Rematch
from tranque.table.service import TableService

log = logging.getLogger("tranque.table")


class OwnerPresence:
    """The connections and arrivals of ``TableOwner`` (see there for its state)."""

    service: TableService
    clock: Clock
    subscribers: list[Subscriber]
    gone: set[str]
    rematch: Rematch | None
    arrivals_checked: bool

    @property
    def table_id(self) -> str:
        raise NotImplementedError  # TableOwner's

    async def _commit(self, entries: list[Entry]) -> None:
        raise NotImplementedError  # TableOwner's: apply, make durable, send

    def _sync_frame(self, sub: Subscriber, last_seq: int | None) -> bytes:
        raise NotImplementedError  # OwnerFrames'

    def _spectators_changed(self) -> None:
        raise NotImplementedError  # OwnerFrames'

    def _changed_presence(self) -> None:
        raise NotImplementedError  # OwnerFrames'

    async def _open_rematch(self) -> None:
        raise NotImplementedError  # OwnerPeople's

    async def _attached(self, sub: Subscriber, last_seq: int | None) -> None:
        """A connection came: it gets its sync first; a seated person away (or played for by a
        bot he has not taken back from) is ``back``."""
        svc = self.service
        self.subscribers.append(sub)
        sub.push(self._sync_frame(sub, last_seq))
        seat = None if sub.watcher else svc.seat_of(sub.guest)
        if sub.watcher:
            self._spectators_changed()
        elif sub.guest in self.gone:
            self.gone.discard(sub.guest)
            self._changed_presence()
        if seat is not None and svc.started and not svc.over:
            st = svc.seats[seat]
            if st.away_since is not None or (st.taken_over and not st.returning):
                await self._commit([logged(svc.seq + 1, Back(seat=seat), self.clock.now())])

    async def _detached(self, sub: Subscriber) -> None:
        """A connection went: once a seated person has none left he is gone (the lobby's mark),
        and during the game ``away``."""
        svc = self.service
        if sub in self.subscribers:
            self.subscribers.remove(sub)
            if sub.watcher:
                self._spectators_changed()
            elif self.rematch is not None:
                await self._open_rematch()  # the one who left was the last to answer
        seat = None if sub.watcher else svc.seat_of(sub.guest)
        if (
            seat is not None
            and sub.guest is not None
            and not any(s.guest == sub.guest and not s.watcher for s in self.subscribers)
        ):
            self.gone.add(sub.guest)
            self._changed_presence()
        if (
            seat is not None
            and svc.started
            and not svc.over
            and svc.seats[seat].away_since is None
            and not any(s.guest == sub.guest and not s.watcher for s in self.subscribers)
        ):
            await self._commit([logged(svc.seq + 1, Away(seat=seat), self.clock.now())])

    def _arrival_due(self) -> float | None:
        """When to look for the people who never came: ``arrival_window`` after the start, once
        (None when done, or before the start, or once the table is over)."""
        svc = self.service
        if self.arrivals_checked or not svc.started or svc.over:
            return None
        return svc.started_at + svc.settings.arrival_window

    async def _mark_absent(self) -> None:
        """At the end of the arrival window, every seated person with no connection at the table
        who is not away already never came: he is ``away`` (``absent``), and a bot plays for him
        at once. Who is connected is the owner's to know (its subscribers, here or relayed from
        another node), not the table's state: it decides here, and logs an ordinary ``away``,
        so a rebuild gets the same table. A rebuilt table looks for nobody: ``resumed`` marked
        every person away already, and the one who comes back is ``back``."""
        at = self._arrival_due()
        now = self.clock.now()
        if at is None or at > now:
            return
        self.arrivals_checked = True
        svc = self.service
        here = {sub.guest for sub in self.subscribers if not sub.watcher}
        entries: list[Entry] = []
        for s, seat in enumerate(svc.seats):
            if seat.kind == "person" and seat.away_since is None and seat.guest not in here:
                body = Away(seat=s, absent=True)
                entries.append(logged(svc.seq + len(entries) + 1, body, now))
        if entries:
            log.info("table %s: %d seated people never came", self.table_id, len(entries))
            await self._commit(entries)
