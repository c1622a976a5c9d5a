"""The arena's side of the tournaments' runner (docs/tournaments.md, "The service"): called by
``server.tournament_runner`` at each look, under the same lease, for every arena that runs.

Each look reads the arena's rows and does what they call for, once: open the table of any game
whose row names its seats but no table yet; write the result of every game whose table has
ended (its people are free again from then); take out of the pool whoever never came to his
table (he joins again to come back); then, while the clock runs, seat the free
(``tournament.arena.seat_free``: closest scores together, fours), and seat a leftover group of
one to three with bots of level ``normal`` once the longest-waiting of them has been free for
the quick match's fill time. After the clock, nobody is seated; when the last game playing has
ended, the arena is finished.

The pool of the free is not kept in memory: it is the rows (joined, not withdrawn, at no game
that is not done), so a node that takes the lease over, or a server restarted, seats exactly
whom the rows say are free, and a game's row, written before its table opens, keeps its people
out of the pool whatever happens next.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from tranque.bots.base import resolve_bot
from tranque.server.tournament_tables import HOST, MadeTables, tournament_table
from tranque.store.arena import ArenaEntrantRow, ArenaGameRow, SqlArena
from tranque.store.tournaments import FINISHED, RUNNING, SqlTournaments, TournamentRow
from tranque.table.chips import crash_point
from tranque.table.lobby import Lobby
from tranque.table.model import TableSettings
from tranque.table.owner_frames import frame
from tranque.tournament.arena import ArenaLine, lines_of, seat_free, seat_leftover
from tranque.tournament.outcomes import played

log = logging.getLogger("tranque.tournaments")

ARENA = "arena"
BOT_LEVEL = "normal"
WAVE = 16  # tables opened side by side, between two looks at the runner's lease


class ArenaRunner:
    """Moves the running arenas on; ``names``, ``push`` and ``ring`` are the tournaments'
    runner's. ``fill``: the quick match's fill time; ``minute``: the seconds an arena's minute
    lasts (60; a test server shortens it, ``--tournament-minute``)."""

    def __init__(
        self,
        rows: SqlTournaments,
        arena: SqlArena,
        lobby: Lobby,
        defaults: TableSettings,
        names: Any,
        push: Any,
        ring: Any,
        *,
        fill: float,
        minute: float = 60.0,
    ) -> None:
        self.rows, self.arena, self.lobby, self.defaults = rows, arena, lobby, defaults
        self.names, self.push, self.ring = names, push, ring
        self.fill, self.minute = fill, minute
        self.ruled: set[str] = set()  # tables whose absent people were taken out of the pool
        self.made = MadeTables(lobby)  # the games' tables known to be made
        # The runner's lease, renewed when due (True: still ours): a wave of hundreds of tables
        # takes longer than a lease time on a busy cluster, so it is kept between its parts.
        self.keep: Callable[[], Awaitable[bool]] | None = None

    def _tell(self, t: TournamentRow, guests: list[str], body: dict[str, Any]) -> None:
        if guests:
            self.push(guests, frame({"type": "tournament", "tournament": t.id, **body}))

    async def begin(self, t: TournamentRow) -> bool:
        """Registering -> running, its clock set from ``minutes``; nobody needs to be there yet
        (people join while it runs)."""
        now = time.time()
        ends = now + float(t.minutes or 0) * self.minute
        if not await self.arena.begin(t.id, now, ends):
            return False
        entrants = await self.arena.entrants(t.id)
        self._tell(t, [e.guest for e in entrants if not e.withdrawn], {"event": "started"})
        return True

    async def advance(self, t: TournamentRow) -> None:
        clock = await self.arena.clock(t.id)
        if clock is None:  # never without one: the start writes both at once
            return
        now = time.time()
        entrants = await self.arena.entrants(t.id)
        by_id = {e.entrant: e for e in entrants}
        games = await self.arena.games(t.id)
        playing = [g for g in games if not g.done]
        ends = await self.arena.table_ends([g.table_id for g in playing if g.table_id])
        for g in playing:
            if g.table_id is None or not await self.made.made(g.table_id):
                await self._open(t, g, by_id)
            elif g.table_id in ends:
                info, ended = ends[g.table_id]
                await self._result(t, g, info, (ended or now) - clock.started, by_id)
            else:
                await self._absent(t, g)
        if now < clock.ends:
            await self._seat(t, entrants, now)
            return
        if [g for g in await self.arena.games(t.id) if not g.done]:
            return  # games still playing when the clock ended finish and count
        if await self.rows.move(t.id, RUNNING, FINISHED):
            log.info("arena %s: finished", t.id)
            self._tell(t, [e.guest for e in entrants], {"event": "finished"})

    async def _result(
        self,
        t: TournamentRow,
        g: ArenaGameRow,
        info: dict[str, Any],
        ended: float,
        by_id: dict[str, ArenaEntrantRow],
    ) -> None:
        out = played(info)
        result = info.get("result")
        pollona = bool(isinstance(result, dict) and result.get("pollona"))
        points = None if out.winner is None else out.points
        if await self.arena.result(t.id, g, points, out.winner, pollona, ended, time.time()):
            log.info("arena %s: game %d ended (%s)", t.id, g.number, out.winner)
            guests = [by_id[e].guest for e in g.people if e in by_id]
            self._tell(t, guests, {"event": "game_ended", "table": g.table_id})

    async def _absent(self, t: TournamentRow, g: ArenaGameRow) -> None:
        """Whoever never came to his table is out of the pool (a bot plays his seat, and the
        game counts as any other): an arena does not keep seating a person who is not there."""
        assert g.table_id is not None
        if g.table_id in self.ruled:
            return
        owner = self.lobby.owners.get(g.table_id)
        if owner is None or not owner.arrivals_checked:
            return  # not here (another node, or not rebuilt yet), or not looked yet
        self.ruled.add(g.table_id)
        for seat in sorted(owner.service.absent):
            eid = g.seats[seat]
            if eid is not None and await self.arena.leave(t.id, eid, False):
                log.info("arena %s: %s never came to table %s: out", t.id, eid, g.table_id)

    async def _seat(self, t: TournamentRow, entrants: list[ArenaEntrantRow], now: float) -> None:
        games = await self.arena.games(t.id)
        busy = {eid for g in games if not g.done for eid in g.people}
        free_rows = [e for e in entrants if not e.withdrawn and e.entrant not in busy]
        if not free_rows:
            return
        names = await self.names([e.guest for e in entrants])
        lines = lines_of(await self.arena.file(t, entrants, names))
        free: list[ArenaLine] = [lines[e.entrant] for e in free_rows]
        fours = seat_free(free)
        seated = {eid for four in fours for eid in four}
        tables: list[tuple[str | None, str | None, str | None, str | None]] = list(fours)
        left = [x for x in free if x.id not in seated]
        since = {e.entrant: e.free_since for e in free_rows}
        if left and now - min(since[x.id] for x in left) >= self.fill:
            tables.append(seat_leftover(left))
        if not tables:
            return
        by_id = {e.entrant: e for e in entrants}
        # The games' rows at once (one transaction), then their tables opened side by side: a
        # wave of a thousand people is a few hundred tables, not one table after another.
        written = await self.arena.seat(t.id, tables, now)
        games = [ArenaGameRow(n, seats, None, now, None, None, None, False, False)
                 for n, seats in written]  # fmt: skip
        for part in range(0, len(games), WAVE):
            if part and self.keep is not None and not await self.keep():
                return  # another node runs the tournaments now: it opens the rest (rows)
            some = games[part : part + WAVE]
            opened = await asyncio.gather(
                *(self._open(t, g, by_id, names) for g in some), return_exceptions=True
            )
            for g, out in zip(some, opened, strict=True):
                if isinstance(out, Exception):  # its row stays: the next look opens it again
                    log.error("arena %s: game %d did not open: %r", t.id, g.number, out)

    async def _open(
        self,
        t: TournamentRow,
        g: ArenaGameRow,
        by_id: dict[str, ArenaEntrantRow],
        names: dict[str, str] | None = None,
    ) -> None:
        """The game's table with its people seated and bots of level ``normal`` in the empty
        seats (marked as bots, as at a quick match): it starts at once, and whoever is not there
        when the no-show time ends is played by a bot."""
        guests = [None if s is None else by_id[s].guest for s in g.seats]
        if names is None:
            names = await self.names([x for x in guests if x is not None])
        settings = tournament_table(self.defaults, t)
        people = [(s, x, names.get(x, "?")) for s, x in enumerate(guests) if x is not None]
        bot = resolve_bot(BOT_LEVEL)
        bots = [(s, bot) for s, x in enumerate(guests) if x is None]
        table_id = g.table_id
        if table_id is None:  # written down first: a crash before the table is made is found
            table_id = await self.lobby.table_ids()
            await self.arena.opened(t.id, g.number, table_id)
            crash_point("arena_table_named")
        owner = await self.lobby.create(
            HOST, "", settings, None, people=people, bots=bots, table_id=table_id
        )
        self.made.add(owner.table_id)
        for s, guest in enumerate(guests):
            if guest is None:
                continue
            body = {"tournament": t.id, "name": t.name, "game": g.number,
                    "table": owner.table_id, "seat": s}  # fmt: skip
            await self.ring(guest, "tournament_table", body)
            self._tell(t, [guest], {"event": "seated", "table": owner.table_id, "seat": s})
