"""The WebSocket edge: one ``Connection`` per socket (``server.connection``), its rate bucket,
and the socket loop.

The loop parses, authenticates and forwards; every decision is the table owner's. The caps
that concern sockets live here: sockets per client address, spectators per table, the bytes
queued for a socket that reads too slowly, and the Origin of a browser's socket.
``Sockets.drain`` closes every socket with 1001 (going away) on a clean stop, so that clients
reconnect to the next server; ``Sockets.sessions_ended`` closes, with 1008, the sockets of an
account's sessions that ended (a logout, a new password), on whichever node they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.responses import JSONResponse
from starlette.websockets import WebSocket

from tranque.server.connection import GOING_AWAY, INTERNAL_ERROR, POLICY_VIOLATION, Connection
from tranque.server.direct import direct_closer, direct_reader, direct_writer
from tranque.server.edge import Limits, client_address, origin_allowed
from tranque.server.http_schemas import HttpError
from tranque.server.identity import checked_nickname
from tranque.server.keepalive import Keepalive
from tranque.server.protocol import (
    ClientMessage,
    Hello,
    Lobby,
    Notices,
    Ping,
    ProtocolError,
    Queue,
    Sit,
    Sync,
    Unqueue,
    _peek_id,
    error_frame,
    parse,
)
from tranque.server.queue_desk import QueueDesk
from tranque.table.owner_frames import frame
from tranque.table.service import TableError

if TYPE_CHECKING:
    from tranque.server.state import ServerState

log = logging.getLogger("tranque.server")

STOP = object()  # ``Sockets._take``: the socket refused too many messages for its rate
LOGGED_OUT = "logged_out: this session has ended, log in again"


class Gate:
    """A socket's rate: a token bucket, and the messages it refused (``strikes``)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.t = time.monotonic()
        self.strikes = 0

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


async def refuse_stopping(ws: WebSocket) -> None:
    """A stopping node's answer to an upgrade: HTTP 503, before any handshake. A balancer takes
    it as "ask the next node" (nginx's ``proxy_next_upstream http_503``), where a refusal by
    closing (a 403) would reach the client; a client on its own connects again."""
    body = {"code": "stopping", "message": "this node is stopping: connect again"}
    try:
        await ws.send_denial_response(
            JSONResponse(body, status_code=503, headers={"retry-after": "1"})
        )
    except RuntimeError:  # a server without ASGI's denial response: a close (403) then
        with contextlib.suppress(Exception):
            await ws.close(code=GOING_AWAY)


