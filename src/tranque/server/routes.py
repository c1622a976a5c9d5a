"""The server's own HTTP handlers: guests and their tokens, tables (create, info, record,
history), the lobby's listing and parties, the figures and health checks.

A mixin of ``Server`` (server/app.py), apart from it because these answer one request each and
keep nothing: the app's state, its life (the lifespan that builds the lobby, the club, the queue
and the cluster's adapters) and its routing table stay in app.py. The other route groups are
classes of their own: ``server.games``, ``server.club``, ``server.chips``.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tranque.club.lobby import LobbyBoard
from tranque.club.penas import PenaError
from tranque.ledger.stakes import ChipError, check_stake
from tranque.server import http_schemas as hs
from tranque.server.caps import TableCaps
from tranque.server.club import Club
from tranque.server.edge import RateLimiter, client_address, read_body
from tranque.server.http_schemas import HttpError
from tranque.server.identity import Identity, checked_nickname
from tranque.server.late_routes import refusal
from tranque.server.penas import PenaRoutes
from tranque.server.replays import Replays
from tranque.server.ws import Sockets
from tranque.table.lobby import Lobby
from tranque.table.ports import TableStore
from tranque.table.service import TableError

if TYPE_CHECKING:
    from tranque.server.state import Settings

READY_TIMEOUT = 2.0  # seconds the database has to answer /healthz
HISTORY_PAGE = 500  # events per page of /api/tables/{id}/history, by default and at most


class ServerRoutes:
    """The HTTP handlers of ``Server`` (see there for the state they read)."""

    config: Settings
    store: TableStore | None
    lobby: Lobby | None
    identity: Identity | None
    board: LobbyBoard | None
    club: Club | None
    sockets: Sockets
    replays: Replays | None
    guest_rate: RateLimiter
    table_rate: RateLimiter
    caps: TableCaps
    pena_routes: PenaRoutes | None

    @property
    def _replays(self) -> Replays:
        assert self.replays is not None  # made in the lifespan, with the lobby
        return self.replays

    async def new_guest(self, request: Request) -> Response:
        assert self.identity is not None and self.store is not None
        try:
            await self.guest_rate.take(client_address(request.scope))
            body = hs.decode(hs.NewGuest, await read_body(request), empty_ok=True)
            try:
                guest, nick, token = self.identity.new_guest(body.nickname)
            except ValueError as exc:  # its form, or a bot's name (BadName: reserved_name)
                raise HttpError(400, getattr(exc, "code", "bad_nickname"), str(exc)) from None
        except HttpError as exc:
            return refusal(exc)
        await self.store.add_guest(guest, nick, time.time())
        return JSONResponse({"guest": guest, "nickname": nick, "token": token})

    async def renew_guest(self, request: Request) -> Response:
        """A fresh token for a valid one: a guest in use keeps his identity past the expiry."""
        assert self.identity is not None
        assert self.club is not None
        try:
            who = await self.club.who(request)
        except HttpError as exc:
            return refusal(exc)
        token = self.identity.sign(who.guest, who.nickname, who.session)
        return JSONResponse({"guest": who.guest, "nickname": who.nickname, "token": token})

    async def rename_guest(self, request: Request) -> Response:
        """``POST /api/guests/nickname``: the bearer guest goes by a new nickname from now on
        (the same guest: his games, chips and seats stay his), with a token that says so. An
        account's name is its name: 403 ``account_name``."""
        assert self.identity is not None and self.store is not None and self.club is not None
        try:
            who = await self.club.who(request)
            await self.guest_rate.take(client_address(request.scope))
            body = hs.decode(hs.NewGuest, await read_body(request))
            if await self.club.rows.account_of(who.guest) is not None:
                raise HttpError(403, "account_name", "an account goes by its name")
            try:
                nick = checked_nickname(body.nickname or "")
            except ValueError as exc:  # its form, or a bot's name (BadName: reserved_name)
                raise HttpError(400, getattr(exc, "code", "bad_nickname"), str(exc)) from None
        except HttpError as exc:
            return refusal(exc)
        await self.store.rename_guest(who.guest, nick)
        token = self.identity.sign(who.guest, nick, who.session)
        return JSONResponse({"guest": who.guest, "nickname": nick, "token": token})

    async def _who(self, request: Request) -> tuple[str, str]:
        """(guest, nickname) of the request's bearer token, or HttpError 401 (expired, not
        ours, or of an account's session that has ended: ``Club.check_token``)."""
        assert self.club is not None
        who = await self.club.who(request)
        return who.guest, who.nickname

    async def create_table(self, request: Request) -> Response:
        assert self.lobby is not None and self.store is not None
        defaults = self.config.defaults
        pena: str | None = None
        try:
            assert self.club is not None
            me = await self.club.who(request)
            who = me.guest, me.nickname
            await self.table_rate.take(client_address(request.scope))
            body = hs.decode(hs.NewTable, await read_body(request))
            if body.pena is not None:  # a peña's table: its members' (docs/club.md, "Peñas")
                assert self.pena_routes is not None
                try:
                    pena = await self.pena_routes.host(me, body.pena)
                except PenaError as exc:
                    raise HttpError(exc.status, exc.code, exc.message) from None
            rules = hs.table_rules(body.rules)
            clock = hs.move_clock(body.move_clock, defaults.move_clock)
            seat = hs.seat(body.seat)
            bot = hs.bot(body.bot, defaults.bot)
            stake = 0
            if body.stake is not None:
                try:
                    stake = check_stake(body.stake)
                except ChipError as exc:
                    raise HttpError(400, exc.code, exc.message) from None
                if body.practice:
                    raise HttpError(
                        400,
                        "bad_stake",
                        "a practice table is free: a chip table has practice false",
                    )
            await self.caps.check(who[0])
        except HttpError as exc:
            return refusal(exc)
        settings = replace(
            defaults,
            rules=rules,
            move_clock=clock,
            practice=body.practice,
            bot=bot,
            public=body.public,
            stake=stake,
            pena=pena,
        )
        try:
            owner = await self.lobby.create(who[0], who[1], settings, seat)
        except TableError as exc:  # a chip table its host cannot cover: nothing was made
            return _error(409 if exc.code == "too_few_chips" else 503, exc.code, exc.message)
        base = str(request.base_url).rstrip("/")
        tid = owner.table_id
        return JSONResponse(
            {
                "table": tid,
                "invite": f"{base}/t/{tid}",
                "watch": f"{base}/t/{tid}?watch=1",
                "ws": base.replace("http", "ws", 1) + "/ws",
            }
        )

    async def table_info(self, request: Request) -> Response:
        """The table's info from its owner, or once it has left memory from the store (the
        final info saved with the record). A table in no owner's memory here (another node's,
        or finished before its info was saved) is rebuilt from its log off the event loop, once
        (``server.replays``)."""
        assert self.lobby is not None and self.store is not None
        tid = request.path_params["table"]
        owner = await self.lobby.get(tid)
        if owner is not None:
            return JSONResponse(owner.service.info())
        row = await self.store.load_table(tid)
        if row is None:
            return _error(404, "no_table", f"there is no table {tid!r}")
        if row["status"] == "expired":
            return _expired(tid)
        info = row["info"]
        if row["status"] == "over" and "seats" in info:
            return JSONResponse(info)
        return await self._rebuilt(tid, "info")

    async def table_record(self, request: Request) -> Response:
        """The table's record (a game's, or a match's under Miami rules): finished hands only
        while it is on, all of it once it is over."""
        assert self.lobby is not None and self.store is not None
        tid = request.path_params["table"]
        record = await self.store.load_record(tid)
        if record is not None:
            return JSONResponse(record)
        owner = await self.lobby.get(tid)
        if owner is not None:
            return JSONResponse(owner.service.table_record())
        row = await self.store.load_table(tid)
        if row is None:
            return _error(404, "no_table", f"there is no table {tid!r}")
        if row["status"] == "expired":
            return _expired(tid)
        # Live on another node (or between owners): its finished hands, from the log.
        return await self._rebuilt(tid, "record")

    async def _rebuilt(self, tid: str, part: Literal["info", "record"]) -> Response:
        """The info or record of a table rebuilt from its log, off the loop and kept
        (``server.replays``): 503 ``busy`` when too many wait, 404 when there is no log."""
        try:
            rebuilt = await self._replays.table(tid)
        except HttpError as exc:
            return refusal(exc)
        if rebuilt is None:
            return _error(404, "no_table", f"there is no table {tid!r}")
        body = rebuilt.info if part == "info" else rebuilt.record
        return Response(body, media_type="application/json")

    async def table_history(self, request: Request) -> Response:
        """The table's events in their public form (what a spectator saw), from the log, a page
        at a time: ``?after=SEQ&limit=N`` gives the events with ``seq > after``, at most ``N``
        (default and most ``HISTORY_PAGE``), and a ``Link: <...>; rel="next"`` header when more
        follow.

        The public form of an event depends on the state before it: the owner kept it in the
        event's row when it wrote the event, so a page is the rows by sequence number and
        nothing is replayed. Rows written before the forms were kept have none: the table's
        log is replayed once, off the event loop, and the forms kept (``server.replays``).
        Each item is ``{"seq", "ts", ...the public form}``, the bytes encoding that object
        gives."""
        assert self.store is not None and self.lobby is not None
        tid = request.path_params["table"]
        try:
            after = int(request.query_params.get("after", "0"))
            limit = int(request.query_params.get("limit", str(HISTORY_PAGE)))
        except ValueError:
            return _error(400, "bad_page", "after and limit are whole numbers")
        if not 0 <= after < 2**31 or not 1 <= limit <= HISTORY_PAGE:
            return _error(400, "bad_page", f"after is 0 to 2^31-1, limit 1 to {HISTORY_PAGE}")
        if await self.store.table_status(tid) == "expired":
            return _expired(tid)
        # One entry more than the page says whether another page follows.
        rows = await self.store.load_history(tid, after, limit + 1)
        if not rows and (after == 0 or await self.store.last_seq(tid) is None):
            return _error(404, "no_table", f"there is no table {tid!r}")
        headers = {}
        if len(rows) > limit:
            rows = rows[:limit]
            nxt = request.url.include_query_params(after=after + limit, limit=limit)
            headers["link"] = f'<{nxt}>; rel="next"'
        items = [item for _, item in rows if item is not None]
        if len(items) < len(rows):  # rows written before the items were kept
            try:
                kept = await self._replays.history(tid)
            except HttpError as exc:
                return refusal(exc)
            items = [it for seq, item in rows if (it := item or kept.get(seq)) is not None]
            if len(items) < len(rows):  # a row newer than the replay: not kept yet
                return _error(503, "busy", "the table's history is being kept: try again")
        body = "[" + ",".join(items) + "]"
        return Response(body.encode(), media_type="application/json", headers=headers)

    async def lobby_listing(self, request: Request) -> Response:
        """The public tables with free seats or being played, every node's (the lobby)."""
        assert self.board is not None
        return JSONResponse({"tables": await self.board.listing()})

    async def new_party(self, request: Request) -> Response:
        """A party of two friends for the quick-match queue: an id to share by its link. The
        server keeps nothing: the party exists while its two members wait with its id. The
        link names who made it (``by``), for the friend's page to say who invites him; the
        queue tells him again, from the ticket waiting, once he queues (``queued``'s
        ``partner``)."""
        try:
            _, nickname = await self._who(request)
        except HttpError as exc:
            return refusal(exc)
        party = secrets.token_urlsafe(12)
        base = str(request.base_url).rstrip("/")
        link = f"{base}/?{urlencode({'party': party, 'by': nickname}, quote_via=quote)}"
        return JSONResponse({"party": party, "link": link, "by": nickname})

    async def stats(self, request: Request) -> Response:
        """The tables in memory now (waiting, playing, over) and what came and went."""
        assert self.lobby is not None
        body = {**self.lobby.stats(), "sockets": self.sockets.stats()}
        if self.replays is not None:  # logs replayed off the loop for a read (server.replays)
            body["replays"] = {"rebuilt": self.replays.rebuilt}
        return JSONResponse(body)

    async def health(self, request: Request) -> Response:
        """Alive, and the worker pool's figures (workers, ready, busy, queued, replaced,
        retried) when bots think in one, and the parts this node's analyst holds against its
        ``--analysis-queue`` (a game's screen after its analysis holds its place too)."""
        body: dict[str, Any] = {"ok": True}
        stats = getattr(self.config.thinker, "stats", None)
        if stats is not None:
            body["workers"] = stats()
        games = getattr(self, "games", None)
        if games is not None:
            body["analysis"] = games.analyst.figures()
        return JSONResponse(body)

    async def ready(self, request: Request) -> Response:
        """Readiness for a load balancer: 200 when this node can take commands (its database
        answers, and on a cluster its bus is connected), else 503 with what is wrong."""
        assert self.store is not None and self.lobby is not None
        problems = []
        ping = getattr(self.store, "ping", None)
        if ping is not None:
            try:
                await asyncio.wait_for(ping(), READY_TIMEOUT)
            except Exception:
                problems.append("database unreachable")
        if not self.lobby.bus.healthy:
            problems.append("bus (Redis) unreachable")
        if self.sockets.closing:
            problems.append("stopping")
        body: dict[str, Any] = {"ready": not problems, "problems": problems}
        if self.config.node is not None:
            body["node"] = self.config.node
        return JSONResponse(body, status_code=503 if problems else 200)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status)


def _expired(tid: str) -> JSONResponse:
    return _error(410, "table_expired", f"table {tid!r} never started and has expired")
