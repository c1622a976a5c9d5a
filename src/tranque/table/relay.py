"""``Relay``: a node's half of the tables it does not own, and the stand-ins of connections that
other nodes hold at the tables it does.

Two directions, one object per node:

- A socket here at a table owned elsewhere talks to a ``RemoteTable`` instead of the table's
  owner; the ``RemoteTable`` forwards the hello, the commands, the syncs and the goodbye over the
  bus to the owner's node, in order.
- There, each such connection is a ``RemoteSubscriber`` in the owner's list of subscribers, as
  good as a local socket: the owner renders its frames exactly as for one (so every recipient
  gets the same bytes, with the same sequence numbers, as on a single node), and the stand-in
  sends them back. The frames of one turn of the loop go to each node as one message.

When something is lost in between (the owner's node died, the table moved, the bus lost a
message) the relay does not try to patch the stream: it closes the sockets concerned with 1001,
and each client reconnects (to any node), says its ``last_seq``, and gets from the table's
current owner exactly what it missed. Commands are applied at most once across all of it: the
client resends them with their ids, and the table's replies are part of its state.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from tranque.table.bus import (
    Body,
    Bus,
    Close,
    Envelope,
    Frames,
    Moved,
    Pushed,
    SessionsEnded,
    ToOwner,
)
from tranque.table.messages import TableCommand
from tranque.table.owner import GOING_AWAY
from tranque.table.ports import Subscriber

if TYPE_CHECKING:
    from tranque.table.owner import TableOwner


class Owners(Protocol):
    """Where the relay finds the tables this node owns: the lobby (``table.lobby``), which
    makes the relay and passes itself. A protocol, so that the relay does not import the lobby
    that imports it."""

    @property
    def owners(self) -> dict[str, TableOwner]: ...


log = logging.getLogger("tranque.relay")

MOVED = "the table moved to another node: reconnect"
LOST = "the connection to the table's node was lost: reconnect"


class RemoteSubscriber:
    """On the owner's node: a connection held by another node."""

    __slots__ = ("conn", "guest", "muted", "nickname", "node", "relay", "watcher")

    def __init__(
        self,
        relay: Relay,
        node: str,
        conn: int,
        guest: str | None,
        watcher: bool,
        nickname: str | None = None,
        muted: tuple[str, ...] = (),
    ) -> None:
        self.relay, self.node, self.conn = relay, node, conn
        self.guest, self.watcher, self.nickname = guest, watcher, nickname
        self.muted = frozenset(muted)  # the phrases of these guests are not sent to it

    def push(self, frame: bytes) -> None:
        self.relay._outgoing(self.node, self.conn, frame)

    def close(self, code: int, reason: str) -> None:
        self.relay._forget_remote(self.node, self.conn)
        self.relay._flush_to(self.node)
        self.relay.bus.send(self.node, Close(self.conn, code, reason))


class RemoteTable:
    """On a relay node: a table owned by ``node``, with the connections here that are at it.
    It answers what ``server.ws`` asks of a table's owner."""

    def __init__(self, relay: Relay, table_id: str, node: str) -> None:
        self.relay = relay
        self.table_id = table_id
        self.node = node
        self.conns: dict[int, Subscriber] = {}
        self.ids: dict[Subscriber, int] = {}

    def _send(self, sub: Subscriber, kind: str, **fields: Any) -> None:
        conn = self.ids.get(sub)
        if conn is None:
            return
        self.relay.bus.send(self.node, ToOwner(self.table_id, kind, conn, **fields))

    def attach(self, sub: Subscriber, last_seq: int | None) -> None:
        conn = next(self.relay._conn_ids)
        self.conns[conn] = sub
        self.ids[sub] = conn
        self.relay._local[conn] = (sub, self)
        self._send(
            sub,
            "attach",
            guest=sub.guest,
            watcher=sub.watcher,
            last_seq=last_seq,
            nickname=getattr(sub, "nickname", None),
            muted=tuple(getattr(sub, "muted", ())),
        )

    def command(self, sub: Subscriber, msg: TableCommand) -> None:
        self._send(sub, "cmd", msg=msg)

    def sync(self, sub: Subscriber, last_seq: int | None) -> None:
        self._send(sub, "sync", last_seq=last_seq)

    def detach(self, sub: Subscriber) -> None:
        self._send(sub, "detach")
        self._drop(sub)

    def _drop(self, sub: Subscriber) -> None:
        conn = self.ids.pop(sub, None)
        if conn is not None:
            self.conns.pop(conn, None)
            self.relay._local.pop(conn, None)
        if not self.conns and self.relay.remote_tables.get(self.table_id) is self:
            del self.relay.remote_tables[self.table_id]

    def close_all(self, reason: str) -> None:
        for sub in list(self.conns.values()):
            self._drop(sub)
            sub.close(GOING_AWAY, reason)


