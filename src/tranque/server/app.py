"""The Starlette app: HTTP routes for guests and tables, the WebSocket protocol, static files.

The app parses, authenticates and delivers; every decision is the table owner's. It reaches the
database only through the table's ``TableStore`` port, which ``server.serve`` plugs in. The
edge (body limits, headers, rates) is ``server.edge``; the request bodies are
``server.http_schemas``; the socket loop is ``server.ws``; the client's files ``server.assets``;
the HTTP handlers of guests, tables, the lobby and health ``server.routes``; what a server is
made with ``server.config``.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from tranque.bots.base import resolve_bot
from tranque.club.lobby import LobbyBoard
from tranque.club.matching import Seating
from tranque.club.passwords import PasswordWork
from tranque.club.quickmatch import VARIANTS, QuickMatch, Requeued
from tranque.ledger.stakes import STAKES, TooFewChips, person
from tranque.rules.variants import Rules
from tranque.server.adapters import ServerAdapters
from tranque.server.assets import IMMUTABLE, WEB_DIR, CachedStatic, release_hash, render_index
from tranque.server.caps import TableCaps
from tranque.server.chips import ChipRoutes
from tranque.server.club import Club
from tranque.server.config import ServerConfig
from tranque.server.direct import keep_raw_send
from tranque.server.edge import Buckets, EdgeMiddleware, LocalBuckets, RateLimiter
from tranque.server.friends import FriendRoutes, club_news, friend_routes
from tranque.server.games import GameRoutes, game_routes
from tranque.server.identity import Identity
from tranque.server.moderation import ModRoutes, mod_routes
from tranque.server.pages import not_found, service_worker, service_worker_route
from tranque.server.pairs import PairRoutes, pair_routes
from tranque.server.penas import PenaRoutes, pena_routes
from tranque.server.presence import ClubNews
from tranque.server.reads import ApiReadLimit
from tranque.server.replays import Replays
from tranque.server.routes import ServerRoutes
from tranque.server.seat_ratings import SeatRatings
from tranque.server.tournaments import TournamentRoutes, make_tournaments, tournament_routes
from tranque.server.ws import Sockets
from tranque.store.chips import SqlChips
from tranque.store.db import Store
from tranque.store.penas import SqlPenas
from tranque.table.bus import SessionsEnded
from tranque.table.lobby import Lobby
from tranque.table.ports import Entry, TableStore, WallClock
from tranque.table.service import fixed_seeds, secure_seeds

log = logging.getLogger("tranque.server")

QUICK_HOST = "quick-match"  # the host of quick-match tables (no guest: nobody may add bots)
# Answers from this size on are compressed on a thread (zlib lets go of the interpreter while it
# works), not on the event loop: a page of a table's history is about 100 KB, and sixteen of
# them in flight kept every socket waiting (issue 28). Level 6 (zlib's own default), not
# Starlette's 9: a third of the CPU for answers 5 % larger.
GZIP_ON_THREAD = 16 * 1024
GZIP_LEVEL = 6


class Server(ServerAdapters, ServerRoutes):
    config: ServerConfig  # all of it: the route groups read the part server.state names

    def __init__(
        self, config: ServerConfig, store_factory: Callable[[], Awaitable[TableStore]]
    ) -> None:
        self.config = config
        self.store_factory = store_factory
        self.store: TableStore | None = None
        self.lobby: Lobby | None = None
        self.identity: Identity | None = None
        self.quick: QuickMatch | None = None
        self.board: LobbyBoard | None = None
        self.seat_ratings: SeatRatings | None = None  # each seat's rating (server.seat_ratings)
        self.club: Club | None = None  # accounts, profiles, ratings (server.club)
        self.chips: SqlChips | None = None  # the chips' ledger (store.chips, server.chips)
        self.games: GameRoutes | None = None  # finished games, history, analyses (server.games)
        self.mod: ModRoutes | None = None  # moderation, reports, blocks (server.moderation)
        self.replays: Replays | None = None  # tables rebuilt off the loop (server.replays)
        self.news: ClubNews | None = None  # notices and friends' presence (server.presence)
        self.friend_routes: FriendRoutes | None = None  # friends, notices (server.friends)
        self.pair_routes: PairRoutes | None = None  # pairs (server.pairs)
        self.pena_routes: PenaRoutes | None = None  # peñas (server.penas)
        self.tournament_routes: TournamentRoutes | None = None  # (server.tournaments)
        # The rate limits' buckets: this process's memory, or Redis on a cluster (_cluster).
        limits = config.limits
        self.buckets: Buckets = LocalBuckets(limits.rate_keys)
        self.sockets = Sockets(self)
        self.guest_rate = RateLimiter(
            limits.guests_per_minute, limits.guest_burst, "new guests", self.buckets
        )
        self.table_rate = RateLimiter(
            limits.tables_per_minute, limits.table_burst, "new tables", self.buckets
        )
        # Every GET of the API (server.reads). Counted by each node on its own, even on a
        # cluster (buckets of its own, never Redis's): what it guards is the node's own event
        # loop, and a read must not cost a round trip to Redis.
        self.read_rate = RateLimiter(
            limits.api_gets_per_minute,
            limits.api_get_burst,
            "API reads",
            LocalBuckets(limits.rate_keys),
        )
        self.claim_rate = RateLimiter(
            limits.claims_per_minute, limits.claim_burst, "account claims", self.buckets
        )
        # A person's unfinished tables, whoever made them (server.caps); its store: the lifespan.
        self.caps = TableCaps(limits, self.table_rate, config.defaults.abandon_after)
        self._closing: list[Callable[[], Awaitable[None]]] = []  # adapters closed at the end
        self.release = release_hash() if WEB_DIR.is_dir() else "dev"
        page = WEB_DIR / "index.html"
        self.page = render_index(page.read_text(), self.release) if page.is_file() else None

    # -- life -------------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        store = await self.store_factory()
        self.store = self.caps.store = store
        kept = await store.get_meta("secret")
        if kept is None and self.config.secret is None:
            kept = await store.keep_meta("secret", secrets.token_hex(32))
        if self.config.secret is None:
            assert kept is not None
            secret, old = kept, self.config.old_secrets
        else:
            # The database's secret is still accepted: tokens signed before a secret was set in
            # the environment stay valid until they expire.
            secret, old = self.config.secret, (*self.config.old_secrets, *([kept] if kept else []))
        self.identity = Identity(secret, old, self.config.token_max_age)
        seed = self.config.test_seed
        thinker = self.config.thinker
        start = getattr(thinker, "start", None)
        if start is not None:
            await start()
        leases, bus = self._cluster(store)
        assert isinstance(store, Store)
        work = PasswordWork(self.config.hash_threads, self.config.hash_waiting)
        self.club = Club(
            store, self.identity, self.buckets, self.config.login_limits, work, self.claim_rate
        )
        self.mod = ModRoutes(self.club, self.club.mod_rows)
        self.games = GameRoutes(
            self, store, thinker, self.config.node or "local", queue=self.config.analysis_queue
        )
        self.lobby = Lobby(
            store,
            WallClock(),
            fixed_seeds(seed) if seed is not None else secure_seeds,
            self.config.defaults,
            table_ids=self._next_table_id,
            expiry=self.config.table_expiry,
            linger=self.config.finished_linger,
            thinker=thinker,
            leases=leases,
            bus=bus,
        )
        replays = self.replays = Replays(
            store, self.lobby.seed_source, self.config.replays_kept, self.config.replays_waiting
        )
        self.chips = SqlChips(store)
        self.lobby.chips = self.chips
        queue, directory = self._club_ports()
        self.board = LobbyBoard(directory)
        profiles = self.club.profiles
        self.seat_ratings = seat_ratings = SeatRatings(
            profiles.ratings_of,
            self._touch,
            names=profiles.account_names,
            completion=profiles.completion_rates,
        )
        self.lobby.on_change = self._touch
        self.lobby.on_gone = self.board.gone
        # A queue per variant, and per variant and stake for chip tables ("havana@100").
        queues = (*VARIANTS, *(f"{v}@{s}" for v in VARIANTS for s in STAKES))
        self.quick = QuickMatch(
            queue, self._open_quick_table, time.time, fill=self.config.fill_time, variants=queues
        )
        self.lobby.on_gone = self._gone  # the board's and the seats' ratings' (server.seat_ratings)
        # A table's free seats offered to the queue (a rematch somebody declined): for as long
        # as the queue's own fill time, then bots.
        self.lobby.on_fill = self._fill_from_queue
        self.lobby.fill_window = self.config.fill_time
        self.club.on_sessions_ended = self._sessions_ended
        self.lobby.relay.on_sessions_ended = self._sessions_ended_elsewhere
        cfg = self.config
        news, self.friend_routes = club_news(
            store, self.club, cfg.redis, cfg.db_url, cfg.node or "local", bus
        )
        self.news = news
        self.pair_routes = PairRoutes(self.club, news)
        self.pena_routes = PenaRoutes(self.club, news, SqlPenas(store), self.board)
        self.lobby.pena_gate = self.pena_routes.is_member  # a peña's table seats its members
        self.board.penas_of = self.pena_routes.rows.names_of  # ... and is in their lobby alone
        self.board.members_of = self.pena_routes.rows.members_of
        tourneys = self.tournament_routes = make_tournaments(
            self.club,
            news,
            self.lobby,
            self.config.defaults,
            fill=self.config.fill_time,
            minute=self.config.tournament_minute,
        )
        self.sockets.on_status, self.sockets.on_listen = news.changed, news.listen
        self.lobby.relay.on_pushed = news.pushed
        news.start()
        recovered = await self.lobby.recover()
        if recovered:
            log.warning("rebuilt %d unfinished table(s) from the event log", recovered)
        self.board.start()
        self.quick.start()
        self.games.start()
        try:
            yield
        finally:
            await tourneys.runner.close()
            await news.close()
            await self.games.close()
            await self.quick.close()
            await self.board.close()
            await seat_ratings.close()
            await self.lobby.close()
            replays.close()
            close_pool = getattr(thinker, "close", None)
            if close_pool is not None:
                await close_pool()
            for closing in self._closing:
                await closing()
            close = getattr(store, "close", None)
            if close is not None:
                await close()

    def _touch(self, owner: Any) -> None:
        assert self.board is not None and self.seat_ratings is not None
        ratings = self.seat_ratings.seats(owner)  # looked up when the seating changes
        settings = owner.service.settings
        if not (settings.public or settings.pena):
            return  # never listed: no line to build from its whole info at every move
        profiles = self.seat_ratings.profiles(owner)
        self.board.touch(
            owner.service.info(), owner.spectators().count, ratings, owner.present(), profiles
        )

    def _sessions_ended(self, guest: str, session: str | None, keep: str | None) -> None:
        """Sessions ended here (a logout, a new password): their sockets close on this node now
        and on every other through the bus (``SessionsEnded``)."""
        assert self.lobby is not None
        self.sockets.sessions_ended(guest, session, keep)
        self.lobby.bus.broadcast(SessionsEnded(guest, session, keep))

    def _sessions_ended_elsewhere(self, msg: SessionsEnded) -> None:
        self.sockets.sessions_ended(msg.guest, msg.session, msg.keep)

    def _gone(self, table: str) -> None:
        assert self.board is not None and self.seat_ratings is not None
        self.board.gone(table)
        self.seat_ratings.gone(table)

    async def _open_quick_table(self, seating: Seating) -> str:
        """A quick match's table: public, of people, its empty seats to bots of level normal."""
        assert self.lobby is not None
        variant, _, stake = seating.variant.partition("@")
        settings = replace(
            self.config.defaults,
            rules=Rules.from_json(variant),
            practice=False,
            public=True,
            stake=int(stake or 0),
        )
        people = [(s, t.guest, t.nickname) for s, t in enumerate(seating.seats) if t is not None]
        bot = resolve_bot("normal")
        bots = [(s, bot) for s, t in enumerate(seating.seats) if t is None]
        # Somebody who reached his cap since he queued (he made a table meanwhile) is not seated.
        full = await self.caps.at_cap(t.guest for t in seating.people)
        if full:
            await self._requeue(seating, full)
            raise Requeued(full, "too_many_tables")
        try:
            owner = await self.lobby.create(
                QUICK_HOST, "", settings, None, people=people, bots=bots
            )
        except TooFewChips as exc:
            # His chips ran out since he queued: he leaves the queue, the others wait on.
            poor = {t.guest for t in seating.people if person(t.guest) == exc.holder}
            await self._requeue(seating, poor)
            raise Requeued(poor, "too_few_chips") from None
        return owner.table_id

    def _fill_from_queue(self, owner: Any, until: float) -> None:
        """``fill`` at a table: its free seats go to the people waiting in the quick-match queue
        of its variant (and stake) until ``until``, people first; at a table of custom rules
        (no queue has them) the bots come at the window's end."""
        assert self.quick is not None
        settings = owner.service.settings
        preset = settings.rules.name
        if preset not in VARIANTS:
            return
        queue = f"{preset}@{settings.stake}" if settings.stake else preset

        async def seat_at(ticket: Any) -> int | None:
            if await self.caps.at_cap([ticket.guest]):
                return None  # at his cap of unfinished tables: he waits for another
            seated = {seat.guest for seat in owner.service.seats if seat.kind == "person"}
            if seated & set(ticket.avoid):
                return None  # he blocks, or is blocked by, one of them: never seated together
            seat: int | None = await owner.place(ticket.guest, ticket.nickname)
            return seat

        self.quick.want(owner.table_id, queue, until, seat_at)

    async def _requeue(self, seating: Seating, unseated: set[str]) -> None:
        """A quick match that cannot open for ``unseated``: the others queue again, as they
        were (the ``Requeued`` raised next tells the unseated why)."""
        assert self.quick is not None
        for t in seating.people:
            if t.guest not in unseated:
                await self.quick.queue.join(t)

    async def drain(self) -> None:
        """A clean stop: a cluster's node hands its tables to the others first (so the sockets
        closed next reconnect to where the tables are), then every socket gets 1001."""
        if self.lobby is not None and self.lobby.clustered:
            await self.lobby.drain()
        await self.sockets.drain()

    async def _next_table_id(self) -> str:
        if self.config.test_seed is not None:
            assert self.store is not None
            # Counted in the database: every node of a cluster gives the next number.
            return f"t{await self.store.next_count('table_counter')}"
        return secrets.token_urlsafe(6)

    # -- HTTP: the routes of other objects (the server's own handlers: server.routes) -----------

    async def table_players(self, request: Request) -> Response:
        assert self.club is not None
        return await self.club.table_players(self, request)

    def _chips(
        self, handler: Callable[[ChipRoutes, Request], Awaitable[Response]]
    ) -> Callable[[Request], Awaitable[Response]]:
        """A route of ``server.chips`` (``ChipRoutes.balance``, ...), bound once the ledger
        exists (in the lifespan)."""

        async def route(request: Request) -> Response:
            assert self.chips is not None and self.club is not None
            return await handler(ChipRoutes(self.chips, self.club), request)

        return route

    def _club(
        self, handler: Callable[[Club, Request], Awaitable[Response]]
    ) -> Callable[[Request], Awaitable[Response]]:
        """A route of ``server.club`` (``Club.login``, ...), bound once the club exists (in the
        lifespan)."""

        async def route(request: Request) -> Response:
            assert self.club is not None
            return await handler(self.club, request)

        return route

    async def index(self, request: Request) -> Response:
        """The page, its script and style URLs under this release's prefix (server.assets)."""
        headers = {"cache-control": "no-cache"}
        return HTMLResponse(self.page or _PLACEHOLDER, headers=headers)

    # -- WebSocket --------------------------------------------------------------------------------

    async def ws(self, ws: WebSocket) -> None:
        await self.sockets.serve(ws)


