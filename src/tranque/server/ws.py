"""The WebSocket edge: one ``Connection`` per socket, its rate bucket, and the socket loop.

The loop parses, authenticates and forwards; every decision is the table owner's. The caps
that concern sockets live here: sockets per client address, spectators per table, and the
Origin of a browser's socket. ``Sockets.drain`` closes every socket with 1001 (going away) on a
clean stop, so that clients reconnect to the next server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections import Counter, deque
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.responses import JSONResponse
from starlette.websockets import WebSocket

from tranque.club.matching import NEUTRAL_RATING, Ticket
from tranque.club.ports import QueueError
from tranque.server.direct import DirectWrite, direct_reader, direct_writer
from tranque.server.edge import Limits, client_address, origin_allowed
from tranque.server.http_schemas import HttpError
from tranque.server.keepalive import Keepalive
from tranque.server.protocol import (
    Hello,
    Lobby,
    Ping,
    ProtocolError,
    Queue,
    Sync,
    Unqueue,
    _peek_id,
    parse,
)
from tranque.table.lobby import TableHandle
from tranque.table.owner_frames import frame
from tranque.table.service import TableError
from tranque.table.stakes import ChipError, TooFewChips, check_stake, cost

if TYPE_CHECKING:
    from tranque.server.app import Server

log = logging.getLogger("tranque.server")

PARTY = re.compile(r"^[A-Za-z0-9_-]{8,64}$")  # what ``POST /api/parties`` gives
GOING_AWAY = 1001
POLICY_VIOLATION = 1008
INTERNAL_ERROR = 1011
STOP = object()  # ``Sockets._take``: the socket refused too many messages for its rate


class Connection:
    """One WebSocket: its identity, its table, and the ordered queue of frames to send it.

    The queue is a deque with one waiting future rather than an ``asyncio.Queue``: a frame is
    pushed for every recipient of every event, and the plain deque is the cheaper of the two.
    """

    def __init__(self, ws: WebSocket, limit: int, direct: DirectWrite | None = None) -> None:
        self.ws = ws
        self.direct = direct  # writes a frame now when nothing waits ahead of it (direct.py)
        self.sending = False  # the writer is sending a frame of the queue
        self.guest: str | None = None
        self.nickname = "guest"
        self.watcher = False
        self.owner: TableHandle | None = None  # the table's owner, or its stand-in (relay)
        self.pending: deque[bytes | None] = deque()
        self._idle: asyncio.Future[None] | None = None  # the writer waits on it when done
        self.limit = limit
        self.dropped = False
        self.closing = False
        self.close_code = POLICY_VIOLATION
        self.close_reason = "too slow"
        self.in_lobby = False  # gets the lobby's listing at every change
        self.queued = False  # waits in the quick-match queue

    def tell(self, obj: dict[str, Any]) -> None:
        """Push a message of the club (the lobby, the queue) to this socket."""
        self.push(frame(obj))

    def push(self, frame_: bytes) -> None:
        if self.closing:
            return
        direct = self.direct
        if direct is not None and not self.pending and not self.sending and direct(frame_):
            return
        if len(self.pending) >= self.limit:
            self.dropped = True
            self.close(POLICY_VIOLATION, "too slow")
            return
        self._put(frame_)

    def _put(self, item: bytes | None) -> None:
        self.pending.append(item)
        idle = self._idle
        if idle is not None and not idle.done():
            idle.set_result(None)

    def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close with ``code``."""
        if self.closing:
            return
        self.closing = True
        self.close_code, self.close_reason = code, reason
        self._put(None)

    async def write_loop(self) -> None:
        send = self.ws.send
        pending = self.pending
        loop = asyncio.get_running_loop()
        while True:
            while pending:
                item = pending.popleft()
                if item is None:
                    with contextlib.suppress(Exception):
                        await self.ws.close(code=self.close_code, reason=self.close_reason)
                    return
                self.sending = True
                try:
                    await send({"type": "websocket.send", "text": item.decode()})
                finally:
                    self.sending = False
            self._idle = loop.create_future()
            await self._idle
            self._idle = None


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


def error_frame(code: str, message: str, cid: str | None = None) -> bytes:
    return frame({"type": "error", "id": cid, "code": code, "message": message})


