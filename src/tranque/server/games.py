"""Finished games over HTTP: the history lists, a game's page data, its analyses.

- ``GET /api/games``: the newest finished games of public tables.
- ``GET /api/profiles/{handle}/games``: a person's finished games (as a guest and after claiming
  an account alike), newest first.
- ``GET /api/tables/{table}/games``: the games of a finished table (one, or a match's), each with
  its planilla and every hand's end, as ``tranque replay --json`` gives them.
- ``GET /api/tables/{table}/analysis`` and ``POST /api/tables/{table}/analysis/hindsight``: the
  fair analysis of the people's plays, made once at the end of the game (``server.analyst``),
  and a hand's hindsight analysis on request.

Lists are paged newest first with ``?limit=N&before=CURSOR``; an answer with more rows after it
says where they are in ``next``. Everything here is of finished games only: a table in progress
answers 409 ``not_over`` (its record, live, already says what may be seen of it), so no answer
can carry a hand that is still hidden. Errors are the API's ``{"code", "message"}``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tranque.rules.errors import RulesError
from tranque.rules.record import game_summary, replay_game
from tranque.server.analyst import QUEUE, AnalysisBusy, Analyst, games_of
from tranque.server.club import profile_handle
from tranque.server.edge import read_body
from tranque.server.http_schemas import HttpError
from tranque.server.late_routes import refusal
from tranque.store.db import Store
from tranque.store.games import FAIR, AnalysisRow, Cursor, SqlGames, hindsight_part

if TYPE_CHECKING:
    from tranque.server.state import ServerState

PAGE = 20  # rows of a list, by default
MAX_PAGE = 100  # rows of a list, at most


class HindsightAsk(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/tables/{table}/analysis/hindsight``: which hand (game from 1, in a match)."""

    hand: int
    game: int = 1


_ask = msgspec.json.Decoder(HindsightAsk)


def _page(request: Request) -> tuple[int, Cursor | None]:
    q = request.query_params
    try:
        limit = int(q.get("limit", str(PAGE)))
    except ValueError:
        limit = 0
    if not 1 <= limit <= MAX_PAGE:
        raise HttpError(400, "bad_page", f"limit is a whole number from 1 to {MAX_PAGE}")
    before = q.get("before")
    if before is None:
        return limit, None
    try:
        return limit, Cursor.parse(before)
    except ValueError:
        raise HttpError(400, "bad_page", "before is the 'next' cursor of a page") from None


