"""The runner of the service's tournaments: it moves every running Swiss of pairs on, one look
at a time (docs/tournaments.md, "The service").

Each look reads the tournament's rows and does the next thing they call for, once: start a
tournament whose time has come; pair the next round (``tournament.swiss``, from the file the rows
make) and write it; open each of its tables with the entrants' people seated (pair A in seats
0 and 2) and ring their bells; rule the no-shows once a table's no-show time has passed
(``tournament.outcomes``); write each table's result when the table-end path has saved its
record; end the round when every table has a result, and the tournament after its last round.
Since every step is decided from durable rows (and a round's row can be written once), a server
restarted at any point picks up where it stopped: no round starts twice, and a round's tables
are the ones its rows name (the lobby rebuilt them from their logs).

Why a loop that looks, rather than callbacks on a table's end: a table may end while this node
is down, or on another node; the rows are the truth, and a look every ``TICK`` finds any change.
The table-end path wakes the loop early (``wake``) so a round moves on at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from tranque.server.arena_runner import ARENA, ArenaRunner
from tranque.server.tournament_schedules import Scheduler
from tranque.server.tournament_tables import HOST, MadeTables, tournament_table
from tranque.store.tournaments import (
    FINISHED,
    REGISTERING,
    RUNNING,
    EntrantRow,
    RoundRow,
    SqlTournaments,
    TableRow,
    TournamentRow,
)
from tranque.table.chips import crash_point
from tranque.table.lobby import Lobby
from tranque.table.model import TableSettings
from tranque.table.owner_frames import frame
from tranque.tournament.model import TournamentError
from tranque.tournament.outcomes import no_show, played
from tranque.tournament.swiss import pair_round

log = logging.getLogger("tranque.tournaments")

TICK = 0.5  # seconds between two looks
# On a cluster the node that runs every tournament holds this lease (the tables' leases, with a
# key no table has): one runner at a time, and another node's when its node dies.
LEASE = "~tournaments"

Names = Callable[[list[str]], Awaitable[dict[str, str]]]  # guest ids -> account names
Push = Callable[[list[str], bytes], None]  # a frame to these people's club sockets
Ring = Callable[[str, str, dict[str, Any]], Awaitable[None]]  # a notice in a person's bell


class TournamentRunner:
    def __init__(
        self,
        rows: SqlTournaments,
        lobby: Lobby,
        defaults: TableSettings,
        names: Names,
        push: Push,
        ring: Ring,
        *,
        tick: float = TICK,
        minute: float = 60.0,
        arena: ArenaRunner | None = None,
    ) -> None:
        self.rows, self.lobby, self.defaults = rows, lobby, defaults
        self.arena = arena  # the arenas' side (server.arena_runner), under the same lease
        if arena is not None:
            arena.keep = self._runs_here
        self.names, self.push, self.ring = names, push, ring
        self.tick = tick
        self.minute = minute  # seconds per minute of a time cap (60; less in tests)
        self.ruled: set[str] = set()  # tables whose no-shows were ruled on (both came)
        self.epoch: int | None = None  # the runner's lease held (a cluster), else None
        self.renewed = 0.0
        # Scheduled repeating tournaments (server.tournament_schedules): looked at by the node
        # that runs the tournaments; None: no schedules here.
        self.scheduler: Scheduler | None = None
        self._wake = asyncio.Event()
        self.made = MadeTables(lobby)  # the rounds' tables known to be made
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="tournaments")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self.epoch is not None:  # another node may run them at once, not a lease time later
            with contextlib.suppress(Exception):
                await self.lobby.leases.release({LEASE: self.epoch})

    async def _runs_here(self) -> bool:
        """On one node, always; on a cluster, while this node holds the runner's lease (claimed
        when nobody holds it, renewed a few times per lease time, lost when another took it
        over after this node stalled)."""
        if not self.lobby.clustered:
            return True
        leases, now = self.lobby.leases, time.time()
        if self.epoch is None:
            lease = await leases.claim(LEASE)
            self.epoch = None if lease is None else lease.epoch
            self.renewed = now
            if self.epoch is not None:
                log.info("this node runs the tournaments (epoch %d)", self.epoch)
        elif now - self.renewed > leases.ttl / 3:
            if await leases.renew({LEASE: self.epoch}):
                log.warning("the tournaments' lease was lost: another node runs them")
                self.epoch = None
            self.renewed = now
        return self.epoch is not None

    def wake(self, *_: Any) -> None:
        self._wake.set()

    async def _run(self) -> None:
        while True:
            try:
                if await self._runs_here():
                    if self.scheduler is not None:
                        await self.scheduler.look(time.time())
                    for t in await self.rows.active():
                        if not await self._runs_here():  # renewed when due: long looks too
                            break
                        await self.advance(t)
            except Exception:  # the database away a moment: the next look tries again
                log.exception("a look at the tournaments failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.tick)

    async def advance(self, t: TournamentRow) -> None:
        now = time.time()
        if t.state == REGISTERING:
            if t.starts is not None and t.starts <= now:
                await self.begin(t)
            return
        if t.kind == ARENA:
            if self.arena is not None:
                await self.arena.advance(t)
            return
        rounds = await self.rows.rounds(t.id)
        current = rounds[-1] if rounds else None
        if current is None or current.ended is not None:
            await self._next_round(t, now)
        else:
            await self._watch(t, current, now)

    async def begin(self, t: TournamentRow) -> bool:
        """Registering -> running (the creator's start, or its time): with fewer than two
        pairs there is nothing to play, and it is finished at once. An arena starts with
        whoever is there (people join while it runs)."""
        if t.kind == ARENA:
            started = self.arena is not None and await self.arena.begin(t)
            if started:
                self.wake()
            return started
        active = [e for e in await self.rows.entrants(t.id) if not e.withdrawn]
        after = RUNNING if len(active) >= 2 else FINISHED
        if not await self.rows.move(t.id, REGISTERING, after):
            return False
        self._tell(t, active, {"event": "started" if after == RUNNING else "finished"})
        self.wake()
        return True

    def _tell(self, t: TournamentRow, entrants: list[EntrantRow], body: dict[str, Any]) -> None:
        people = [g for e in entrants for g in e.people]
        self.push(people, frame({"type": "tournament", "tournament": t.id, **body}))

    async def _next_round(self, t: TournamentRow, now: float) -> None:
        entrants = await self.rows.entrants(t.id)
        names = await self.names([g for e in entrants for g in e.people])
        file = await self.rows.file(t.id, names)
        assert file is not None
        try:
            if len(file.played) >= t.rounds:
                raise TournamentError("the last round is played")
            pairing = pair_round(file)
        except TournamentError:  # after the last round, or fewer than two pairs left
            if await self.rows.move(t.id, RUNNING, FINISHED):
                self._tell(t, entrants, {"event": "finished"})
            return
        if await self.rows.start_round(t.id, pairing.round, pairing.byes, pairing.tables, now):
            log.info("tournament %s: round %d paired", t.id, pairing.round)
            self._tell(t, entrants, {"event": "round_started", "round": pairing.round})
            self.wake()

    async def _watch(self, t: TournamentRow, current: RoundRow, now: float) -> None:
        entrants = {e.entrant: e for e in await self.rows.entrants(t.id)}
        waiting = [tb for tb in current.tables if not tb.done]
        ends = await self.rows.table_ends([tb.table_id for tb in waiting if tb.table_id])
        for tb in waiting:
            if tb.table_id is None or not await self.made.made(tb.table_id):
                await self._open(t, current, tb, entrants)
            elif tb.table_id in ends:
                out = played(ends[tb.table_id])
                # Written now, or before (a forfeit ruled before the table ended): done.
                await self.rows.result(
                    t.id, current.round, tb.number, out.points, out.winner, out.forfeit
                )
                tb.done = True
            else:
                tb.done = await self._no_shows(t, current, tb)
        if all(tb.done for tb in current.tables) and await self.rows.end_round(
            t.id, current.round, now
        ):
            log.info("tournament %s: round %d ended", t.id, current.round)
            everyone = list(entrants.values())
            self._tell(t, everyone, {"event": "round_ended", "round": current.round})
            self.wake()

    async def _open(
        self, t: TournamentRow, current: RoundRow, tb: TableRow, entrants: dict[str, EntrantRow]
    ) -> None:
        """The table of ``tb``, its four people seated (A: 0 and 2, B: 1 and 3); it starts at
        once, and whoever is not there when its no-show time ends is ``absent``. Its id is
        written down before the table is made (``MadeTables`` finds one never made)."""
        a, b = entrants[tb.a], entrants[tb.b]
        seats = [a.a, b.a, a.b, b.b]
        names = await self.names(seats)
        settings = tournament_table(self.defaults, t, self.cap_seconds(t))
        people = [(s, g, names.get(g, "?")) for s, g in enumerate(seats)]
        table_id = tb.table_id
        if table_id is None:
            table_id = await self.lobby.table_ids()
            await self.rows.opened(t.id, current.round, tb.number, table_id)
            tb.table_id = table_id
            crash_point("tournament_table_named")
        owner = await self.lobby.create(HOST, "", settings, None, people=people, table_id=table_id)
        self.made.add(owner.table_id)
        for s, guest in enumerate(seats):
            body = {"tournament": t.id, "name": t.name, "round": current.round,
                    "table": owner.table_id, "seat": s}  # fmt: skip
            await self.ring(guest, "tournament_table", body)

    def cap_seconds(self, t: TournamentRow) -> float | None:
        """A game's time cap in seconds (its ``minutes``), or None: played to the target."""
        return None if t.minutes is None else t.minutes * self.minute

    async def _no_shows(self, t: TournamentRow, current: RoundRow, tb: TableRow) -> bool:
        """Rule a table's no-shows once its owner has looked for who never came: a forfeit
        is written (True) and the table ends; both pairs came: the game decides (False)."""
        assert tb.table_id is not None
        if tb.table_id in self.ruled:
            return False
        owner = self.lobby.owners.get(tb.table_id)
        if owner is None or not owner.arrivals_checked:
            return False  # not here (another node, or not rebuilt yet), or not looked yet
        svc = owner.service
        absent = set(svc.absent)
        out = no_show(absent, t.target)
        if out is None:
            self.ruled.add(tb.table_id)
            return False
        if not await self.rows.result(t.id, current.round, tb.number, out.points, out.winner,
                                      out.forfeit):  # fmt: skip
            return True  # written already (before a restart)
        log.info("tournament %s: table %s forfeit (absent seats %s)", t.id, tb.table_id, absent)
        owner.forfeit(min(absent))
        return True
