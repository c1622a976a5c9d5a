"""The routes of tournaments (docs/tournaments.md, "The service"; docs/protocol.md §12): the
list, creating one, a tournament's page, registering a pair, withdrawing, starting, its file.

Parse, authenticate, deliver: the pairing and the standings are ``tournament.swiss``, the rows
``store.tournaments``, the rounds ``server.tournament_runner``. Creating, registering,
withdrawing and starting need an account; the list, a tournament's page and its file are public
and name people by their account names only (never a guest id). A pair enters as a pair formed
in the club (``club.pairs``): its partners agreed to play together when they formed it.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal, Protocol

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tranque.club.ratings import PRESETS, Skill
from tranque.rules.variants import Rules
from tranque.server.arena_desk import ArenaDesk, check_minutes
from tranque.server.arena_runner import ARENA, ArenaRunner
from tranque.server.club import Club, Who, bearer
from tranque.server.edge import read_body
from tranque.server.http_schemas import HttpError, decode_club
from tranque.server.late_routes import GET, POST, late_routes
from tranque.server.presence import ClubNews
from tranque.server.tournament_runner import TournamentRunner
from tranque.server.tournament_schedules import Scheduler
from tranque.store.arena import SqlArena
from tranque.store.schedules import SqlSchedules
from tranque.store.tournaments import (
    FINISHED,
    REGISTERING,
    EntrantRow,
    RoundRow,
    SqlTournaments,
    Taken,
    TournamentRow,
)
from tranque.table.lobby import Lobby
from tranque.table.model import TableSettings
from tranque.tournament.swiss import standings

MAX_ROUNDS = 15
# A Swiss game's time cap, in minutes (docs/tournaments.md, "Time cap"): none, or one of these.
CAP_MINUTES = (20, 30, 40, 60)
MAX_AHEAD = 30 * 86400.0  # a start time at most this far ahead

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class NewTournament(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/tournaments``. ``no_show``: seconds a pair (a person, in an arena) has to
    come to its table. ``minutes``: an arena's length, or a Swiss's time cap."""

    name: Name
    kind: Literal["swiss-pairs", "arena"] = "swiss-pairs"
    rules: str = "havana"
    rounds: Annotated[int, msgspec.Meta(ge=1, le=MAX_ROUNDS)] = 3
    no_show: Annotated[float, msgspec.Meta(ge=1, le=3600)] = 120.0
    public: bool = True
    starts: float | None = None
    # An arena's length in minutes (30 to 180); a Swiss's time cap on each game (one of
    # ``CAP_MINUTES``), or None: played to the target.
    minutes: int | None = None


