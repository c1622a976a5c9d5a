"""The Starlette app: HTTP routes for guests and tables, the WebSocket protocol, static files.

The app parses, authenticates and delivers; every decision is the table owner's. It reaches the
database only through the table's ``TableStore`` port, which ``server.commands`` plugs in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from tranque.bots.base import resolve_bot
from tranque.rules.errors import RulesError
from tranque.rules.variants import Rules
from tranque.server.identity import Identity
from tranque.server.protocol import Hello, Ping, ProtocolError, Sync, _peek_id, parse
from tranque.table.lobby import Lobby
from tranque.table.owner import TableOwner, frame
from tranque.table.ports import Entry, TableStore, Thinker, WallClock
from tranque.table.service import TableService, TableSettings, fixed_seeds, secure_seeds

log = logging.getLogger("tranque.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
POLICY_VIOLATION = 1008


@dataclass
class ServerConfig:
    defaults: TableSettings = field(default_factory=TableSettings)
    test_seed: bytes | None = None  # reproducible server seeds and table ids: tests only
    rate: float = 20.0  # messages per second per connection, sustained
    burst: float = 40.0
    strikes: int = 20  # messages refused for the rate before the connection is closed
    queue_limit: int = 5000  # frames waiting for a slow connection before it is dropped
    on_ready: Callable[[], None] | None = None  # called once the tables are rebuilt
    # Where bots think (``runtime.pool.WorkerPool`` for ``tranque serve``; None: a thread of
    # this process). Started and closed with the app if it has ``start`` / ``close``.
    thinker: Thinker | None = None


class Connection:
    """One WebSocket: its identity, its table, and the ordered queue of frames to send it."""

    def __init__(self, ws: WebSocket, limit: int) -> None:
        self.ws = ws
        self.guest: str | None = None
        self.nickname = "guest"
        self.watcher = False
        self.owner: TableOwner | None = None
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.limit = limit
        self.dropped = False
        self.close_reason = "too slow"

    def push(self, frame_: bytes) -> None:
        if self.queue.qsize() >= self.limit:
            self.dropped = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(frame_)

    async def write_loop(self) -> None:
        ws = self.ws
        while True:
            item = await self.queue.get()
            if item is None:
                with contextlib.suppress(Exception):
                    await ws.close(code=POLICY_VIOLATION, reason=self.close_reason)
                return
            await ws.send_text(item.decode())


class Bucket:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.t = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def error_frame(code: str, message: str, cid: str | None = None) -> bytes:
    return frame({"type": "error", "id": cid, "code": code, "message": message})


class Server:
    def __init__(
        self, config: ServerConfig, store_factory: Callable[[], Awaitable[TableStore]]
    ) -> None:
        self.config = config
        self.store_factory = store_factory
        self.store: TableStore | None = None
        self.lobby: Lobby | None = None
        self.identity: Identity | None = None
        self.counter = 0

    # -- life -------------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        store = await self.store_factory()
        self.store = store
        secret = await store.get_meta("secret")
        if secret is None:
            secret = secrets.token_hex(32)
            await store.set_meta("secret", secret)
        self.identity = Identity(secret)
        self.counter = int(await store.get_meta("table_counter") or 0)
        seed = self.config.test_seed
        thinker = self.config.thinker
        start = getattr(thinker, "start", None)
        if start is not None:
            await start()
        self.lobby = Lobby(
            store,
            WallClock(),
            fixed_seeds(seed) if seed is not None else secure_seeds,
            self.config.defaults,
            table_ids=self._next_table_id,
            thinker=thinker,
        )
        recovered = await self.lobby.recover()
        if recovered:
            log.warning("rebuilt %d unfinished table(s) from the event log", recovered)
        if self.config.on_ready is not None:
            self.config.on_ready()
        try:
            yield
        finally:
            await self.lobby.close()
            close_pool = getattr(thinker, "close", None)
            if close_pool is not None:
                await close_pool()
            close = getattr(store, "close", None)
            if close is not None:
                await close()

    def _next_table_id(self) -> str:
        self.counter += 1
        if self.config.test_seed is not None:
            return f"t{self.counter}"
        return secrets.token_urlsafe(6)

    # -- HTTP -------------------------------------------------------------------------------------

    async def new_guest(self, request: Request) -> Response:
        assert self.identity is not None and self.store is not None
        body = await _json(request)
        try:
            guest, nick, token = self.identity.new_guest(body.get("nickname"))
        except ValueError as exc:
            return _error(400, "bad_nickname", str(exc))
        await self.store.add_guest(guest, nick, time.time())
        return JSONResponse({"guest": guest, "nickname": nick, "token": token})

    def _who(self, request: Request) -> tuple[str, str] | None:
        assert self.identity is not None
        auth = request.headers.get("authorization", "")
        token = auth[7:] if auth.lower().startswith("bearer ") else ""
        return self.identity.check(token) if token else None

    async def create_table(self, request: Request) -> Response:
        assert self.lobby is not None and self.store is not None
        who = self._who(request)
        if who is None:
            return _error(401, "unauthenticated", "send 'Authorization: Bearer <guest token>'")
        body = await _json(request)
        try:
            rules = Rules.from_json(body.get("rules", "havana"))
        except RulesError as exc:
            return _error(400, exc.code, str(exc))
        clock = body.get("move_clock", self.config.defaults.move_clock)
        if not isinstance(clock, int | float) or not 0.5 <= clock <= 600:
            return _error(400, "bad_clock", "move_clock is 0.5 to 600 seconds")
        practice = bool(body.get("practice", True))
        seat = body.get("seat", 0)
        if seat is not None and seat not in (0, 1, 2, 3):
            return _error(400, "bad_seat", "seat is 0, 1, 2, 3 or null")
        bot = body.get("bot", self.config.defaults.bot)
        try:
            resolve_bot(bot if isinstance(bot, str) else "")
        except ValueError as exc:
            return _error(400, "bad_bot", str(exc))
        settings = replace(
            self.config.defaults, rules=rules, move_clock=float(clock), practice=practice, bot=bot
        )
        owner = await self.lobby.create(who[0], who[1], settings, seat)
        await self.store.set_meta("table_counter", str(self.counter))
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
        assert self.lobby is not None and self.store is not None
        tid = request.path_params["table"]
        owner = await self.lobby.get(tid)
        if owner is not None:
            return JSONResponse(owner.service.info())
        record = await self.store.load_record(tid)
        if record is None:
            return _error(404, "no_table", f"there is no table {tid!r}")
        return JSONResponse({"table": tid, "over": True})

    async def table_record(self, request: Request) -> Response:
        """The table's record (a game's, or a match's under Miami rules): finished hands only
        while it is on, all of it once it is over."""
        assert self.lobby is not None and self.store is not None
        tid = request.path_params["table"]
        record = await self.store.load_record(tid)
        if record is not None:
            return JSONResponse(record)
        owner = await self.lobby.get(tid)
        if owner is None:
            return _error(404, "no_table", f"there is no table {tid!r}")
        return JSONResponse(owner.service.table_record())

    async def table_history(self, request: Request) -> Response:
        """Every event of the table in its public form (what a spectator saw), from the log."""
        assert self.store is not None and self.lobby is not None
        tid = request.path_params["table"]
        entries = await self.store.load_events(tid)
        if not entries:
            return _error(404, "no_table", f"there is no table {tid!r}")
        svc = TableService(tid, self.lobby.seed_source)
        out: list[dict[str, Any]] = []
        for e in entries:
            svc.apply(e)
            out.append({"seq": e.seq, "ts": e.ts, **svc.project(e)})
        return Response(msgspec.json.encode(out), media_type="application/json")

    async def health(self, request: Request) -> Response:
        """Alive, and the worker pool's figures (workers, ready, busy, queued, replaced,
        retried) when bots think in one."""
        body: dict[str, Any] = {"ok": True}
        stats = getattr(self.config.thinker, "stats", None)
        if stats is not None:
            body["workers"] = stats()
        return JSONResponse(body)

    async def index(self, request: Request) -> Response:
        page = WEB_DIR / "index.html"
        if page.is_file():
            return FileResponse(page)
        return HTMLResponse(_PLACEHOLDER)

    # -- WebSocket --------------------------------------------------------------------------------

    async def ws(self, ws: WebSocket) -> None:
        await ws.accept()
        cfg = self.config
        conn = Connection(ws, cfg.queue_limit)
        writer = asyncio.create_task(conn.write_loop())
        bucket = Bucket(cfg.rate, cfg.burst)
        strikes = 0
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                if raw is None:
                    raw = message.get("bytes") or b""
                if not bucket.take():
                    strikes += 1
                    if strikes > cfg.strikes:
                        # The frames already queued go out first, then the close.
                        conn.close_reason = "rate limit"
                        conn.queue.put_nowait(None)
                        with contextlib.suppress(Exception):
                            await asyncio.wait_for(asyncio.shield(writer), 5)
                        return
                    conn.push(
                        error_frame("rate_limited", "too many messages: slow down", _peek_id(raw))
                    )
                    continue
                try:
                    msg = parse(raw)
                except ProtocolError as exc:
                    conn.push(error_frame(exc.code, exc.message, exc.cid))
                    continue
                await self._dispatch(conn, msg)
                if writer.done():
                    break
        except Exception:  # a broken socket ends this connection only
            log.debug("connection ended", exc_info=True)
        finally:
            if conn.owner is not None:
                conn.owner.detach(conn)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    async def _dispatch(self, conn: Connection, msg: Any) -> None:
        assert self.identity is not None and self.lobby is not None
        if isinstance(msg, Hello):
            if conn.owner is not None:
                conn.push(error_frame("already_joined", "this connection has joined a table"))
                return
            who = self.identity.check(msg.token)
            if who is None:
                conn.push(error_frame("bad_token", "the token is not one this server signed"))
                return
            owner = await self.lobby.get(msg.table)
            if owner is None:
                conn.push(error_frame("no_table", f"there is no live table {msg.table!r}"))
                return
            conn.guest, conn.nickname = who
            conn.watcher = msg.role == "spectator"
            conn.owner = owner
            owner.attach(conn, msg.last_seq)
            return
        if isinstance(msg, Ping):
            conn.push(frame({"type": "pong", "id": msg.id, "ts": time.time()}))
            return
        if conn.owner is None:
            conn.push(
                error_frame(
                    "unauthenticated", "say hello (token and table) first", getattr(msg, "id", None)
                )
            )
            return
        if isinstance(msg, Sync):
            conn.owner.sync(conn, msg.last_seq)
            return
        if conn.watcher:
            conn.push(error_frame("spectator", "spectators only watch", getattr(msg, "id", None)))
            return
        body = msgspec.structs.asdict(msg)
        body["type"] = type(msg).__struct_config__.tag
        if body["type"] == "sit":
            body["nickname"] = conn.nickname
        conn.owner.command(conn, body)


async def _json(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except Exception:
        return {}
    return body if isinstance(body, dict) else {}


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status)


_PLACEHOLDER = """<!doctype html><meta charset="utf-8"><title>tranque</title>
<h1>tranque</h1><p>The server is running. The browser client is not installed yet; the protocol
is in docs/protocol.md, and <code>python -m tranque.client</code> plays from a terminal.</p>"""


def create_app(
    config: ServerConfig, store_factory: Callable[[], Awaitable[TableStore]]
) -> Starlette:
    server = Server(config, store_factory)
    routes: list[Any] = [
        Route("/api/guests", server.new_guest, methods=["POST"]),
        Route("/api/tables", server.create_table, methods=["POST"]),
        Route("/api/tables/{table}", server.table_info),
        Route("/api/tables/{table}/record", server.table_record),
        Route("/api/tables/{table}/history", server.table_history),
        Route("/health", server.health),
        WebSocketRoute("/ws", server.ws),
        Route("/t/{table}", server.index),
    ]
    if WEB_DIR.is_dir():
        routes.append(Mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web"))
    else:
        routes.append(Route("/", server.index))
    app = Starlette(routes=routes, lifespan=server.lifespan)
    app.state.server = server
    return app


__all__ = ["Entry", "ServerConfig", "create_app"]
