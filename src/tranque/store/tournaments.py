"""Tournaments on SQLAlchemy Core: the rows of a Swiss of pairs run by the service, and the
``tranque-tournament/1`` file rebuilt from them (docs/tournaments.md, "The service").

Every step of a tournament is one transaction that either happens once or not at all, so a
server restarted at any point resumes without doing anything twice: a round is a row whose key
is its number (two attempts to start it: one insert wins); a table's result is written only
while the table is not ``done``; the state moves by compare-and-set.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tranque.store.db import Store
from tranque.store.schema import (
    tables,
    tournament_entrants,
    tournament_rounds,
    tournament_tables,
    tournaments,
)
from tranque.tournament.model import FORMAT, Entrant, Round, Table, Tournament

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode

REGISTERING, RUNNING, FINISHED = "registering", "running", "finished"


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: str
    name: str
    kind: str
    rules: str
    target: int
    minutes: float | None
    rounds: int
    no_show: float
    state: str
    creator: str
    public: bool
    starts: float | None
    created: float
    schedule: str | None = None  # the schedule that made it (store.schedules), else None


@dataclass(frozen=True, slots=True)
class EntrantRow:
    entrant: str
    pair_id: int
    a: str
    b: str
    rating: float
    withdrawn: bool

    @property
    def people(self) -> tuple[str, str]:
        return self.a, self.b


@dataclass(slots=True)
class TableRow:
    number: int
    a: str
    b: str
    table_id: str | None
    points: tuple[int, int] | None
    winner: str | None
    forfeit: bool
    done: bool


@dataclass(slots=True)
class RoundRow:
    round: int
    byes: list[str]
    started: float
    ended: float | None
    tables: list[TableRow] = field(default_factory=list)


def _tournament(r: Any) -> TournamentRow:
    return TournamentRow(
        r.id, r.name, r.kind, r.rules, r.target, r.minutes, r.rounds, r.no_show, r.state,
        r.creator, bool(r.public), r.starts, r.created, r.schedule,
    )  # fmt: skip


class SqlTournaments:
    """The tournaments' rows on the store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- a tournament ----

    async def create(self, values: dict[str, Any], ts: float) -> str:
        """A new tournament, registering; its id (random: a by-link tournament is found by it)."""
        tid = secrets.token_urlsafe(8)
        row = {**values, "id": tid, "state": REGISTERING, "created": ts, "entrants_made": 0}
        async with self.store._begin() as conn:
            await conn.execute(tournaments.insert().values(**row))
        return tid

    async def get(self, tid: str) -> TournamentRow | None:
        if len(tid) > 32:
            return None
        q = sa.select(tournaments).where(tournaments.c.id == tid)
        async with self.store._connect() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else _tournament(row)

    async def listing(self, limit: int = 50) -> dict[str, list[TournamentRow]]:
        """The public tournaments by state: the newest of each."""
        out: dict[str, list[TournamentRow]] = {}
        async with self.store._connect() as conn:
            for state in (REGISTERING, RUNNING, FINISHED):
                q = (
                    sa.select(tournaments)
                    .where(tournaments.c.state == state, tournaments.c.public.is_(True))
                    .order_by(tournaments.c.created.desc())
                    .limit(limit)
                )
                out[state] = [_tournament(r) for r in await conn.execute(q)]
        return out

    async def active(self) -> list[TournamentRow]:
        """Every tournament not finished (the runner's look), oldest first."""
        q = (
            sa.select(tournaments)
            .where(tournaments.c.state != FINISHED)
            .order_by(tournaments.c.created)
        )
        async with self.store._connect() as conn:
            return [_tournament(r) for r in await conn.execute(q)]

    async def move(self, tid: str, before: str, after: str) -> bool:
        """The state from ``before`` to ``after``; False when it was not ``before`` any more."""
        q = tournaments.update().where(tournaments.c.id == tid, tournaments.c.state == before)
        async with self.store._begin() as conn:
            return bool((await conn.execute(q.values(state=after))).rowcount)

    # -- entrants ----

    async def entrants(self, tid: str) -> list[EntrantRow]:
        q = sa.select(tournament_entrants).where(tournament_entrants.c.tournament_id == tid)
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        out = [
            EntrantRow(r.entrant, r.pair_id, r.a, r.b, r.rating, bool(r.withdrawn)) for r in rows
        ]
        return sorted(out, key=lambda e: int(e.entrant[1:]))

    async def register(
        self, tid: str, pair_id: int, people: tuple[str, str], rating: float, ts: float
    ) -> str | None:
        """The pair entered, while the tournament registers: its entrant id, or None when the
        tournament is not registering any more or either partner is entered already."""
        c = tournament_entrants.c
        async with self.store._begin() as conn:
            bump = (
                tournaments.update()
                .where(tournaments.c.id == tid, tournaments.c.state == REGISTERING)
                .values(entrants_made=tournaments.c.entrants_made + 1)
            )
            if not (await conn.execute(bump)).rowcount:
                return None
            taken = sa.select(sa.func.count()).where(
                c.tournament_id == tid,
                sa.or_(c.a.in_(people), c.b.in_(people)),
            )
            if (await conn.execute(taken)).scalar_one():
                raise Taken
            made = sa.select(tournaments.c.entrants_made).where(tournaments.c.id == tid)
            eid = f"p{(await conn.execute(made)).scalar_one()}"
            try:
                await conn.execute(
                    tournament_entrants.insert().values(
                        tournament_id=tid,
                        entrant=eid,
                        pair_id=pair_id,
                        a=people[0],
                        b=people[1],
                        rating=rating,
                        withdrawn=False,
                        registered=ts,
                    )
                )
            except IntegrityError:
                raise Taken from None
        return eid

    async def withdraw(self, tid: str, eid: str, registering: bool) -> bool:
        """Before the start the entrant is gone; after, it stays, ``withdrawn`` (never paired
        again, still in the standings)."""
        c = tournament_entrants.c
        where = (c.tournament_id == tid, c.entrant == eid)
        async with self.store._begin() as conn:
            if registering:
                q: Any = tournament_entrants.delete().where(*where)
            else:
                q = tournament_entrants.update().where(*where, c.withdrawn.is_(False))
                q = q.values(withdrawn=True)
            return bool((await conn.execute(q)).rowcount)

    # -- rounds ----

    async def rounds(self, tid: str) -> list[RoundRow]:
        rq = (
            sa.select(tournament_rounds)
            .where(tournament_rounds.c.tournament_id == tid)
            .order_by(tournament_rounds.c.round)
        )
        tq = (
            sa.select(tournament_tables)
            .where(tournament_tables.c.tournament_id == tid)
            .order_by(tournament_tables.c.round, tournament_tables.c.number)
        )
        async with self.store._connect() as conn:
            rounds = {
                r.round: RoundRow(r.round, _decode(r.byes), r.started, r.ended)
                for r in await conn.execute(rq)
            }
            for t in await conn.execute(tq):
                points = None if t.points_a is None else (int(t.points_a), int(t.points_b))
                rounds[t.round].tables.append(
                    TableRow(
                        t.number,
                        t.a,
                        t.b,
                        t.table_id,
                        points,
                        t.winner,
                        bool(t.forfeit),
                        bool(t.done),
                    )
                )
        return list(rounds.values())

    async def start_round(
        self, tid: str, number: int, byes: list[str], tables: list[tuple[str, str]], ts: float
    ) -> bool:
        """The round and its tables (not opened yet), once: False when it had started."""
        try:
            async with self.store._begin() as conn:
                await conn.execute(
                    tournament_rounds.insert().values(
                        tournament_id=tid,
                        round=number,
                        byes=_encode(byes).decode(),
                        started=ts,
                        ended=None,
                    )
                )
                for n, (a, b) in enumerate(tables):
                    await conn.execute(
                        tournament_tables.insert().values(
                            tournament_id=tid,
                            round=number,
                            number=n,
                            a=a,
                            b=b,
                            table_id=None,
                            points_a=None,
                            points_b=None,
                            winner=None,
                            forfeit=False,
                            done=False,
                        )
                    )
        except IntegrityError:
            return False
        return True

    async def opened(self, tid: str, number: int, table: int, table_id: str) -> None:
        c = tournament_tables.c
        q = tournament_tables.update().where(
            c.tournament_id == tid, c.round == number, c.number == table, c.table_id.is_(None)
        )
        async with self.store._begin() as conn:
            await conn.execute(q.values(table_id=table_id))

    async def result(
        self,
        tid: str,
        number: int,
        table: int,
        points: tuple[int, int],
        winner: str | None,
        forfeit: bool,
    ) -> bool:
        """A table's result, once (False: it had one)."""
        c = tournament_tables.c
        q = tournament_tables.update().where(
            c.tournament_id == tid, c.round == number, c.number == table, c.done.is_(False)
        )
        values = {"points_a": points[0], "points_b": points[1], "winner": winner,
                  "forfeit": forfeit, "done": True}  # fmt: skip
        async with self.store._begin() as conn:
            return bool((await conn.execute(q.values(**values))).rowcount)

    async def end_round(self, tid: str, number: int, ts: float) -> bool:
        c = tournament_rounds.c
        q = tournament_rounds.update().where(
            c.tournament_id == tid, c.round == number, c.ended.is_(None)
        )
        async with self.store._begin() as conn:
            return bool((await conn.execute(q.values(ended=ts))).rowcount)

    async def table_ends(self, table_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The final info of those of these tables that are over (the table-end path writes it
        with the record, ``Store.finish_table``)."""
        if not table_ids:
            return {}
        q = sa.select(tables.c.id, tables.c.info).where(
            tables.c.id.in_(table_ids), tables.c.status == "over"
        )
        async with self.store._connect() as conn:
            return {r.id: _decode(r.info) for r in await conn.execute(q)}

    # -- the file ----

    async def file(self, tid: str, names: dict[str, str]) -> Tournament | None:
        """The ``tranque-tournament/1`` file of what has been played: the ended rounds (a round
        in play is not in it). ``names``: guest id -> account name (the players' names)."""
        t = await self.get(tid)
        if t is None:
            return None
        entrants = [
            Entrant(e.entrant, [names.get(g, g) for g in e.people], e.rating, e.withdrawn)
            for e in await self.entrants(tid)
        ]
        played = [
            Round(
                r.round,
                r.byes,
                [
                    Table(
                        tb.a,
                        tb.b,
                        tb.points or (0, 0),
                        _side(tb.winner),
                        tb.forfeit,
                        None if tb.forfeit else tb.table_id,
                    )
                    for tb in r.tables
                ],
            )
            for r in await self.rounds(tid)
            if r.ended is not None
        ]
        return Tournament(
            FORMAT, "swiss-pairs", t.rules, t.target, t.minutes, t.rounds, entrants, played
        )


def _side(winner: str | None) -> Any:
    return winner if winner in ("a", "b") else None


class Taken(Exception):
    """A partner of the pair is entered already (the caller says so)."""