class Relay:
    def __init__(self, bus: Bus, lobby: Owners) -> None:
        self.bus = bus
        self.lobby = lobby
        self.node = bus.node
        self.remote_tables: dict[str, RemoteTable] = {}
        self._local: dict[int, tuple[Subscriber, RemoteTable]] = {}
        self._conn_ids = itertools.count(1)
        self._remote: dict[tuple[str, int], tuple[RemoteSubscriber, Any]] = {}
        self._outbox: dict[str, list[tuple[int, bytes]]] = {}
        self._flushing = False
        self.counts = {"forwarded": 0, "delivered": 0, "gaps": 0, "moved": 0}
        # The server's: close this node's sockets of sessions that ended on another node.
        self.on_sessions_ended: Callable[[SessionsEnded], None] | None = None
        # The server's: a frame for some people's sockets on this node (notices, presence).
        self.on_pushed: Callable[[Pushed], None] | None = None

    def remote_table(self, table_id: str, node: str) -> RemoteTable:
        rt = self.remote_tables.get(table_id)
        if rt is None or rt.node != node:
            if rt is not None:
                rt.close_all(MOVED)
            rt = RemoteTable(self, table_id, node)
            self.remote_tables[table_id] = rt
        return rt

    def moved(self, table_id: str, node: str | None) -> None:
        """``table_id`` is owned by ``node`` now: the connections here that reach it through
        another node reconnect."""
        rt = self.remote_tables.get(table_id)
        if rt is not None and rt.node != node:
            self.counts["moved"] += 1
            rt.close_all(MOVED)

    def peers(self) -> set[str]:
        """The nodes this one exchanges frames with now."""
        return {rt.node for rt in self.remote_tables.values()} | {k[0] for k in self._remote}

    def announce(self, table_id: str, node: str | None) -> None:
        """Tell every node who owns ``table_id`` now."""
        self.bus.broadcast(Moved(table_id, node))

    # -- frames going out to other nodes ----

    def _outgoing(self, node: str, conn: int, frame: bytes) -> None:
        box = self._outbox.get(node)
        if box is None:
            box = self._outbox[node] = []
        box.append((conn, frame))
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = False
        for node in list(self._outbox):
            self._flush_to(node)

    def _flush_to(self, node: str) -> None:
        items = self._outbox.pop(node, None)
        if items:
            self.counts["delivered"] += len(items)
            self.bus.send(node, Frames(items))

    def _forget_remote(self, node: str, conn: int) -> None:
        self._remote.pop((node, conn), None)

    # -- what the bus brings ----

    def received(self, envelope: Envelope) -> None:
        self._mind_the_gap(envelope)
        body: Body = envelope.body
        match body:
            case ToOwner():
                self._to_owner(envelope.sender, body)
            case Frames(items=items):
                for conn, frame in items:
                    held = self._local.get(conn)
                    if held is not None:
                        held[0].push(frame)
            case Close(conn=conn, code=code, reason=reason):
                held = self._local.get(conn)
                if held is not None:
                    sub, rt = held
                    rt._drop(sub)
                    sub.close(code, reason)
            case Moved(table=table, node=node):
                self.moved(table, node)
            case SessionsEnded():
                if self.on_sessions_ended is not None:
                    self.on_sessions_ended(body)
            case Pushed():
                if self.on_pushed is not None:
                    self.on_pushed(body)

    def _mind_the_gap(self, envelope: Envelope) -> None:
        """A message from the sender was lost: what went through it starts afresh (the
        message itself is handled as usual; the count goes on from it)."""
        if self.bus.counters.gap(envelope):
            self.counts["gaps"] += 1
            log.warning(
                "messages from node %s were lost (got %s %d): reconnecting",
                envelope.sender,
                envelope.life,
                envelope.n,
            )
            self._sever(envelope.sender, tell=True)

    def _to_owner(self, node: str, msg: ToOwner) -> None:
        self.counts["forwarded"] += 1
        key = (node, msg.conn)
        if msg.kind == "attach":
            owner = self.lobby.owners.get(msg.table)
            if owner is None or owner.closed is not None:
                # Not (or no longer) here: the relay's client reconnects and asks again.
                self.bus.send(node, Close(msg.conn, GOING_AWAY, MOVED))
                return
            sub = RemoteSubscriber(
                self, node, msg.conn, msg.guest, msg.watcher, msg.nickname, msg.muted
            )
            self._remote[key] = (sub, owner)
            owner.attach(sub, msg.last_seq)
            return
        held = self._remote.get(key)
        if held is None:
            if msg.kind != "detach":
                self.bus.send(node, Close(msg.conn, GOING_AWAY, MOVED))
            return
        sub, owner = held
        if msg.kind == "cmd" and msg.msg is not None:
            owner.command(sub, msg.msg)
        elif msg.kind == "sync":
            owner.sync(sub, msg.last_seq)
        elif msg.kind == "detach":
            del self._remote[key]
            owner.detach(sub)

    def unreachable(self, node: str) -> None:
        """``node`` is gone: the connections here at its tables reconnect, and its stand-ins
        leave the tables here (their seats go away as a closed socket's would)."""
        self._sever(node, tell=False)

    def _sever(self, node: str, *, tell: bool) -> None:
        for rt in [rt for rt in self.remote_tables.values() if rt.node == node]:
            rt.close_all(LOST)
        self._outbox.pop(node, None)
        for key in [k for k in self._remote if k[0] == node]:
            sub, owner = self._remote.pop(key)
            owner.detach(sub)
            if tell:  # the node is alive: its socket must reconnect too
                self.bus.send(node, Close(key[1], GOING_AWAY, LOST))

    def bus_lost(self) -> None:
        """The bus failed: every connection that went through it starts afresh."""
        log.warning("the bus lost messages: connections through other nodes start afresh")
        for rt in list(self.remote_tables.values()):
            rt.close_all(LOST)
        self._outbox.clear()
        for key in list(self._remote):
            sub, owner = self._remote.pop(key)
            owner.detach(sub)
        self.bus.counters.reset()

    def stats(self) -> dict[str, Any]:
        return {
            "remote_tables": len(self.remote_tables),
            "remote_connections": len(self._remote),
            **self.counts,
        }
