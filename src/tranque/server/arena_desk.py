"""The routes' side of an arena (docs/tournaments.md, "The service"; docs/protocol.md §12):
``server.tournaments`` hands an arena's page, file, join and leave here.

One person per entrant: any account joins (``register``, no body needed) while the arena
registers or runs, and leaves (``withdraw``) when he likes; joining again after leaving takes
him back under his entrant id, his games still his. The page carries the live standings (score,
wins, games), the tables in play with their links, the clock, and, for a bearer who joined,
whether he is free or where he sits.
"""

from __future__ import annotations

import time
from typing import Any

from tranque.club.ratings import Skill
from tranque.server.http_schemas import HttpError
from tranque.store.arena import ArenaEntrantRow, ArenaGameRow, SqlArena
from tranque.store.tournaments import FINISHED, REGISTERING, Taken, TournamentRow
from tranque.tournament.arena import standings
from tranque.tournament.model import Tournament

MIN_MINUTES, MAX_MINUTES = 30, 180


def check_minutes(minutes: float | None) -> float:
    """An arena's length, or a typed 400 naming the range."""
    if minutes is None or not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise HttpError(
            400, "bad_minutes", f"an arena lasts {MIN_MINUTES} to {MAX_MINUTES} minutes"
        )
    return float(minutes)


class ArenaDesk:
    """What the tournaments' routes do for an arena; ``club`` is the club (names, ratings)."""

    def __init__(self, club: Any, arena: SqlArena) -> None:
        self.club, self.arena = club, arena

    async def _file(
        self, t: TournamentRow
    ) -> tuple[list[ArenaEntrantRow], dict[str, str], Tournament]:
        entrants = await self.arena.entrants(t.id)
        names = await self.club.pair_rows.names([t.creator, *(e.guest for e in entrants)])
        return entrants, names, await self.arena.file(t, entrants, names)

    async def file(self, t: TournamentRow) -> Tournament:
        return (await self._file(t))[2]

    async def page(self, t: TournamentRow, viewer: str | None) -> dict[str, Any]:
        entrants, names, file = await self._file(t)
        by_id = {e.entrant: e for e in entrants}
        clock = await self.arena.clock(t.id)
        games = await self.arena.games(t.id)
        playing = [g for g in games if not g.done and g.table_id is not None]
        lines = []
        for s in standings(file):
            line = s.to_json()
            line["player"] = names.get(by_id[s.id].guest)
            lines.append(line)
        now = time.time()
        return {
            "minutes": t.minutes,
            "no_show": t.no_show,
            "public": t.public,
            "created": t.created,
            "creator": names.get(t.creator),
            "started": None if clock is None else clock.started,
            "ends": None if clock is None else clock.ends,
            "left": None if clock is None else max(0.0, clock.ends - now),
            "entrants": [
                {
                    "id": e.entrant,
                    "players": [names.get(e.guest)],
                    "rating": round(e.rating),
                    "withdrawn": e.withdrawn,
                }
                for e in entrants
            ],
            "standings": lines,
            "games": len(file.games),
            "tables": [_table(g, by_id, names) for g in playing],
            "you": _you(viewer, t.creator, entrants, playing),
        }

    async def join(self, t: TournamentRow, guest: str) -> str:
        if t.state == FINISHED:
            raise HttpError(409, "finished", "this arena is over")
        rating = (await self.club.profiles.ratings_of([guest], t.rules)).get(
            (guest, t.rules), Skill()
        )
        try:
            eid = await self.arena.join(t.id, guest, rating.mu, time.time())
        except Taken:
            raise HttpError(409, "already_entered", "you are in this arena already") from None
        if eid is None:
            raise HttpError(409, "finished", "this arena is over")
        return eid

    async def leave(self, t: TournamentRow, guest: str) -> str:
        mine = [e for e in await self.arena.entrants(t.id) if e.guest == guest]
        if not mine or mine[0].withdrawn:
            raise HttpError(404, "not_entered", "you are not in this arena")
        if t.state == FINISHED:
            raise HttpError(409, "finished", "this arena is over")
        if not await self.arena.leave(t.id, mine[0].entrant, t.state == REGISTERING):
            raise HttpError(404, "not_entered", "you are not in this arena")
        return mine[0].entrant

    async def active(self, tid: str) -> int:
        return len([e for e in await self.arena.entrants(tid) if not e.withdrawn])


def _table(
    g: ArenaGameRow, by_id: dict[str, ArenaEntrantRow], names: dict[str, str]
) -> dict[str, Any]:
    return {
        "game": g.number,
        "table": g.table_id,
        "link": f"/t/{g.table_id}",
        "seats": [s for s in g.seats],  # entrant ids, None for a bot
        "players": [None if s is None else names.get(by_id[s].guest) for s in g.seats],
    }


def _you(
    viewer: str | None, creator: str, entrants: list[ArenaEntrantRow], playing: list[ArenaGameRow]
) -> dict[str, Any] | None:
    """The viewer's own line: his entrant, and his seat at the table he plays now, if any."""
    if viewer is None:
        return None
    out: dict[str, Any] = {"creator": viewer == creator, "entrant": None, "table": None}
    mine = next((e for e in entrants if e.guest == viewer and not e.withdrawn), None)
    if mine is not None:
        out["entrant"] = mine.entrant
    me = next((e.entrant for e in entrants if e.guest == viewer), None)
    for g in playing:
        if me is not None and me in g.seats:
            out["table"] = {"table": g.table_id, "seat": g.seats.index(me),
                            "link": f"/t/{g.table_id}", "done": False}  # fmt: skip
    return out