class Sockets:
    """Every open socket of the server, counted by client address and by watched table."""

    def __init__(self, server: ServerState) -> None:
        self.server = server
        self.open: dict[Connection, asyncio.Task[None]] = {}
        self.per_address: Counter[str] = Counter()
        self.spectators: Counter[str] = Counter()
        self.closing = False
        self.keepalive = Keepalive(server.config.ws_ping)  # one timer pings every socket
        self.counts = {"dropped_slow": 0, "ended_sessions": 0}
        self.endings = 0  # sessions ended as told to this node (``sessions_ended``)
        # Told when an account's socket opens, moves (a table, the queue) or closes, for where
        # his friends see him (``server.presence``); a guest's sockets are never told.
        self.on_status: Callable[[Connection, bool], None] | None = None
        self.on_listen: Callable[[Connection], Any] | None = None  # a ``notices`` message
        self.desk = QueueDesk(server, self._who, self._status)  # the lobby and the queue

    @property
    def limits(self) -> Limits:
        return self.server.config.limits

    def refuse_new(self) -> None:
        """The node stops: from now on every upgrade is answered 503 (``serve``) and
        ``/healthz`` says so, while the tables are handed over and the open sockets closed."""
        self.closing = True

    async def serve(self, ws: WebSocket) -> None:
        if self.closing:
            await refuse_stopping(ws)
            return
        if not origin_allowed(ws.headers, self.limits.allow_origins):
            # Before the handshake: the browser sees a refused upgrade (HTTP 403).
            log.info("refused a socket from origin %r", ws.headers.get("origin"))
            await ws.close(code=POLICY_VIOLATION)
            return
        address = client_address(ws.scope)
        cap = self.limits.max_sockets_per_ip
        if cap and self.per_address[address] >= cap:
            await ws.accept()
            with contextlib.suppress(Exception):
                await ws.close(POLICY_VIOLATION, f"too many connections from your address ({cap})")
            return
        self.per_address[address] += 1
        try:
            await ws.accept()
            await self._loop(ws)
        finally:
            self.per_address[address] -= 1
            if self.per_address[address] <= 0:
                del self.per_address[address]

    async def _loop(self, ws: WebSocket) -> None:
        cfg = self.server.config
        conn = Connection(
            ws, cfg.queue_bytes, direct_writer(ws.scope, cfg.queue_bytes), direct_closer(ws.scope)
        )
        self.keepalive.watch(ws.scope)
        writer = asyncio.create_task(conn.write_loop())
        self.open[conn] = writer
        gate = Gate(cfg.rate, cfg.burst)
        # At a table, the messages that come while this task waits are handled as they are
        # parsed, on uvicorn's callback (direct.py); the others come through ``receive``.
        waits = direct_reader(ws.scope, lambda raw: self._at_once(conn, gate, raw))
        try:
            while True:
                waits(True)
                message = await ws.receive()
                waits(False)
                if message["type"] == "websocket.disconnect":
                    break
                if conn.closing:  # nothing more is taken from a socket on its way out
                    continue
                msg = self._take(conn, gate, message.get("text"))
                if msg is STOP:
                    # The frames already queued go out first, then the close.
                    conn.close(POLICY_VIOLATION, "rate limit")
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(asyncio.shield(writer), 5)
                    return
                if msg is not None:
                    await self._dispatch(conn, msg)
                if writer.done():
                    break
        except Exception:  # a broken socket ends this connection only
            log.debug("connection ended", exc_info=True)
        finally:
            waits(False)
            self.open.pop(conn, None)
            if conn.dropped:
                self.counts["dropped_slow"] += 1
                log.info("dropped a socket that read too slowly (%s)", conn.close_reason)
            await self.desk.leave(conn)
            self._status(conn, gone=True)
            if conn.watcher and conn.owner is not None:
                self._unwatch(conn.owner.table_id)
            if conn.owner is not None:
                conn.owner.detach(conn)
            if not conn.closing or conn.closed_now:
                writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(writer, 5)

    def _take(self, conn: Connection, gate: Gate, raw: str | None) -> Any:
        """A message's checks (the rate, text not binary, the schema) and, at a table, its
        handling, which never waits. Returns a message still to dispatch (before the hello:
        its handling may wait on the club), ``STOP`` once the rate's strikes are spent, or
        None."""
        if not gate.take():
            gate.strikes += 1
            if gate.strikes > self.server.config.strikes:
                return STOP
            peek = _peek_id(raw) if raw is not None else None
            conn.push(error_frame("rate_limited", "too many messages: slow down", peek))
            return None
        if raw is None:
            conn.push(error_frame("malformed", "messages are JSON in text frames, not binary"))
            return None
        try:
            msg = parse(raw)
        except ProtocolError as exc:
            conn.push(error_frame(exc.code, exc.message, exc.cid))
            return None
        if conn.owner is not None:
            self._at_table(conn, msg)
            return None
        return msg

    def _at_once(self, conn: Connection, gate: Gate, raw: str) -> bool:
        """A message handled on uvicorn's callback (``direct_reader``): only at a table, where
        nothing waits; False leaves it to the reader task."""
        if conn.owner is None or conn.closing:
            return False
        try:
            if self._take(conn, gate, raw) is STOP:
                conn.close(POLICY_VIOLATION, "rate limit")  # the reader then sees the close
        except Exception:  # as on the reader task: this connection ends, nothing else
            log.exception("a message could not be handled")
            conn.close(INTERNAL_ERROR, "internal error")
        return True

    async def _who(self, conn: Connection, token: str) -> tuple[str, str] | None:
        """(guest, nickname) of a token, or None once the connection was told why not:
        expired, not ours, or of an account's session that has ended. The connection speaks
        for that guest and session from here (``sessions_ended`` closes it with them).

        A session may end while the database is asked about it; the answer is then asked
        again, so that a socket never outlives an ending it was too early to hear of."""
        assert self.server.club is not None
        try:
            while True:
                endings = self.endings
                checked = await self.server.club.check_token(token)
                if endings == self.endings:
                    break
        except HttpError as exc:
            conn.push(error_frame(exc.code, exc.message))
            return None
        conn.guest, conn.session = checked.guest, checked.session
        conn.muted = frozenset(await self.server.club.mod_rows.blocked_by(checked.guest))
        return checked.guest, checked.nickname

    def sessions_ended(self, guest: str, session: str | None, keep: str | None) -> int:
        """Close (1008, ``logged_out``) this node's sockets of ``guest`` that spoke for
        ``session`` (None: for any session or none, but ``keep``); how many. Called for a
        logout or a new password on this node, and for one on another node (the bus)."""
        self.endings += 1
        closed = 0
        for conn in list(self.open):
            if conn.guest != guest or conn.cut:
                continue
            if session is not None and conn.session != session:
                continue
            if keep is not None and conn.session == keep:
                continue
            conn.end(POLICY_VIOLATION, LOGGED_OUT)
            closed += 1
        self.counts["ended_sessions"] += closed
        return closed

    def stats(self) -> dict[str, int]:
        """The open sockets, and those closed for reading too slowly or for an ended session
        since the start (``/api/stats``)."""
        return {"open": len(self.open), **self.counts}

    def _status(self, conn: Connection, gone: bool = False) -> None:
        if self.on_status is not None and conn.session is not None:
            self.on_status(conn, gone)

    async def _listen(self, conn: Connection, msg: Notices) -> None:
        """``notices``: the socket gets its account's notices and friends' presence."""
        who = await self._who(conn, msg.token)
        if who is None or conn.closing:
            return
        if conn.session is None:
            conn.push(error_frame("account_needed", "notices and friends need an account"))
            return
        if self.on_listen is not None:
            try:
                await self.on_listen(conn)
            except Exception:
                log.warning("the notices could not be read", exc_info=True)
                conn.push(error_frame("unavailable", "the notices cannot be read now: try again"))

    def _unwatch(self, table_id: str) -> None:
        self.spectators[table_id] -= 1
        if self.spectators[table_id] <= 0:
            del self.spectators[table_id]

    async def _dispatch(self, conn: Connection, msg: ClientMessage) -> None:
        """A message of a socket not at a table yet: the club's, the hello, a ping."""
        match msg:
            case Lobby() | Queue() | Unqueue():
                await self.desk.take(conn, msg)
            case Hello():
                await self._hello(conn, msg)
            case Notices():
                await self._listen(conn, msg)
            case Ping():
                conn.push(frame({"type": "pong", "id": msg.id, "ts": time.time()}))
            case _:
                conn.push(
                    error_frame(
                        "unauthenticated", "say hello (token and table) first",
                        getattr(msg, "id", None),
                    )
                )  # fmt: skip

    async def _hello(self, conn: Connection, msg: Hello) -> None:
        """``hello``: the socket speaks for the token's guest at the table, as a player or a
        spectator (within the cap), and gets its sync from the table's owner."""
        server = self.server
        assert server.identity is not None and server.lobby is not None
        who = await self._who(conn, msg.token)
        if who is None:
            return
        try:
            # A finished table that left memory comes back from its log for the hello.
            owner = await server.lobby.join(msg.table)
        except TableError as exc:
            conn.push(error_frame(exc.code, exc.message))
            return
        if conn.closing:  # its session ended meanwhile
            return
        # From here to ``attach`` nothing yields: the table cannot leave memory in between.
        watcher = msg.role == "spectator"
        cap = self.limits.max_spectators
        if watcher and cap and self.spectators[owner.table_id] >= cap:
            conn.push(
                error_frame("too_many_spectators", f"this table has {cap} spectators already")
            )
            return
        if watcher:
            self.spectators[owner.table_id] += 1
        conn.nickname = who[1]
        conn.watcher = watcher
        conn.owner = owner
        if conn.in_lobby and server.board is not None:  # at a table, the lobby is left
            conn.in_lobby = False
            server.board.unsubscribe(conn.push)
        fresh = server.identity.renewal(msg.token)
        if fresh is not None:
            # Before the sync (which the table's owner sends): keep it in place of the old.
            conn.push(frame({"type": "token", "token": fresh}))
        owner.attach(conn, msg.last_seq)
        self._status(conn)

    @staticmethod
    def _at_table(conn: Connection, msg: ClientMessage) -> None:
        """A message of a socket at a table: nothing here waits (``Sockets._at_once``)."""
        owner = conn.owner
        assert owner is not None
        match msg:
            case Lobby() | Queue() | Unqueue() | Notices():
                conn.push(error_frame("already_joined", "this connection is at a table already"))
                return
            case Hello():
                conn.push(error_frame("already_joined", "this connection has joined a table"))
                return
            case Ping():
                conn.push(frame({"type": "pong", "id": msg.id, "ts": time.time()}))
                return
            case Sync():
                owner.sync(conn, msg.last_seq)
                return
            case _ if conn.watcher:
                conn.push(error_frame("spectator", "spectators only watch", msg.id))
                return
            case Sit(nickname=str() as nickname):
                try:
                    conn.nickname = checked_nickname(nickname)
                except ValueError as exc:  # its form, or a bot's name (reserved_name)
                    code = getattr(exc, "code", "bad_nickname")
                    conn.push(error_frame(code, str(exc), msg.id))
                    return
        if isinstance(msg, Sit):
            # The table seats him by the name checked here (his own, or the one he gave).
            msg = msgspec.structs.replace(msg, nickname=conn.nickname)
        owner.command(conn, msg)

    async def drain(self, code: int = GOING_AWAY, reason: str = "server shutting down") -> None:
        """Close every socket with ``code`` after the frames already queued for it."""
        self.closing = True
        self.keepalive.close()
        writers = []
        for conn, writer in list(self.open.items()):
            conn.close(code, reason)
            writers.append(writer)
        if writers:
            await asyncio.wait(writers, timeout=5)