class Registration(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/tournaments/{id}/register``: enter the formed pair ``pair`` (a Swiss); an
    arena takes the bearer himself, and no body."""

    pair: Name | None = None


def _summary(t: TournamentRow, entrants: int) -> dict[str, Any]:
    return {
        "id": t.id, "name": t.name, "kind": t.kind, "rules": t.rules, "target": t.target,
        "rounds": t.rounds, "state": t.state, "starts": t.starts, "entrants": entrants,
        "minutes": t.minutes, "scheduled": t.schedule is not None,
        "page": f"/tournament/{t.id}",
    }  # fmt: skip


class TournamentRoutes:
    def __init__(
        self,
        club: Club,
        news: ClubNews,
        rows: SqlTournaments,
        runner: TournamentRunner,
        arena: ArenaDesk,
    ) -> None:
        self.club, self.news, self.rows, self.runner = club, news, rows, runner
        self.arena = arena  # an arena's page, file, joins and leaves (server.arena)

    async def _active(self, t: TournamentRow) -> int:
        if t.kind == ARENA:
            return await self.arena.active(t.id)
        return len([e for e in await self.rows.entrants(t.id) if not e.withdrawn])

    async def _me(self, request: Request) -> Who:
        who = await self.club.who(request)
        if who.session is None:
            raise HttpError(403, "account_needed", "tournaments need an account: claim a name")
        return who

    async def _tournament(self, request: Request) -> TournamentRow:
        tid = request.path_params["id"]
        t = await self.rows.get(tid)
        if t is None:
            raise HttpError(404, "no_tournament", f"no tournament {tid!r}")
        return t

    async def _names(self, guests: list[str]) -> dict[str, str]:
        return await self.club.pair_rows.names(guests)

    # -- what everybody may read ----

    async def listing(self, request: Request) -> Response:
        """``GET /api/tournaments``: the public ones, upcoming, running and finished."""
        by_state = await self.rows.listing()
        out: dict[str, list[dict[str, Any]]] = {}
        for key, state in (("upcoming", REGISTERING), ("running", "running"),
                           ("finished", FINISHED)):  # fmt: skip
            out[key] = [_summary(t, await self._active(t)) for t in by_state[state]]
        scheduler = self.runner.scheduler
        out["scheduled"] = [] if scheduler is None else await scheduler.upcoming(time.time())
        return JSONResponse(out)

    async def page(self, request: Request) -> Response:
        """``GET /api/tournaments/{id}``: rules, entrants, standings, the round in play (its
        tables and their links) and, for a bearer who is entered, where he sits."""
        t = await self._tournament(request)
        viewer: str | None = None
        if request.headers.get("authorization"):
            viewer = (await self.club.check_token(bearer(request))).guest
        if t.kind == ARENA:
            body = await self.arena.page(t, viewer)
            return JSONResponse({**_summary(t, await self._active(t)), **body})
        entrants = await self.rows.entrants(t.id)
        names = await self._names([t.creator, *(g for e in entrants for g in e.people)])
        pair_names = {e.pair_id: await self._pair_name(e.pair_id) for e in entrants}
        file = await self.rows.file(t.id, names)
        assert file is not None
        lines = []
        for s in standings(file):
            line = s.to_json()
            line["pair"] = next(pair_names[e.pair_id] for e in entrants if e.entrant == s.id)
            lines.append(line)
        rounds = await self.rows.rounds(t.id)
        current = rounds[-1] if rounds and rounds[-1].ended is None else None
        return JSONResponse(
            {
                **_summary(t, len([e for e in entrants if not e.withdrawn])),
                "no_show": t.no_show,
                "public": t.public,
                "created": t.created,
                # A scheduled one is made by no person: its schedule's name stands for him.
                "creator": names.get(t.creator) if t.schedule is None else None,
                "schedule": t.schedule,
                "entrants": [
                    {
                        "id": e.entrant,
                        "pair": pair_names[e.pair_id],
                        "players": [names.get(g) for g in e.people],
                        "rating": round(e.rating),
                        "withdrawn": e.withdrawn,
                    }
                    for e in entrants
                ],
                "standings": lines,
                "played": len([r for r in rounds if r.ended is not None]),
                "round": None if current is None else _round(current, t.no_show, self._cap(t)),
                "you": _you(viewer, entrants, current, t.creator),
            }
        )

    def _cap(self, t: TournamentRow) -> float | None:
        """The seconds of a game's time cap (None: no cap), as the runner gives its tables."""
        return self.runner.cap_seconds(t)

    async def _pair_name(self, pair_id: int) -> str | None:
        pair = await self.club.pair_rows.by_id(pair_id)
        return None if pair is None else pair.name

    async def file(self, request: Request) -> Response:
        """``GET /api/tournaments/{id}/file``: ``tranque-tournament/1`` of the rounds ended."""
        t = await self._tournament(request)
        if t.kind == ARENA:
            arena = await self.arena.file(t)
            return Response(msgspec.json.encode(arena), media_type="application/json")
        entrants = await self.rows.entrants(t.id)
        names = await self._names([g for e in entrants for g in e.people])
        file = await self.rows.file(t.id, names)
        return Response(msgspec.json.encode(file), media_type="application/json")

    # -- what an account does ----

    async def create(self, request: Request) -> Response:
        who = await self._me(request)
        body: NewTournament = decode_club(NewTournament, await read_body(request))
        if body.rules not in PRESETS:
            raise HttpError(400, "unknown_rules", f"rules must be one of {', '.join(PRESETS)}")
        rules = Rules.from_json(body.rules)
        now = time.time()
        if body.starts is not None and not now < body.starts <= now + MAX_AHEAD:
            raise HttpError(400, "bad_start", "the start must be in the next 30 days")
        minutes: float | None = None
        if body.kind == ARENA:  # the arena's length
            minutes = check_minutes(body.minutes)
        elif body.minutes is not None:  # a Swiss's time cap on each game
            if body.minutes not in CAP_MINUTES:
                allowed = ", ".join(map(str, CAP_MINUTES))
                raise HttpError(400, "bad_minutes", f"minutes must be null or one of {allowed}")
            if rules.games_to_win_match > 1:
                raise HttpError(400, "bad_minutes", "a time cap is for one-game rules, not a match")
            minutes = body.minutes
        values = {
            "name": body.name, "kind": body.kind, "rules": body.rules,
            "target": rules.target, "minutes": minutes,
            "rounds": 0 if body.kind == ARENA else body.rounds, "no_show": body.no_show,
            "creator": who.guest,
            "public": body.public, "starts": body.starts,
        }  # fmt: skip
        tid = await self.rows.create(values, now)
        return JSONResponse({"id": tid, "page": f"/tournament/{tid}"})

    async def register(self, request: Request) -> Response:
        who = await self._me(request)
        t = await self._tournament(request)
        raw = await read_body(request)
        body: Registration = decode_club(Registration, raw) if raw.strip() else Registration()
        if t.kind == ARENA:
            joined = await self.arena.join(t, who.guest)
            self._changed(t, (who.guest,), "entered")
            return JSONResponse({"entrant": joined})
        if body.pair is None:
            raise HttpError(400, "pair_needed", "name the formed pair to enter")
        pair = await self.club.pair_rows.by_name(body.pair)
        if pair is None or pair.formed is None or who.guest not in pair.partners:
            raise HttpError(404, "not_your_pair", "you are not in a formed pair of that name")
        if t.state != REGISTERING:
            raise HttpError(409, "not_registering", "this tournament takes no more entrants")
        rating = (await self.club.pair_rows.ratings(pair.id)).get(t.rules, Skill()).mu
        try:
            eid = await self.rows.register(t.id, pair.id, pair.partners, rating, time.time())
        except Taken:
            raise HttpError(409, "already_entered", "a partner of this pair is entered") from None
        if eid is None:
            raise HttpError(409, "not_registering", "this tournament takes no more entrants")
        self._changed(t, pair.partners, "entered")
        return JSONResponse({"entrant": eid, "pair": pair.name})

    async def withdraw(self, request: Request) -> Response:
        who = await self._me(request)
        t = await self._tournament(request)
        if t.kind == ARENA:
            left = await self.arena.leave(t, who.guest)
            self._changed(t, (who.guest,), "withdrawn")
            return JSONResponse({"entrant": left, "withdrawn": True})
        mine = [e for e in await self.rows.entrants(t.id) if who.guest in e.people]
        if not mine or mine[0].withdrawn:
            raise HttpError(404, "not_entered", "you are not entered in this tournament")
        if t.state == FINISHED:
            raise HttpError(409, "finished", "this tournament is over")
        e = mine[0]
        if not await self.rows.withdraw(t.id, e.entrant, t.state == REGISTERING):
            raise HttpError(409, "not_entered", "you are not entered in this tournament")
        self._changed(t, e.people, "withdrawn")
        return JSONResponse({"entrant": e.entrant, "withdrawn": True})

    async def start(self, request: Request) -> Response:
        who = await self._me(request)
        t = await self._tournament(request)
        if who.guest != t.creator:
            raise HttpError(403, "not_creator", "only its creator starts a tournament")
        if t.state != REGISTERING:
            raise HttpError(409, "not_registering", "this tournament has started already")
        if t.kind != ARENA and await self._active(t) < 2:
            raise HttpError(409, "too_few_entrants", "a tournament needs two pairs at least")
        if not await self.runner.begin(t):
            raise HttpError(409, "not_registering", "this tournament has started already")
        return JSONResponse({"state": "running"})

    def _changed(self, t: TournamentRow, people: tuple[str, ...], event: str) -> None:
        self.runner.push(
            list(people),
            msgspec.json.encode({"type": "tournament", "tournament": t.id, "event": event}),
        )


def _round(r: RoundRow, no_show: float, cap: float | None) -> dict[str, Any]:
    return {
        "number": r.round,
        "started": r.started,
        "no_show_until": r.started + no_show,
        # When the round's time cap is up (its tables open as it starts), else None: the page
        # counts down to it; each table's own deadline runs from its own start, moments later.
        "time_up": None if cap is None else r.started + cap,
        "byes": r.byes,
        "tables": [
            {
                "a": tb.a,
                "b": tb.b,
                "table": tb.table_id,
                "link": None if tb.table_id is None else f"/t/{tb.table_id}",
                "points": tb.points,
                "winner": tb.winner,
                "forfeit": tb.forfeit,
                "done": tb.done,
            }
            for tb in r.tables
        ],
    }


def _you(
    viewer: str | None, entrants: list[EntrantRow], current: RoundRow | None, creator: str
) -> dict[str, Any] | None:
    """The viewer's own line: his entrant, and his seat at the round's table (A: 0 and 2)."""
    if viewer is None:
        return None
    out: dict[str, Any] = {"creator": viewer == creator, "entrant": None, "table": None}
    mine = next((e for e in entrants if viewer in e.people and not e.withdrawn), None)
    if mine is None:
        return out
    out["entrant"] = mine.entrant
    by_id = {e.entrant: e for e in entrants}
    for tb in current.tables if current is not None else []:
        if mine.entrant in (tb.a, tb.b) and tb.table_id is not None:
            a, b = by_id[tb.a], by_id[tb.b]
            seat = [a.a, b.a, a.b, b.b].index(viewer)
            out["table"] = {"table": tb.table_id, "seat": seat, "link": f"/t/{tb.table_id}",
                            "done": tb.done}  # fmt: skip
    return out


class _HasTournaments(Protocol):
    @property
    def tournament_routes(self) -> TournamentRoutes | None: ...


def tournament_routes(server: _HasTournaments) -> list[Route]:
    """The routes, bound once the lifespan has made ``server.tournament_routes``."""
    return late_routes(
        lambda: server.tournament_routes,
        (HttpError,),
        [
            ("/api/tournaments", TournamentRoutes.listing, GET),
            ("/api/tournaments", TournamentRoutes.create, POST),
            ("/api/tournaments/{id}", TournamentRoutes.page, GET),
            ("/api/tournaments/{id}/file", TournamentRoutes.file, GET),
            ("/api/tournaments/{id}/register", TournamentRoutes.register, POST),
            ("/api/tournaments/{id}/withdraw", TournamentRoutes.withdraw, POST),
            ("/api/tournaments/{id}/start", TournamentRoutes.start, POST),
        ],
    )


def make_tournaments(
    club: Club,
    news: ClubNews,
    lobby: Lobby,
    defaults: TableSettings,
    *,
    fill: float = 15.0,
    minute: float = 60.0,
) -> TournamentRoutes:
    """The routes and their runner, on the club's database. Every node starts a runner; on a
    cluster only the one holding the runner's lease runs the tournaments. ``fill``: the quick
    match's fill time (an arena's leftover people wait that long for bots); ``minute``:
    the seconds an arena's minute lasts (a test server's are short)."""

    async def ring(guest: str, kind: str, body: dict[str, Any]) -> None:
        notice = await news.rows.add_notice(guest, kind, body, time.time())
        news.notice(guest, notice, await news.rows.unread(guest))

    rows, arena = SqlTournaments(club.store), SqlArena(club.store)
    names = club.pair_rows.names
    arenas = ArenaRunner(
        rows, arena, lobby, defaults, names, news.push, ring, fill=fill, minute=minute
    )
    runner = TournamentRunner(
        rows, lobby, defaults, names, news.push, ring, minute=minute, arena=arenas
    )
    runner.scheduler = Scheduler(SqlSchedules(club.store))
    lobby.on_over = runner.wake  # a table's end moves its round (or its arena) on at once
    runner.start()
    return TournamentRoutes(club, news, rows, runner, ArenaDesk(club, arena))
