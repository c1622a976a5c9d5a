"""The owner's answers around the game itself: the phrases people say, the rematch, a free
seat offered to the quick-match queue (``fill``, and the person the queue then ``place``s), and
who may sit at a peña's table (``_member``).

A mixin of ``TableOwner`` (table/owner.py), apart from its loop because none of this is a rule
of the game: phrases are never logged, a rematch opens another table, and a free seat is filled
from outside the table (the club's queue). What it changes at the table goes through the
owner's ``_commit`` like everything else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from tranque.table.chips import ChipLedger, seat_staked, stake_seat
from tranque.table.entries import FillSeats, logged, placed
from tranque.table.frames import Ack, Error, Said
from tranque.table.messages import Fill, RematchAnswer, Say
from tranque.table.owner_frames import frame
from tranque.table.ports import Clock, Entry, Subscriber
from tranque.table.rematch import Rematch, RematchSeats
from tranque.table.service import TableError, TableService

PHRASE_GAP = 3.0  # seconds between two phrases of one person


class OwnerPeople:
    """The phrases, the rematch and the free seats of ``TableOwner`` (see there for its state)."""

    service: TableService
    clock: Clock
    subscribers: list[Subscriber]
    said: dict[str, float]
    rematch: Rematch | None
    on_rematch: Callable[[Any, RematchSeats], Awaitable[str]] | None
    on_fill: Callable[[Any, float], None] | None
    fill_window: float
    chips: ChipLedger | None
    closed: tuple[str, str] | None
    pena_gate: Callable[[str, str], Awaitable[bool]] | None

    @property
    def table_id(self) -> str:
        raise NotImplementedError  # TableOwner's

    def _put(self, item: tuple[Any, ...]) -> None:
        raise NotImplementedError  # TableOwner's inbox

    async def _commit(self, entries: list[Entry]) -> None:
        raise NotImplementedError  # TableOwner's: apply, make durable, send

    # -- a peña's table ----

    async def _member(self, pena: str, guest: str) -> None:
        """A peña's table seats its members only (docs/club.md, "Peñas"). Asked here, where
        every sit of this table is decided, so it holds whichever node owns the table."""
        gate = self.pena_gate
        if gate is None or not guest or not await gate(pena, guest):
            raise TableError("not_a_member", f"only the members of the peña {pena!r} sit here")

    # -- phrases ----

    def _say(self, sub: Subscriber, msg: Say) -> None:
        """A fixed phrase to everyone at the table, now. Phrases are not logged: they change
        nothing at the table, and a finished table (which is never appended to again) takes
        them too. One per ``PHRASE_GAP`` seconds per person."""
        guest = sub.guest or ""
        seat = self.service.may_say(guest)
        now = self.clock.now()
        last = self.said.get(guest)
        if last is not None and now - last < PHRASE_GAP:
            raise TableError("rate_limited", f"one phrase every {PHRASE_GAP:g} seconds")
        self.said[guest] = now
        said = frame(Said(seat, msg.phrase))
        for other in self.subscribers:
            # Not to whoever blocks him (``muted``: a socket's, here or on another node).
            if guest not in getattr(other, "muted", ()):
                other.push(said)
        sub.push(frame(Ack(msg.id, self.service.seq)))

    # -- the rematch ----

    async def _rematch(self, sub: Subscriber, msg: RematchAnswer) -> None:
        svc = self.service
        if not svc.over:
            raise TableError("not_over", "a rematch is offered once the game is over")
        if svc.abandoned:
            raise TableError("abandoned", "this table ended with nobody at it: open a new one")
        seat = svc.seat_of(sub.guest)
        if seat is None:
            raise TableError("not_seated", "only the people at the table answer a rematch")
        rm = self.rematch = self.rematch or Rematch()
        if rm.table is not None:
            raise TableError("rematch_open", f"the rematch is at table {rm.table} already")
        rm.answer(seat, msg.accept, msg.swap)
        await self._open_rematch()
        sub.push(frame(Ack(msg.id, svc.seq)))

    def rematch_accepted(self, seat: int) -> bool:
        """The person in ``seat`` accepted the rematch (False: declined, or never answered)."""
        return self.rematch is not None and bool(self.rematch.answers.get(seat))

    async def _open_rematch(self) -> None:
        """Open the next game's table if everyone connected has answered; tell everyone."""
        rm, svc = self.rematch, self.service
        if rm is None or rm.table is not None:
            return
        connected = {svc.seat_of(s.guest) for s in self.subscribers if not s.watcher}
        seats = {s for s in connected if s is not None}
        if rm.ready(svc.seats, seats) and self.on_rematch is not None:
            try:
                rm.table = await self.on_rematch(self, rm.seating(svc.seats))
            except TableError as exc:  # a chip table's rematch that somebody cannot cover
                failed = frame(Error(None, exc.code, exc.message))
                for other in self.subscribers:
                    other.push(failed)
                self.rematch = None
                return
        data = frame(rm.to_json(svc.seats))
        for other in self.subscribers:
            other.push(data)

    # -- a free seat, from the quick-match queue ----

    async def _fill(self, sub: Subscriber, msg: Fill) -> None:
        """Offer the free seats to the quick-match queue (a rematch somebody declined): logged,
        so everyone sees it and bots take the seats still free when the window ends."""
        svc = self.service
        guest = sub.guest or ""
        seat = svc.may_fill(guest)
        body = FillSeats(seat=seat, window=self.fill_window, guest=guest, cmd=msg.id)
        await self._commit([logged(svc.seq + 1, body, self.clock.now())])
        if self.on_fill is not None:
            self.on_fill(self, svc.timers.get("fill", self.clock.now()))
        ack = svc.reply(guest, msg.id)
        sub.push(frame(ack or Ack(msg.id, svc.seq)))

    def place(self, guest: str, nickname: str) -> asyncio.Future[int | None]:
        """Seat a person the quick-match queue sends to this table's free seat (its ``fill``):
        the future gives his seat, or None when there is no free seat any more (or he sits
        here already)."""
        done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        if self.closed is not None:
            done.set_result(None)
        else:
            self._put(("place", guest, nickname, done))
        return done

    async def _place(self, guest: str, nickname: str) -> int | None:
        svc = self.service
        if svc.started or "fill" not in svc.timers or svc.seat_of(guest) is not None:
            return None
        free = [s for s, seat in enumerate(svc.seats) if seat.kind == "empty"]
        if not free:
            return None
        entry = placed(svc.seq + 1, free[0], guest, nickname, self.clock.now())
        if self.chips is not None and svc.settings.stake:
            await stake_seat(self.chips, self.table_id, svc.settings.stake, entry)
        await self._commit([entry])
        if self.chips is not None and svc.settings.stake:
            await seat_staked(self.chips, self.table_id, entry)
        return free[0]