def _listing(request: Request, rows: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    nxt = None
    if len(rows) == limit:
        last = rows[-1]
        cursor = Cursor(float(last["finished"]), str(last["table"])).text()
        nxt = str(request.url.include_query_params(before=cursor, limit=limit))
    return {"games": rows, "next": nxt}


class GameRoutes:
    def __init__(
        self, server: ServerState, store: Store, thinker: Any, node: str, *, queue: int = QUEUE
    ) -> None:
        self.server = server
        self.store = store
        self.games = SqlGames(store)
        self.analyst = Analyst(store, thinker, node, queue=queue)

    def start(self) -> None:
        self.analyst.start()

    async def close(self) -> None:
        await self.analyst.close()

    # -- lists ----------------------------------------------------------------------------------

    async def recent(self, request: Request) -> Response:
        """``GET /api/games``: the newest finished games of public tables."""
        try:
            limit, cursor = _page(request)
        except HttpError as exc:
            return refusal(exc)
        rows = await self.games.public_games(limit, cursor)
        return JSONResponse(_listing(request, rows, limit))

    async def person(self, request: Request) -> Response:
        """``GET /api/profiles/{handle}/games``: a person's finished games, newest first."""
        club = self.server.club
        assert club is not None
        handle = request.path_params["handle"]
        try:
            limit, cursor = _page(request)
            guest = await club._guest_of(handle)
            person = None if guest is None else await club.profiles.person(guest)
            if guest is None or person is None:
                raise HttpError(404, "no_profile", f"nobody is called {handle!r}")
        except HttpError as exc:
            return refusal(exc)
        rows = await self.games.person_games(guest, limit, cursor)
        for r in rows:
            r["page"] = f"/g/{r['table']}"
            r["record"] = f"/api/tables/{r['table']}/record"
        out = {"profile": profile_handle(guest, person["name"]), **_listing(request, rows, limit)}
        return JSONResponse(out)

    # -- one table ------------------------------------------------------------------------------

    async def _finished(self, tid: str) -> tuple[dict[str, Any], dict[str, Any], float]:
        """(record, final info, finished) of a finished table, or HttpError 404 / 409 / 410."""
        record = await self.store.load_record(tid)
        row = await self.store.load_table(tid)
        if row is None:
            raise HttpError(404, "no_table", f"there is no table {tid!r}")
        if row["status"] == "expired":
            raise HttpError(410, "table_expired", f"table {tid!r} never started and has expired")
        finished = await self.games.finished(tid)
        if record is None or finished is None:
            raise HttpError(409, "not_over", f"table {tid!r} is still being played: /t/{tid}")
        return record, row["info"], finished

    async def table_games(self, request: Request) -> Response:
        """``GET /api/tables/{table}/games``: the table's games with planilla and hands' ends,
        and who sat where (names, profiles)."""
        tid = request.path_params["table"]
        try:
            record, info, finished = await self._finished(tid)
        except HttpError as exc:
            return refusal(exc)
        try:
            summaries = [game_summary(replay_game(g)) for g in games_of(record)]
        except RulesError as exc:  # a stored record always replays; say so if one does not
            return refusal(HttpError(500, "bad_record", f"the stored record: {exc}"))
        people, names = await self.server.club.profiles.table_people(tid)  # type: ignore[union-attr]
        seats = []
        for s, seat in enumerate((info.get("seats") or [{}] * 4)[:4]):
            guest = people[s] if s < len(people) else None
            person = guest is not None and seat.get("kind") == "person"
            name = names.get(guest) if guest is not None else None
            seats.append(
                {
                    "seat": s,
                    "kind": seat.get("kind"),
                    "nickname": (name if person and name else None) or seat.get("nickname"),
                    "profile": profile_handle(guest, name) if person and guest else None,
                    "account": bool(person and name),
                }
            )
        settings = info.get("settings") or {}
        return JSONResponse(
            {
                "table": tid,
                "format": record.get("format"),
                "rules": record.get("rules"),
                "public": settings.get("public") is True,
                "finished": finished,
                "seats": seats,
                "result": info.get("result"),
                "games": [{"number": i + 1, **s} for i, s in enumerate(summaries)],
                "record": f"/api/tables/{tid}/record",
                "analysis": f"/api/tables/{tid}/analysis",
            }
        )

    async def analysis(self, request: Request) -> Response:
        """``GET /api/tables/{table}/analysis``: the fair analysis of the people's seats
        (``status`` none, pending, done or failed) and every hindsight analysis asked for."""
        tid = request.path_params["table"]
        try:
            await self._finished(tid)
        except HttpError as exc:
            return refusal(exc)
        rows = await self.games.parts(tid)
        fair = next((r for r in rows if r.part == FAIR), None)
        seats = fair.seats if fair is not None else await self.games.people_seats(tid)
        if fair is None and seats:
            self.analyst.poke()
        return JSONResponse(
            {
                "table": tid,
                "seats": list(seats),
                "fair": _part(fair),
                "hindsight": [
                    {"game": g, "hand": n, **_part(r)}
                    for r in rows
                    for g, n in [_where(r.part)]
                    if g
                ],
            }
        )

    async def ask_hindsight(self, request: Request) -> Response:
        """``POST /api/tables/{table}/analysis/hindsight`` ``{"hand": N, "game": G}``: analyse
        that hand with every hand face up, all four seats (once: then it is kept). 202 while it
        is being analysed, 200 with it once it is there."""
        tid = request.path_params["table"]
        try:
            record, _, _ = await self._finished(tid)
            body = await read_body(request, 1024)
            try:
                ask = _ask.decode(body)
            except msgspec.ValidationError as exc:
                raise HttpError(
                    400, "bad_hand", f"the body is {{'hand': N, 'game': G}}: {exc}"
                ) from None
            except msgspec.DecodeError as exc:
                raise HttpError(400, "malformed", f"the body is not JSON: {exc}") from None
            games = games_of(record)
            if not 1 <= ask.game <= len(games):
                raise HttpError(404, "no_hand", f"the table has {len(games)} game(s)")
            hands = [h.get("number") for h in games[ask.game - 1].get("hands") or []]
            if ask.hand not in hands:
                raise HttpError(404, "no_hand", f"game {ask.game} has hands {hands}")
        except HttpError as exc:
            return refusal(exc)
        part = hindsight_part(ask.game, ask.hand)
        row = next((r for r in await self.games.parts(tid) if r.part == part), None)
        if row is None or row.status == "pending":  # a kept one is answered, however busy
            try:
                await self.analyst.ask(tid, part, (0, 1, 2, 3))
            except AnalysisBusy as busy:
                if row is not None:  # held by a node (or stale: the watch takes it over)
                    return JSONResponse({"game": ask.game, "hand": ask.hand, **_part(row)}, 202)
                return refusal(
                    HttpError(
                        503, "analysis_busy",
                        f"this server is analysing as many hands as it takes ({busy.held}): "
                        f"ask again in {busy.retry_after} s",
                        {"Retry-After": str(busy.retry_after)},
                    )
                )  # fmt: skip
            row = next((r for r in await self.games.parts(tid) if r.part == part), None)
        out = {"game": ask.game, "hand": ask.hand, **_part(row)}
        return JSONResponse(out, status_code=202 if out["status"] == "pending" else 200)


def _where(part: str) -> tuple[int, int]:
    bits = part.split(":")
    if len(bits) == 3 and bits[0] == "hindsight":
        return int(bits[1]), int(bits[2])
    return 0, 0


def _part(row: AnalysisRow | None) -> dict[str, Any]:
    if row is None:
        return {"status": "none", "analysis": None}
    if row.status == "done":
        return {"status": "done", "analysis": row.result}
    if row.status == "failed":
        return {"status": "failed", "analysis": None, "error": (row.result or {}).get("error")}
    return {"status": "pending", "analysis": None}


class _HasGames(Protocol):
    """A server with its games' routes, once its lifespan has made them."""

    @property
    def games(self) -> GameRoutes | None: ...


def game_routes(server: _HasGames) -> list[Route]:
    """The routes, bound once the lifespan has made ``server.games``."""

    def bound(
        handler: Callable[[GameRoutes, Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def route(request: Request) -> Response:
            routes = server.games
            assert routes is not None
            return await handler(routes, request)

        return route

    return [
        Route("/api/games", bound(GameRoutes.recent)),
        Route("/api/profiles/{handle}/games", bound(GameRoutes.person)),
        Route("/api/tables/{table}/games", bound(GameRoutes.table_games)),
        Route("/api/tables/{table}/analysis", bound(GameRoutes.analysis)),
        Route(
            "/api/tables/{table}/analysis/hindsight",
            bound(GameRoutes.ask_hindsight),
            methods=["POST"],
        ),
    ]


__all__ = ["GameRoutes", "game_routes"]
