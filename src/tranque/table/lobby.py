"""``Lobby``: every table owner of this node; creates tables, rebuilds unfinished ones, takes over
the tables of nodes that died, and lets tables go.

On a single node every table is this node's (``SoleLeases``). On a cluster a table is owned by
the node holding its lease (``Leases``): the lobby claims a table when it creates it, when a hello
comes for a table nobody holds, and when a table's lease has expired (its node died or stopped
renewing: a *keeper* task renews this node's leases and looks for such orphans every second);
it drops a table whose lease it lost. A hello for a table another node owns gets a
``RemoteTable`` (``table.relay``) that forwards everything to it.

How tables leave memory (one that never starts expires; a finished one lingers, then goes) is
``LobbyMemory`` (table/lobby_memory.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from tranque.ledger.stakes import ChipError, cost
from tranque.table.bus import Bus, LocalHub
from tranque.table.chips import ChipLedger, crash_point, holders_of
from tranque.table.entries import BotSat, logged, placed
from tranque.table.lobby_memory import LobbyMemory, table_expired
from tranque.table.owner import TableOwner
from tranque.table.owner_frames import frame
from tranque.table.ports import Clock, Entry, Lease, Leases, SoleLeases, TableStore, Thinker
from tranque.table.recent import RECENT
from tranque.table.relay import MOVED, Relay, RemoteTable
from tranque.table.rematch import RematchSeats
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
ADOPT_AT_ONCE = 20  # orphaned tables one look of the keeper claims (the rest at the next look)

TableHandle = TableOwner | RemoteTable  # what a connection at a table talks to


class Lobby(LobbyMemory):
    """Every table's owner; creates tables and rebuilds the unfinished ones after a restart."""

    def __init__(
        self,
        store: TableStore,
        clock: Clock,
        seed_source: SeedSource,
        defaults: TableSettings,
        table_ids: Callable[[], Awaitable[str]] | None = None,
        *,
        expiry: float = EXPIRY,
        linger: float = LINGER,
        thinker: Thinker | None = None,
        leases: Leases | None = None,
        bus: Bus | None = None,
    ) -> None:
        self.leases: Leases = leases or SoleLeases()
        self.clustered = not math.isinf(self.leases.ttl)
        self.bus: Bus = bus or LocalHub().bus(self.leases.node)
        self.relay = Relay(self.bus, self)
        self._keeper: asyncio.Task[None] | None = None
        self.store_ok = True  # the keeper's last look at the database succeeded
        self.thinker = thinker  # where every table's bots think (None: a thread of this process)
        self.store = store
        self.clock = clock
        self.seed_source = seed_source
        self.defaults = defaults
        self.owners: dict[str, TableOwner] = {}
        self.table_ids = table_ids or _random_id
        self.expiry = expiry
        self.linger = linger
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._reviving: dict[str, asyncio.Future[TableOwner | None]] = {}
        self._expiring: set[str] = set()  # expired here, the store's mark not yet committed
        self._chores: set[asyncio.Task[Any]] = set()
        # The club's lobby of public tables, when the server has one: told of every change of
        # a table here (``changed``) and of a table leaving this node (``gone``).
        self.on_change: Callable[[TableOwner], None] | None = None
        self.on_gone: Callable[[str], None] | None = None
        # Told of every table that ends here (its record saved): the tournaments' runner.
        self.on_over: Callable[[str], None] | None = None
        # The ledger of chip tables (``table.chips``), when the server has one.
        self.chips: ChipLedger | None = None
        # Whether a person belongs to a peña (``TableOwner.pena_gate``), when the server has a
        # club.
        self.pena_gate: Callable[[str, str], Awaitable[bool]] | None = None
        # The quick-match queue's side of a table's ``fill`` (the server's), and its window.
        self.on_fill: Callable[[TableOwner, float], None] | None = None
        self.fill_window = 15.0
        self.counts = {
            "created": 0, "rebuilt": 0, "expired": 0, "left_memory": 0, "revived": 0,
            "taken_over": 0, "lost": 0, "released": 0,
        }  # fmt: skip

    # -- coming -----------------------------------------------------------------------------------

    async def recover(self) -> int:
        """Start the node: connect the bus; on one node, rebuild every unfinished table from its
        log and start it again; on a cluster, claim the tables nobody holds (and keep doing so,
        and keep this node's leases, from the keeper task)."""
        await self.bus.start(self.relay)
        if self.clustered:
            count = await self._adopt_orphans()
            self._keeper = asyncio.create_task(self._keep(), name="lease keeper")
            return count
        count = 0
        for table_id in await self.store.unfinished_tables():
            if await self._rebuild(table_id, Lease(table_id, None)) is not None:
                count += 1
        self.counts["rebuilt"] += count
        return count

    async def _rebuild(self, table_id: str, lease: Lease) -> TableOwner | None:
        """Rebuild an unfinished table from its log and start it under ``lease``.

        A table that never started and is past its expiry is marked expired instead, and a table
        whose match ended just before a crash gets its record saved; neither is started.
        """
        now = self.clock.now()
        entries = await self.store.load_events(table_id)
        if not entries:
            if self.chips is not None:
                # Its row (and a chip table's first escrows) were written, its first entries
                # never: it can never start. Expiring it gives any escrow back.
                await self.store.expire_table(table_id)
            return None
        svc, recent = self._replay(table_id, entries)
        if self.chips is not None and svc.settings.stake:
            # Escrows of seats that never made it to the log go back (table.chips).
            await self.chips.reconcile(table_id, holders_of(svc.seats))
        created = entries[0].ts
        if not svc.started and created + self.expiry <= now:
            await self.store.expire_table(table_id)
            self.counts["expired"] += 1
            log.info("table %s expired while nobody had it", table_id)
            return None
        if svc.over and svc.record is not None:
            await self.store.finish_table(table_id, svc.record, svc.info(), lease.epoch)
            return None
        owner = self._start(svc, recent, created, lease.epoch)
        if svc.started and not svc.over:
            # Clocks go on with the time they had left when the table last moved.
            owner._put(("resumed", max(0.0, now - svc.last_ts)))
        return owner

    def _replay(
        self, table_id: str, entries: list[Entry]
    ) -> tuple[TableService, list[tuple[int, bytes]]]:
        svc = TableService(table_id, self.seed_source)
        recent: list[tuple[int, bytes]] = []
        for i, e in enumerate(entries):
            svc.apply(e)
            if i >= len(entries) - RECENT:
                recent.append((e.seq, frame(svc.event(e))))
        return svc, recent

    def _start(
        self,
        svc: TableService,
        recent: list[tuple[int, bytes]],
        created: float,
        epoch: int | None = None,
    ) -> TableOwner:
        owner = TableOwner(
            svc,
            self.store,
            self.clock,
            on_over=self._over,
            thinker=self.thinker,
            epoch=epoch,
            on_dropped=self._dropped,
            on_change=self._changed,
        )
        owner.on_rematch = self._rematch
        owner.on_fill = self.on_fill
        owner.fill_window = self.fill_window
        owner.chips = self.chips
        owner.pena_gate = self.pena_gate
        owner.recent.extend(recent)
        self.owners[svc.table_id] = owner
        owner.start()
        self._changed(owner)
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
        *,
        people: Sequence[tuple[int, str, str]] = (),
        bots: Sequence[tuple[int, str]] = (),
        rematch: dict[str, Any] | None = None,
        table_id: str | None = None,
    ) -> TableOwner:
        """A new table, its host in ``seat``; a quick match's table comes with its ``people``
        (seat, guest, nickname) and ``bots`` (seat, bot) seated, and starts at once.
        ``table_id``: one named beforehand (``table_ids``) by a caller that wrote it down first
        (a tournament's runner), else a new one."""
        table_id = table_id or await self.table_ids()
        svc = TableService(table_id, self.seed_source)
        now = self.clock.now()
        first: list[Entry] = []
        public: list[bytes] = []  # each entry's public form, as the log keeps it (history)

        def add(e: Entry) -> None:
            svc.apply(e)
            first.append(e)
            public.append(frame(svc.event(e)))

        created: dict[str, Any] = {"settings": settings.to_json(), "host": host}
        if rematch is not None:
            created["rematch"] = rematch  # which table it follows, who declined there
        add(Entry(1, "created", created, now))
        seated = [(seat, host, nickname)] if seat is not None else []
        for s, guest, nick in [*seated, *people]:
            add(placed(svc.seq + 1, s, guest, nick, now))
        for s, bot in bots:
            add(logged(svc.seq + 1, BotSat(seat=s, bot=bot), now))
        if settings.practice:
            bot = resolve_bot_name(settings.bot)
            for s in range(4):
                if svc.seats[s].kind == "empty":
                    add(logged(svc.seq + 1, BotSat(seat=s, bot=bot), now))
        # The lease first: a table row without one would be an orphan to the other nodes.
        lease = await self.leases.claim(table_id)
        if lease is None:  # a table id made twice: never with random ids
            raise TableError("no_table", f"table {table_id!r} exists already")
        info = {"settings": settings.to_json()}
        # Everyone seated now counts this table against his cap (a quick match has no host).
        persons = [s.guest for s in svc.seats if s.kind == "person" and s.guest is not None]
        if settings.stake and self.chips is not None:
            # The row and every first seat's escrow in one transaction: all or none.
            holders = [h for h in holders_of(svc.seats) if h is not None]
            try:
                await self.chips.create_table(
                    table_id, host, info, holders, cost(settings.stake), persons
                )
            except ChipError:  # (a TableError: who could not pay is in it, for the queue)
                if lease.epoch is not None:
                    with contextlib.suppress(Exception):
                        await self.leases.release({table_id: lease.epoch})
                raise
            if holders:
                crash_point("escrow_taken")
        else:
            await self.store.create_table(table_id, host, info, persons)
        await self.store.append(table_id, first, lease.epoch, public)
        # A reconnecting client's missed events are projected from the table as it is now.
        recent = [(e.seq, frame(svc.event(e))) for e in first]
        self.counts["created"] += 1
        return self._start(svc, recent, now, lease.epoch)

    async def _rematch(self, owner: TableOwner, seats: RematchSeats) -> str:
        """The next game of a finished table: a new table, its settings, the seats agreed."""
        svc = owner.service
        accepted = {guest for _, guest, _ in seats.people}
        host = svc.host if svc.host in accepted or not accepted else seats.people[0][1]
        declined = [
            {"seat": s, "nickname": seat.nickname}
            for s, seat in enumerate(svc.seats)
            if seat.kind == "person" and not owner.rematch_accepted(s)
        ]
        new = await self.create(
            host or "",
            "",
            svc.settings,
            None,
            people=seats.people,
            bots=seats.bots,
            rematch={"table": svc.table_id, "declined": declined},
        )
        return new.table_id

    async def get(self, table_id: str) -> TableOwner | None:
        """The table's owner if it is in memory here (routes that can answer from the store)."""
        return self.owners.get(table_id)

    async def join(self, table_id: str) -> TableHandle:
        """What a ``hello`` attaches to: the live owner here, a ``RemoteTable`` for a table
        another node owns, an unfinished table nobody holds (claimed and rebuilt here), or a
        finished table brought back from its log. Raises ``TableError`` ``no_table``,
        ``table_expired`` or ``unavailable``.

        The owner returned is in memory at that moment: the caller attaches to it before it
        next yields, so that a finished table does not leave in between.
        """
        for _ in range(8):
            owner = self.owners.get(table_id)
            if owner is not None:
                return owner
            if table_id in self._expiring:
                raise table_expired(table_id)
            if self.clustered:
                holder = await self._holder(table_id)
                if holder is not None and holder != self.leases.node:
                    if await self.bus.reachable(holder):
                        return self.relay.remote_table(table_id, holder)
                    # Its node is gone; its lease runs out within ``ttl``: then it is ours.
                    await asyncio.sleep(min(1.0, self.leases.ttl / 4))
                    continue
                owner = self.owners.get(table_id)
                if owner is not None:
                    return owner
            revived = await asyncio.shield(self._once(table_id, self._revive))
            if revived is not None and self.owners.get(table_id) is revived:
                return revived
        raise TableError("unavailable", f"table {table_id!r} could not be reached: try again")

    async def _holder(self, table_id: str) -> str | None:
        try:
            return await self.leases.holder(table_id)
        except Exception as exc:
            raise _unavailable(table_id) from exc

    async def _revive(self, table_id: str) -> TableOwner | None:
        """Bring a table that is in no node's memory into this one's: an unfinished table under a
        new lease (None if another node claimed it first), a finished one read-only."""
        try:
            row = await self.store.load_table(table_id)
        except Exception as exc:
            raise _unavailable(table_id) from exc
        if row is not None and row["status"] == "expired":
            raise table_expired(table_id)
        owner = self.owners.get(table_id)
        if owner is not None:
            return owner
        if row is not None and row["status"] == "open":
            return await self._adopt(table_id)
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

    async def _adopt(self, table_id: str) -> TableOwner | None:
        """Claim a table nobody holds and rebuild it here; None if another node was first."""
        try:
            lease = await self.leases.claim(table_id)
            if lease is None:
                return None
            owner = self.owners.get(table_id)
            if owner is not None:
                return owner
            owner = await self._rebuild(table_id, lease)
        except TableError:
            raise
        except Exception as exc:
            log.exception("table %s could not be taken over", table_id)
            raise _unavailable(table_id) from exc
        if owner is not None:
            # Connections here that reached the table through its old node reconnect, to here.
            self.relay.moved(table_id, self.leases.node)
            self.counts["taken_over" if self.clustered else "rebuilt"] += 1
            log.info("table %s taken over (epoch %s)", table_id, lease.epoch)
            if self.clustered:
                self.relay.announce(table_id, self.leases.node)
        return owner

    def _once(
        self, table_id: str, bring: Callable[[str], Awaitable[TableOwner | None]]
    ) -> asyncio.Future[TableOwner | None]:
        """One bringing-back of a table at a time (a hello's and the keeper's share it)."""
        pending = self._reviving.get(table_id)
        if pending is None:
            pending = asyncio.ensure_future(bring(table_id))
            self._reviving[table_id] = pending
            pending.add_done_callback(lambda _: self._reviving.pop(table_id, None))
        return pending

    async def _adopt_orphans(self) -> int:
        count = 0
        for table_id in await self.leases.orphans(ADOPT_AT_ONCE):
            if table_id in self.owners:
                continue
            with contextlib.suppress(TableError):
                if await asyncio.shield(self._once(table_id, self._adopt)) is not None:
                    count += 1
        return count

    async def _keep(self) -> None:
        """Renew this node's leases, drop the tables whose lease was lost, and take over the
        tables nobody holds; a few times per lease time, with a little jitter so that nodes do
        not all look at the same moment."""
        ttl = self.leases.ttl
        while True:
            await asyncio.sleep(min(1.0, ttl / 5) * random.uniform(0.8, 1.2))
            try:
                held = {
                    tid: o.epoch
                    for tid, o in self.owners.items()
                    if o.epoch is not None and o.closed is None
                }
                for tid in await self.leases.renew(held):
                    owner = self.owners.get(tid)
                    if owner is not None and owner.epoch == held[tid]:
                        log.warning("table %s: its lease was taken over; dropping it", tid)
                        owner.hand_over("table_moved", MOVED)
                        self._dropped(owner)
                await self._adopt_orphans()
                self.store_ok = True
                for node in self.relay.peers():
                    if not await self.bus.reachable(node):
                        self.relay.unreachable(node)
            except asyncio.CancelledError:
                raise
            except Exception:
                self.store_ok = False
                log.exception("the lease keeper could not reach the database")

    async def drain(self) -> None:
        """Hand every table this node owns to the others (a clean stop of a cluster's node): stop
        each owner after its current commit, close its connections with 1001, release the
        leases, and tell every node. The clients reconnect and find the tables on other nodes
        within about a second."""
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
            self._keeper = None
        held = {tid: o.epoch for tid, o in self.owners.items() if o.epoch is not None}
        for tid, owner in list(self.owners.items()):
            if owner.epoch is None:
                continue
            await owner.stop()
            owner.hand_over("table_moved", "this node is stopping: reconnect")
            del self.owners[tid]
            self._gone(tid)
        with contextlib.suppress(Exception):
            await self.leases.release(held)
            self.counts["released"] += len(held)
        for tid in held:
            self.relay.announce(tid, None)
        for rt in list(self.relay.remote_tables.values()):
            rt.close_all("this node is stopping: reconnect")

    # -- going ------------------------------------------------------------------------------------

    async def close(self) -> None:
        if self.clustered:
            await self.drain()
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        for owner in list(self.owners.values()):
            await owner.stop()
        for task in list(self._chores):
            with contextlib.suppress(Exception):
                await task
        await self.bus.close()


async def _random_id() -> str:
    return secrets.token_urlsafe(6)


def _unavailable(table_id: str) -> TableError:
    return TableError("unavailable", f"table {table_id!r} cannot be reached now: try again soon")