class Sockets:
    """Every open socket of the server, counted by client address and by watched table."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.open: dict[Connection, asyncio.Task[None]] = {}
        self.per_address: Counter[str] = Counter()
        self.spectators: Counter[str] = Counter()
        self.closing = False
        self.keepalive = Keepalive(server.config.ws_ping)  # one timer pings every socket

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
        conn = Connection(ws, cfg.queue_limit, direct_writer(ws.scope))
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
            await self._leave_club(conn)
            if conn.watcher and conn.owner is not None:
                self._unwatch(conn.owner.table_id)
            if conn.owner is not None:
                conn.owner.detach(conn)
            if not conn.closing:
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

    async def _leave_club(self, conn: Connection) -> None:
        """A closed socket leaves the lobby and the queue: closing the page is leaving."""
        server = self.server
        if conn.in_lobby and server.board is not None:
            conn.in_lobby = False
            server.board.unsubscribe(conn.tell)
        if conn.queued and server.quick is not None and conn.guest is not None:
            conn.queued = False
            with contextlib.suppress(Exception):
                await server.quick.leave(conn.guest, conn.tell)

    async def _club(self, conn: Connection, msg: Lobby | Queue | Unqueue) -> None:
        """The lobby and the queue: a socket's business before it says hello at a table."""
        server = self.server
        assert server.identity is not None and server.board is not None
        assert server.quick is not None
        if isinstance(msg, Lobby):
            if not conn.in_lobby:
                conn.in_lobby = True
                await server.board.subscribe(conn.tell)
            return
        if isinstance(msg, Unqueue):
            left = conn.queued and conn.guest is not None
            if left:
                assert conn.guest is not None
                left = await server.quick.leave(conn.guest, conn.tell)
            conn.queued = False
            conn.tell({"type": "unqueued", "reason": "left" if left else "not_queued"})
            return
        who = await self._who(conn, msg.token)
        if who is None:
            return
        if msg.party is not None and not PARTY.match(msg.party):
            conn.push(error_frame("bad_party", "a party is the id its link gives"))
            return
        queue = await self._chip_queue(conn, who[0], msg)
        if queue is None:
            return
        ticket = Ticket(
            who[0], who[1], queue, time.time(), msg.party, await self._rating(who[0], msg)
        )
        try:
            queued = await server.quick.join(ticket, conn.tell)
        except QueueError as exc:
            conn.push(error_frame(exc.code, exc.message))
            return
        except Exception:
            log.warning("the quick-match queue could not be reached", exc_info=True)
            conn.push(error_frame("unavailable", "the queue cannot be reached now: try again"))
            return
        conn.guest, conn.nickname = who
        conn.queued = True
        queued["variant"], queued["stake"] = msg.variant, msg.stake
        conn.tell(queued)

    async def _chip_queue(self, conn: Connection, guest: str, msg: Queue) -> str | None:
        """The queue's name: the variant, or ``variant@stake`` for chip tables, once the guest
        is known to cover the stake (else he is told why not, and None)."""
        if msg.stake is None:
            return msg.variant
        chips = self.server.chips
        assert chips is not None
        try:
            need = cost(check_stake(msg.stake))
            have = await chips.balance(guest)
        except ChipError as exc:
            conn.push(error_frame(exc.code, exc.message))
            return None
        if have < need:
            conn.push(error_frame("too_few_chips", TooFewChips(guest, need, have).message))
            return None
        return f"{msg.variant}@{msg.stake}"

    async def _who(self, conn: Connection, token: str) -> tuple[str, str] | None:
        """(guest, nickname) of a token, or None once the connection was told why not:
        expired, not ours, or of an account's session that has ended."""
        assert self.server.club is not None
        try:
            checked = await self.server.club.check_token(token)
        except HttpError as exc:
            conn.push(error_frame(exc.code, exc.message))
            return None
        return checked.guest, checked.nickname

    async def _rating(self, guest: str, msg: Queue) -> float:
        """The guest's rating under the queue's variant (its preset), for seating the closest
        ratings together; the neutral one for a guest not rated yet, or if it cannot be read."""
        club = self.server.club
        try:
            assert club is not None
            skill = (await club.profiles.ratings_of([guest], msg.variant)).get((guest, msg.variant))
        except Exception:
            log.warning("a rating could not be read: queued at the neutral one", exc_info=True)
            return NEUTRAL_RATING
        return NEUTRAL_RATING if skill is None else float(skill.mu)

    def _unwatch(self, table_id: str) -> None:
        self.spectators[table_id] -= 1
        if self.spectators[table_id] <= 0:
            del self.spectators[table_id]

    async def _dispatch(self, conn: Connection, msg: Any) -> None:
        """A message of a socket not at a table yet: the club's, the hello, a ping."""
        server = self.server
        assert server.identity is not None and server.lobby is not None
        if isinstance(msg, (Lobby, Queue, Unqueue)):
            await self._club(conn, msg)
            return
        if isinstance(msg, Hello):
            who = await self._who(conn, msg.token)
            if who is None:
                return
            try:
                # A finished table that left memory comes back from its log for the hello.
                owner = await server.lobby.join(msg.table)
            except TableError as exc:
                conn.push(error_frame(exc.code, exc.message))
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
            conn.guest, conn.nickname = who
            conn.watcher = watcher
            conn.owner = owner
            if conn.in_lobby and server.board is not None:  # at a table, the lobby is left
                conn.in_lobby = False
                server.board.unsubscribe(conn.tell)
            fresh = server.identity.renewal(msg.token)
            if fresh is not None:
                # Before the sync (which the table's owner sends): keep it in place of the old.
                conn.push(frame({"type": "token", "token": fresh}))
            owner.attach(conn, msg.last_seq)
            return
        if isinstance(msg, Ping):
            conn.push(frame({"type": "pong", "id": msg.id, "ts": time.time()}))
            return
        conn.push(
            error_frame(
                "unauthenticated", "say hello (token and table) first", getattr(msg, "id", None)
            )
        )

    @staticmethod
    def _at_table(conn: Connection, msg: Any) -> None:
        """A message of a socket at a table: nothing here waits (``Sockets._at_once``)."""
        owner = conn.owner
        assert owner is not None
        if isinstance(msg, (Lobby, Queue, Unqueue)):
            conn.push(error_frame("already_joined", "this connection is at a table already"))
            return
        if isinstance(msg, Hello):
            conn.push(error_frame("already_joined", "this connection has joined a table"))
            return
        if isinstance(msg, Ping):
            conn.push(frame({"type": "pong", "id": msg.id, "ts": time.time()}))
            return
        if isinstance(msg, Sync):
            owner.sync(conn, msg.last_seq)
            return
        if conn.watcher:
            conn.push(error_frame("spectator", "spectators only watch", getattr(msg, "id", None)))
            return
        body = msgspec.structs.asdict(msg)
        body["type"] = type(msg).__struct_config__.tag
        if body["type"] == "sit":
            body["nickname"] = conn.nickname
        owner.command(conn, body)

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
