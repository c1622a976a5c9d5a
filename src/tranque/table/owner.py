"""``TableOwner``: the one asyncio task that changes a table.

An owner takes items from its inbox one at a time (a command, a connection coming or going, a
clock that runs out) and for each: asks the service for the entry, applies it, makes it durable
in the event log, and only then sends each recipient its own view of it. A command's answer goes
through the same ordered queue as the events, after them.

A bot's decision is thought about elsewhere (the ``Thinker``: a pool of worker processes): the
owner sends the request and goes on serving its inbox; the answer comes back as an inbox item and
becomes an entry only if the table still asks the same question (otherwise it is dropped and the
new question asked). One request per table is out at a time.

The owner's parts: this module (its state, the inbox, the loop, committing), ``OwnerThinking``
(table/owner_thinking.py: the requests out with the thinker), ``OwnerFrames``
(table/owner_frames.py: what each recipient is sent), ``OwnerPeople``
(table/owner_people.py: phrases, the rematch, a free seat offered to the queue) and
``OwnerPresence`` (table/owner_presence.py: connections coming and going, who never came).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from tranque.table.apply import apply_entry
from tranque.table.checks import decide
from tranque.table.chips import ChipLedger, crash_point, seat_staked, stake_seat
from tranque.table.due import due
from tranque.table.entries import Aborted, Resumed, logged
from tranque.table.frames import Ack, Error
from tranque.table.messages import Fill, RematchAnswer, Say, Sit, TableCommand, as_command
from tranque.table.owner_frames import OwnerFrames, frame
from tranque.table.owner_people import OwnerPeople
from tranque.table.owner_presence import OwnerPresence
from tranque.table.owner_thinking import OwnerThinking
from tranque.table.ports import (
    Clock,
    Entry,
    LeaseLost,
    Subscriber,
    TableStore,
    Thinker,
    ThinkRequest,
)
from tranque.table.recent import Recent
from tranque.table.rematch import Rematch, RematchSeats
from tranque.table.service import TableError, TableService
from tranque.table.thinking import ThreadThinker

log = logging.getLogger("tranque.table")

MAX_BATCH = 64
GOING_AWAY = 1001  # the WebSocket close code that tells a client to reconnect (to any node)


class Dropped(Exception):
    """The owner cannot go on: its lease was taken over, or the log could not be written. What
    it applied since the last durable entry is not in the log, so the table must be rebuilt
    from the log (here or on another node); nothing of it was sent."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class TableOwner(OwnerThinking, OwnerFrames, OwnerPeople, OwnerPresence):
    def __init__(
        self,
        service: TableService,
        store: TableStore,
        clock: Clock,
        on_over: Callable[[TableOwner], None] | None = None,
        thinker: Thinker | None = None,
        epoch: int | None = None,
        on_dropped: Callable[[TableOwner], None] | None = None,
        on_change: Callable[[TableOwner], None] | None = None,
    ) -> None:
        self.service = service
        # Told after anything that may change the table's line in the lobby (seats, the start,
        # the end, spectators): the club's ``LobbyBoard.touch`` on a server; cheap, never blocks.
        self.on_change = on_change
        self.said: dict[str, float] = {}  # guest -> when he last said a phrase
        # "Revancha" once the game is over; ``on_rematch`` opens the next game's table.
        self.rematch: Rematch | None = None
        self.on_rematch: Callable[[TableOwner, RematchSeats], Awaitable[str]] | None = None
        # "Buscar a alguien": the free seats offered to the quick-match queue for
        # ``fill_window`` seconds (``on_fill`` tells the queue; bots take what is left).
        self.on_fill: Callable[[TableOwner, float], None] | None = None
        self.fill_window = 15.0
        # The club's words about the seats (``server.seat_ratings``: each seat's rating) and,
        # once the record is saved, about the game (``store.settle.changes``); in every sync.
        self.seat_ratings: dict[str, Any] | None = None
        self.rated: dict[str, Any] | None = None
        # The lease's fencing token every append carries (None on a single node); None again
        # once the table is over (its lease is gone: nothing is appended any more).
        self.epoch = epoch
        self.on_dropped = on_dropped
        self.thinker: Thinker = thinker or ThreadThinker()
        # The request out with the thinker, and the answer back from it not yet applied.
        self.thinking: tuple[ThinkRequest, asyncio.Task[None]] | None = None
        self.answered: tuple[ThinkRequest, str | bool] | None = None
        self.store = store
        self.clock = clock
        self.inbox: deque[tuple[Any, ...]] = deque()
        # What the owner awaits when it has nothing to do: resolved by ``_put`` or its timer.
        self.waiter: asyncio.Future[None] | None = None
        self.subscribers: list[Subscriber] = []
        # Seated people whose every connection closed (a page closed, not a "leave"): before
        # the start nothing of it is logged, and the lobby marks them (``present``).
        self.gone: set[str] = set()
        self.recent = Recent()
        self.errors: dict[tuple[str, str], Error | Ack] = {}
        self.task: asyncio.Task[None] | None = None
        self.on_over = on_over
        self.finished_saved = service.over
        # Set by ``close``: the error every later command, hello or sync gets from this owner.
        self.closed: tuple[str, str] | None = None
        # The ledger of a chip table's seats (``table.chips``); None for a free table.
        self.chips: ChipLedger | None = None
        # Whether a person belongs to a peña (the club's, ``store.penas``): asked when somebody
        # not seated sits at a peña's table. None: no club here, and nobody sits at one.
        self.pena_gate: Callable[[str, str], Awaitable[bool]] | None = None
        # The people who never came have been looked for (``_mark_absent``), once per owner.
        self.arrivals_checked = False

    @property
    def table_id(self) -> str:
        return self.service.table_id

    def start(self) -> None:
        self.task = asyncio.create_task(self.run(), name=f"table {self.table_id}")

    async def stop(self) -> None:
        self._forget_thinking()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    def close(self, code: str, message: str) -> None:
        """Stop the task for good (the table leaves memory); whoever is still attached gets the
        error ``code`` now, and again for anything he sends this owner later."""
        self.closed = (code, message)
        for sub in self.subscribers:
            sub.push(frame(Error(None, code, message)))
        self.subscribers.clear()
        # Hellos, syncs and commands not taken yet get their answer too.
        for item in self.inbox:
            if item[0] in ("attach", "sync", "cmd"):
                self._refuse(item[1], item[2].id if item[0] == "cmd" else None)
        self.inbox.clear()
        if self.task is not None:
            self.task.cancel()

    def _refuse(self, sub: Subscriber, cid: str | None = None) -> bool:
        if self.closed is None:
            return False
        code, message = self.closed
        sub.push(frame(Error(cid, code, message)))
        return True

    # -- the inbox ----

    def _put(self, item: tuple[Any, ...]) -> None:
        self.inbox.append(item)
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def forfeit(self, seat: int) -> None:
        """A tournament ruled this table a no-show (``seat``: one who never came): it ends as
        an aborted table does, with no result and unrated; the tournament writes the forfeit."""
        self._put(("forfeit", seat))

    def command(self, sub: Subscriber, msg: TableCommand | Mapping[str, Any]) -> None:
        """A person's command (typed at the socket's edge; a mapping from a program in this
        process is decoded first), answered in the order of the inbox."""
        try:
            cmd = as_command(msg)
        except TableError as exc:
            cid = msg.get("id") if isinstance(msg, Mapping) else None
            sub.push(frame(Error(cid, exc.code, exc.message)))
            return
        if not self._refuse(sub, cmd.id):
            self._put(("cmd", sub, cmd))

    def attach(self, sub: Subscriber, last_seq: int | None) -> None:
        if not self._refuse(sub):
            self._put(("attach", sub, last_seq))

    def detach(self, sub: Subscriber) -> None:
        if self.closed is None:
            self._put(("detach", sub))

    def sync(self, sub: Subscriber, last_seq: int | None) -> None:
        if not self._refuse(sub):
            self._put(("sync", sub, last_seq))

    def hand_over(self, code: str, message: str) -> None:
        """Stop for good and close every connection with 1001 (going away), so that each client
        reconnects, to whichever node owns the table next, and gets what it missed."""
        self.closed = (code, message)
        for sub in self.subscribers:
            sub.close(GOING_AWAY, message)
        self.subscribers.clear()
        for item in self.inbox:
            if item[0] in ("attach", "sync", "cmd"):
                item[1].close(GOING_AWAY, message)
        self.inbox.clear()
        self._forget_thinking()
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()

    async def _persist(self, entries: list[Entry], public: list[bytes]) -> None:
        """Make the entries durable, each with its public form (the table's history)."""
        try:
            await self.store.append(self.table_id, entries, self.epoch, public)
        except LeaseLost as exc:
            raise Dropped("table_moved", "the table moved to another node: reconnect") from exc
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("table %s: the log could not be written", self.table_id)
            raise Dropped(
                "unavailable", "the table's storage is unreachable: reconnect in a moment"
            ) from exc

    async def run(self) -> None:
        try:
            await self._run()
        except Dropped as exc:
            log.warning("table %s dropped: %s", self.table_id, exc.message)
            self.hand_over(exc.code, exc.message)
            if self.on_dropped is not None:
                self.on_dropped(self)

    async def _run(self) -> None:
        # The inbox is a deque and a future rather than a Queue read under a timeout: a
        # timed-out ``wait_for(queue.get())`` can drop the item it was handed (Python 3.11).
        # A bare future, not an ``asyncio.Event``: the event's ``wait`` is one more coroutine
        # per wait, and thousands of owners wait about once a second each.
        loop = asyncio.get_running_loop()
        try:
            while True:
                while self.inbox:
                    await self._handle(self.inbox.popleft())
                await self._advance()
                if not self.inbox:  # a hello on its way is handled first: he came
                    await self._mark_absent()
                if self.inbox:
                    continue
                wake = self.service.next_wake()
                if self.thinking is not None and wake is not None and wake <= self.clock.now():
                    # Due now is the decision out with the thinker: its answer wakes us, and so
                    # does anything else that comes due meanwhile.
                    wake = self.service.next_wake(after=self.clock.now())
                arrival = self._arrival_due()
                if arrival is not None and (wake is None or arrival < wake):
                    wake = arrival
                timer = None
                if wake is not None:
                    timeout = wake - self.clock.now()
                    if timeout <= 0:
                        continue
                self.waiter = waiter = loop.create_future()
                if wake is not None:
                    timer = loop.call_later(timeout, _resolve, waiter)
                try:
                    await waiter
                finally:
                    self.waiter = None
                    if timer is not None:
                        timer.cancel()
        except (asyncio.CancelledError, Dropped):
            raise
        except Exception:
            log.exception("table %s stopped on an error", self.table_id)
            raise

    async def _handle(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        svc = self.service
        if kind == "cmd":
            _, sub, msg = item
            await self._command(sub, msg)
        elif kind == "attach":
            _, sub, last_seq = item
            await self._attached(sub, last_seq)
        elif kind == "sync":
            _, sub, last_seq = item
            sub.push(self._sync_frame(sub, last_seq))
        elif kind == "detach":
            _, sub = item
            await self._detached(sub)
        elif kind == "thought":
            _, request, answer = item
            if self.thinking is not None and self.thinking[0] is request:
                self.thinking = None
                self.answered = (request, answer)
        elif kind == "place":
            _, guest, nickname, done = item
            try:
                done.set_result(await self._place(guest, nickname))
            except Exception as exc:  # the chips, the log: the queue puts him back
                if not done.done():
                    done.set_exception(exc)
                if isinstance(exc, Dropped):
                    raise
        elif kind == "resumed":
            _, shift = item
            await self._commit([logged(svc.seq + 1, Resumed(shift=shift), self.clock.now())])
        elif kind == "forfeit":
            _, seat = item
            if not svc.over:  # the game may have ended meanwhile: then its result stands
                await self._commit([logged(svc.seq + 1, Aborted(seat=seat), self.clock.now())])

    async def _command(self, sub: Subscriber, msg: TableCommand) -> None:
        svc = self.service
        guest = sub.guest or ""
        cid = msg.id
        key = (guest, cid)
        cached = svc.reply(guest, cid) or self.errors.get(key)
        if cached is not None:
            sub.push(frame(cached))  # a resend gets the original answer
            return
        try:
            match msg:
                case Say():
                    self._say(sub, msg)
                    return
                case RematchAnswer():
                    await self._rematch(sub, msg)
                    return
                case Fill():
                    await self._fill(sub, msg)
                    return
                case Sit() if svc.settings.pena is not None and svc.seat_of(guest) is None:
                    await self._member(svc.settings.pena, guest)
            entry = decide(svc, guest, msg, self.clock.now())
            if entry is not None and self.chips is not None and svc.settings.stake:
                await stake_seat(self.chips, self.table_id, svc.settings.stake, entry)
        except TableError as exc:
            reply = Error(cid, exc.code, exc.message)
            if len(self.errors) > 1000:
                self.errors.clear()
            self.errors[key] = reply
            sub.push(frame(reply))
            return
        if entry is None:  # taken, and nothing to log or tell anyone else (see the command)
            taken = Ack(cid, svc.seq)
            if len(self.errors) > 1000:
                self.errors.clear()
            self.errors[key] = taken  # a resend gets the same answer, as a logged one's does
            sub.push(frame(taken))
            return
        await self._commit([entry])
        if self.chips is not None and svc.settings.stake:
            await seat_staked(self.chips, self.table_id, entry)
        ack = svc.reply(guest, cid)
        assert ack is not None  # the entry just applied is the command's
        sub.push(frame(ack))

    async def _advance(self) -> None:
        """Make every entry the table makes by itself that is due now."""
        svc = self.service
        while True:
            batch: list[Entry] = []
            public: list[bytes] = []
            projections: list[list[tuple[Subscriber, bytes]]] = []
            now = self.clock.now()
            while len(batch) < MAX_BATCH:
                made = due(svc, now)
                if made is None:
                    break
                entry = made if isinstance(made, Entry) else self._thought(made, now)
                if entry is None:
                    break  # being thought about: the answer comes through the inbox
                if entry.type == "bot_sat" and self.chips is not None and svc.settings.stake:
                    # A bot taking a seat nobody came to (``fill``): the house's escrow first,
                    # as for a bot the host seats.
                    await stake_seat(self.chips, self.table_id, svc.settings.stake, entry)
                apply_entry(svc, entry)
                batch.append(entry)
                said, frames = self._render(entry)
                public.append(said)
                projections.append(frames)
            if not batch:
                return
            await self._persist(batch, public)
            if svc.settings.stake and any(e.type == "started" for e in batch):
                crash_point("started_logged")
            for p in projections:
                self._fan_out(p)
            await self._after()

    async def _commit(self, entries: list[Entry]) -> None:
        """Apply, make durable, then send: the order that keeps every sent event in the log."""
        rendered = []
        public = []
        for e in entries:
            apply_entry(self.service, e)
            said, frames = self._render(e)
            public.append(said)
            rendered.append(frames)
        await self._persist(entries, public)
        for r in rendered:
            self._fan_out(r)
        await self._after()

    async def _after(self) -> None:
        svc = self.service
        if self.on_change is not None:
            self.on_change(self)
        if svc.over and not self.finished_saved and svc.record is not None:
            self.finished_saved = True
            if svc.settings.stake:
                crash_point("over_logged")
            try:
                rated = await self.store.finish_table(
                    self.table_id, svc.record, svc.info(), self.epoch
                )
            except LeaseLost as exc:
                raise Dropped("table_moved", "the table moved to another node") from exc
            except Exception as exc:  # the entries are in the log: a rebuild saves the record
                raise Dropped("unavailable", "the table's storage is unreachable") from exc
            self.epoch = None  # the lease went with the record: nothing is appended any more
            if svc.settings.stake:
                crash_point("settled")
            if self.on_over is not None:
                self.on_over(self)
            if rated is not None:
                # The ratings were settled in the record's transaction, on this node: every
                # socket at the table (here or relayed) is told each seat's change now.
                self.rated = rated
                self._tell(frame({"type": "rating", **rated}))


def _resolve(waiter: asyncio.Future[None]) -> None:
    """An owner's timer: wake it, unless something in its inbox already did."""
    if not waiter.done():
        waiter.set_result(None)
