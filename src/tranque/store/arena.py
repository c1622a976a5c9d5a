"""The rows of an arena run by the service (migration ``0013a``; docs/tournaments.md, "The
service"): who joined (one person per entrant, in join order), the games seated and their
results, and the arena's clock. The tournament's own row (name, rules, state, ``minutes``) is
``store.tournaments``'.

As for the Swiss, every step is one transaction that happens once or not at all: the clock's row
is inserted with the move to ``running`` (an arena starts once); a game's row names its four
seats before its table is opened (the pool of the free is "joined, not withdrawn, at no game
that is not done", so nobody is seated twice, whatever restarts); a result is written only while
the game is not ``done``, and it frees the game's people in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tranque.store.db import Store
from tranque.store.schema import arena_clocks, arena_entrants, arena_games, tables, tournaments
from tranque.store.tournaments import REGISTERING, RUNNING, Taken
from tranque.tournament.model import FORMAT, ArenaGame, Entrant, Tournament

_decode = msgspec.json.decode

Seats = tuple[str | None, str | None, str | None, str | None]


@dataclass(frozen=True, slots=True)
class ArenaEntrantRow:
    entrant: str
    guest: str
    rating: float
    withdrawn: bool
    joined: float
    free_since: float


@dataclass(frozen=True, slots=True)
class ArenaGameRow:
    number: int
    seats: Seats
    table_id: str | None
    opened: float
    ended: float | None  # seconds after the arena's start
    points: tuple[int, int] | None
    winner: str | None
    pollona: bool
    done: bool

    @property
    def people(self) -> list[str]:
        return [s for s in self.seats if s is not None]


@dataclass(frozen=True, slots=True)
class Clock:
    started: float
    ends: float


class SqlArena:
    """An arena's rows on the store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- entrants ----

    async def entrants(self, tid: str) -> list[ArenaEntrantRow]:
        q = sa.select(arena_entrants).where(arena_entrants.c.tournament_id == tid)
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        out = [
            ArenaEntrantRow(r.entrant, r.guest, r.rating, bool(r.withdrawn), r.joined,
                            r.free_since)
            for r in rows
        ]  # fmt: skip
        return sorted(out, key=lambda e: int(e.entrant[1:]))

    async def join(self, tid: str, guest: str, rating: float, ts: float) -> str | None:
        """The person in the arena, while it registers or runs: his entrant id (a new one in
        join order; the same one, active again, when he had left). None when the arena is over;
        ``Taken`` when he is in it already."""
        c = arena_entrants.c
        open_ = (tournaments.c.id == tid, tournaments.c.state.in_((REGISTERING, RUNNING)))
        async with self.store._begin() as conn:
            if not (await conn.execute(sa.select(tournaments.c.id).where(*open_))).first():
                return None
            mine = (c.tournament_id == tid, c.guest == guest)
            had = (await conn.execute(sa.select(c.entrant, c.withdrawn).where(*mine))).first()
            if had is not None:
                if not had.withdrawn:
                    raise Taken
                back = arena_entrants.update().where(*mine, c.withdrawn.is_(True))
                await conn.execute(back.values(withdrawn=False, free_since=ts))
                return str(had.entrant)
            bump = (
                tournaments.update()
                .where(*open_)
                .values(entrants_made=tournaments.c.entrants_made + 1)
            )
            await conn.execute(bump)
            made = sa.select(tournaments.c.entrants_made).where(tournaments.c.id == tid)
            eid = f"p{(await conn.execute(made)).scalar_one()}"
            try:
                await conn.execute(
                    arena_entrants.insert().values(
                        tournament_id=tid,
                        entrant=eid,
                        guest=guest,
                        rating=rating,
                        withdrawn=False,
                        joined=ts,
                        free_since=ts,
                    )
                )
            except IntegrityError:
                raise Taken from None
        return eid

    async def leave(self, tid: str, eid: str, registering: bool) -> bool:
        """Before the start he is gone; after, he stays (his games count) and is seated no
        more until he joins again. A game he sits at is played out."""
        c = arena_entrants.c
        where = (c.tournament_id == tid, c.entrant == eid)
        async with self.store._begin() as conn:
            if registering:
                q: Any = arena_entrants.delete().where(*where)
            else:
                q = arena_entrants.update().where(*where, c.withdrawn.is_(False))
                q = q.values(withdrawn=True)
            return bool((await conn.execute(q)).rowcount)

    # -- the clock ----

    async def begin(self, tid: str, ts: float, ends: float) -> bool:
        """Registering -> running with its clock, once (False: it had started)."""
        q = tournaments.update().where(tournaments.c.id == tid, tournaments.c.state == REGISTERING)
        try:
            async with self.store._begin() as conn:
                if not (await conn.execute(q.values(state=RUNNING))).rowcount:
                    return False
                await conn.execute(
                    arena_clocks.insert().values(tournament_id=tid, started=ts, ends=ends)
                )
        except IntegrityError:
            return False
        return True

    async def clock(self, tid: str) -> Clock | None:
        q = sa.select(arena_clocks).where(arena_clocks.c.tournament_id == tid)
        async with self.store._connect() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else Clock(row.started, row.ends)

    # -- games ----

    async def games(self, tid: str) -> list[ArenaGameRow]:
        q = (
            sa.select(arena_games)
            .where(arena_games.c.tournament_id == tid)
            .order_by(arena_games.c.number)
        )
        async with self.store._connect() as conn:
            return [_game(r) for r in await conn.execute(q)]

    async def seat(self, tid: str, tables: list[Seats], ts: float) -> list[tuple[int, Seats]]:
        """New games for these tables, their tables not opened yet, in one transaction: each
        written one's number and seats. A table one of whose people left, or sits at a game
        not done (a leave or a seating that came meanwhile), is not written."""
        g, e = arena_games.c, arena_entrants.c
        people = [s for seats in tables for s in seats if s is not None]
        written: list[tuple[int, Seats]] = []
        try:
            async with self.store._begin() as conn:
                gone = sa.select(e.entrant).where(
                    e.tournament_id == tid, e.entrant.in_(people), e.withdrawn.is_(True)
                )
                away = {r.entrant for r in await conn.execute(gone)}
                playing = sa.select(g.seat0, g.seat1, g.seat2, g.seat3).where(
                    g.tournament_id == tid, g.done.is_(False)
                )
                away |= {s for r in await conn.execute(playing) for s in r if s is not None}
                last = sa.select(sa.func.max(g.number)).where(g.tournament_id == tid)
                number = int((await conn.execute(last)).scalar_one() or 0)
                rows = []
                for seats in tables:
                    if away & set(seats):
                        continue
                    number += 1
                    written.append((number, seats))
                    rows.append(
                        {"tournament_id": tid, "number": number, "seat0": seats[0],
                         "seat1": seats[1], "seat2": seats[2], "seat3": seats[3],
                         "table_id": None, "opened": ts, "ended": None, "points_a": None,
                         "points_b": None, "winner": None, "pollona": False, "done": False}
                    )  # fmt: skip
                if rows:
                    await conn.execute(arena_games.insert(), rows)
        except IntegrityError:
            return []
        return written

    async def opened(self, tid: str, number: int, table_id: str) -> None:
        c = arena_games.c
        q = arena_games.update().where(
            c.tournament_id == tid, c.number == number, c.table_id.is_(None)
        )
        async with self.store._begin() as conn:
            await conn.execute(q.values(table_id=table_id))

    async def result(
        self,
        tid: str,
        game: ArenaGameRow,
        points: tuple[int, int] | None,
        winner: str | None,
        pollona: bool,
        ended: float,
        ts: float,
    ) -> bool:
        """A game's result once (False: it had one), and its people free from ``ts``. A game
        without a winner (its table ended with no result) is done and counts for nobody."""
        c, e = arena_games.c, arena_entrants.c
        q = arena_games.update().where(
            c.tournament_id == tid, c.number == game.number, c.done.is_(False)
        )
        values = {"points_a": None if points is None else points[0],
                  "points_b": None if points is None else points[1], "winner": winner,
                  "pollona": pollona, "ended": ended, "done": True}  # fmt: skip
        async with self.store._begin() as conn:
            if not (await conn.execute(q.values(**values))).rowcount:
                return False
            free = arena_entrants.update().where(e.tournament_id == tid, e.entrant.in_(game.people))
            await conn.execute(free.values(free_since=ts))
        return True

    async def table_ends(self, table_ids: list[str]) -> dict[str, tuple[dict[str, Any], float]]:
        """The final info and end time of those of these tables that are over (the table-end
        path writes them with the record, ``Store.finish_table``)."""
        if not table_ids:
            return {}
        q = sa.select(tables.c.id, tables.c.info, tables.c.ended).where(
            tables.c.id.in_(table_ids), tables.c.status == "over"
        )
        async with self.store._connect() as conn:
            return {r.id: (_decode(r.info), r.ended) for r in await conn.execute(q)}

    # -- the file ----

    async def file(
        self, t: Any, entrants: list[ArenaEntrantRow], names: dict[str, str]
    ) -> Tournament:
        """The ``tranque-tournament/1`` file of the games that ended with a result, in the order
        they ended. ``t``: the tournament's row; ``names``: guest id -> account name."""
        people = [
            Entrant(e.entrant, [names.get(e.guest, e.guest)], e.rating, e.withdrawn)
            for e in entrants
        ]
        done = [g for g in await self.games(t.id) if g.done and g.winner in ("a", "b")]
        done.sort(key=lambda g: (g.ended or 0.0, g.number))
        games = [
            ArenaGame(
                g.table_id or f"g{g.number}",
                g.ended or 0.0,
                g.seats,
                g.points or (0, 0),
                "a" if g.winner == "a" else "b",
                g.pollona,
            )
            for g in done
        ]
        return Tournament(FORMAT, "arena", t.rules, t.target, t.minutes, None, people, [], games)


def _game(r: Any) -> ArenaGameRow:
    points = None if r.points_a is None else (int(r.points_a), int(r.points_b))
    return ArenaGameRow(
        r.number,
        (r.seat0, r.seat1, r.seat2, r.seat3),
        r.table_id,
        r.opened,
        r.ended,
        points,
        r.winner,
        bool(r.pollona),
        bool(r.done),
    )
