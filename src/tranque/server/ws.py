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
import re
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.websockets import WebSocket

from tranque.club.matching import NEUTRAL_RATING, Ticket
from tranque.club.ports import QueueError
from tranque.server.connection import GOING_AWAY, INTERNAL_ERROR, POLICY_VIOLATION, Connection
from tranque.server.direct import direct_closer, direct_reader, direct_writer
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
from tranque.table.owner_frames import frame
from tranque.table.service import TableError
from tranque.table.stakes import ChipError, TooFewChips, check_stake, cost

if TYPE_CHECKING:
    from tranque.server.app import Server

log = logging.getLogger("tranque.server")

PARTY = re.compile(r"^[A-Za-z0-9_-]{8,64}$")  # what ``POST /api/parties`` gives
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
        self.counts = {"dropped_slow": 0, "ended_sessions": 0}
        self.endings = 0  # sessions ended as told to this node (``sessions_ended``)

    @property
    def limits(self) -> Limits:
        return self.server.config.limits

    async def serve(self, ws: WebSocket) -> None:
        if self.closing:
            await ws.close(code=GOING_AWAY)
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
        conn = Connection(ws, cfg.queue_bytes, direct_writer(ws.scope), direct_closer(ws.scope))
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
            await self._leave_club(conn)
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

    async def _leave_club(self, conn: Connection) -> None:
        """A closed socket leaves the lobby and the queue: closing the page is leaving."""
        server = self.server
        if conn.in_lobby and server.board is not None:
            conn.in_lobby = False
            server.board.unsubscribe(conn.push)
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
                await server.board.subscribe(conn.push)
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
        conn.nickname = who[1]
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