_PLACEHOLDER = """<!doctype html><meta charset="utf-8"><title>tranque</title>
<h1>tranque</h1><p>The server is running. The browser client is not installed yet; the protocol
is in docs/protocol.md, and <code>python -m tranque.client</code> plays from a terminal.</p>"""


class TranqueApp(Starlette):
    """Starlette, with the sockets of ``/ws`` taken before its middleware stack.

    Through the stack a socket kept a dozen coroutines suspended for its whole life (the
    server's error handler, the edge, gzip, the exception handler, the router, the route and
    their closures), all passing the socket through untouched; Python's collector scanned about
    eighty such objects per socket made in the last seconds at every young collection. The edge
    has nothing to add to a socket but to keep the server's own ``send`` (server.direct), done
    here; every other path and scope goes through the stack as before.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and scope["path"] == "/ws":
            scope["app"] = self
            keep_raw_send(scope, send)
            await self.state.server.ws(WebSocket(scope, receive, send))
            return
        await super().__call__(scope, receive, send)


def create_app(
    config: ServerConfig, store_factory: Callable[[], Awaitable[TableStore]]
) -> TranqueApp:
    server = Server(config, store_factory)
    routes: list[Any] = [
        *friend_routes(server),
        *pair_routes(server),
        *pena_routes(server),
        *tournament_routes(server),
        Route("/api/guests", server.new_guest, methods=["POST"]),
        Route("/api/guests/renew", server.renew_guest, methods=["POST"]),
        Route("/api/guests/nickname", server.rename_guest, methods=["POST"]),
        Route("/api/tables", server.create_table, methods=["POST"]),
        Route("/api/tables/{table}", server.table_info),
        Route("/api/tables/{table}/record", server.table_record),
        Route("/api/tables/{table}/history", server.table_history),
        Route("/api/tables/{table}/players", server.table_players),
        Route("/api/accounts", server._club(Club.claim), methods=["POST"]),
        Route("/api/accounts/password", server._club(Club.change_password), methods=["POST"]),
        Route("/api/sessions", server._club(Club.login), methods=["POST"]),
        Route("/api/sessions", server._club(Club.logout), methods=["DELETE"]),
        Route("/api/sessions/current", server._club(Club.logout), methods=["DELETE"]),
        Route("/api/me", server._club(Club.me)),
        Route("/api/profiles/{handle}", server._club(Club.profile)),
        Route("/api/leaderboards/{preset}", server._club(Club.leaderboard)),
        Route("/api/chips", server._chips(ChipRoutes.balance)),
        Route("/api/chips/history", server._chips(ChipRoutes.history)),
        Route("/health", server.health),
        Route("/healthz", server.ready),
        Route("/api/stats", server.stats),
        Route("/api/lobby", server.lobby_listing),
        Route("/api/parties", server.new_party, methods=["POST"]),
        *game_routes(server),
        *mod_routes(server),
        Route("/mod", server.index),
        Route("/leaderboards/{preset}", server.index),
        Route("/t/{table}", server.index),
        Route("/g/{table}", server.index),
        Route("/games", server.index),
        Route("/u/{handle}", server.index),
        Route("/pair/{name}", server.index),
        Route("/pairs", server.index),
        Route("/pena/{name}", server.index),
        Route("/penas", server.index),
        Route("/tournaments", server.index),
        Route("/tournament/{id}", server.index),
        Route("/lobby", server.index),
        Route("/chips", server.index),
        Route("/", server.index),
        Route("/index.html", server.index),
        Route("/sw.js", service_worker_route(service_worker(server.release))),
    ]
    if WEB_DIR.is_dir():
        versioned = CachedStatic(directory=WEB_DIR, cache_control=IMMUTABLE)
        routes.append(Mount(f"/assets/{server.release}", versioned, name="assets"))
        routes.append(Mount("/", CachedStatic(directory=WEB_DIR, cache_control="no-cache")))
    middleware = [
        Middleware(EdgeMiddleware),
        Middleware(ApiReadLimit, limiter=server.read_rate),
        Middleware(
            GZipMiddleware,
            minimum_size=512,
            compresslevel=GZIP_LEVEL,
            thread_minimum_size=GZIP_ON_THREAD,
        ),
    ]
    app = TranqueApp(
        routes=routes,
        middleware=middleware,
        lifespan=server.lifespan,
        exception_handlers={404: not_found(server.page)},
    )
    app.state.server = server
    return app


__all__ = ["Entry", "ServerConfig", "create_app"]
