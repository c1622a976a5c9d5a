"""The message bus between nodes: the ``Bus`` port and its messages (adapters in ``runtime``).

A table is owned by one node; its players' sockets may be on any node. The node that holds a
socket (the *relay*) forwards what the socket says to the owner's node (``ToOwner``), and the
owner's node sends back the very frames the owner made for that connection (``Frames``), or
tells the relay to close it (``Close``: the table moved, reconnect). ``Moved`` tells every node
that a table has a new owner (or none, for a moment, in a drain); ``SessionsEnded``, that an
account's sessions ended, whose sockets every node closes. ``table.relay`` does all this
on top of the port, so the table service never knows which adapter it runs on.

Two adapters: ``LocalHub`` here (one process: the single-node default, where every table is
local and the bus stays idle, and several nodes in one process for tests of the cluster's logic)
and ``runtime.redis_bus.RedisBus`` (pub/sub, for nodes on many machines). A bus may lose
messages (Redis restarted, a node died): every message between two nodes carries the sender's
life and a counter, and a gap makes the receiver close the sockets concerned, whose clients
reconnect with their ``last_seq`` and get from the owner (from the log) exactly what they
missed. The bus costs latency, never correctness.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Protocol

import msgspec

from tranque.table.messages import TableCommand


class ToOwner(msgspec.Struct, tag="to_owner", frozen=True):
    """A relay's connection says something to a table on the owner's node: ``attach`` (a
    hello, with ``last_seq``), ``cmd`` (a command, ``msg``), ``sync`` or ``detach``."""

    table: str
    kind: str
    conn: int
    guest: str | None = None
    watcher: bool = False
    last_seq: int | None = None
    msg: TableCommand | None = None
    nickname: str | None = None  # a watcher's, for the table's list of spectators
    muted: tuple[str, ...] = ()  # the guests whose phrases the connection does not hear


class Frames(msgspec.Struct, tag="frames", frozen=True):
    """Frames for connections of the receiving node, in order: ``(conn, frame)``."""

    items: list[tuple[int, bytes]]


class Close(msgspec.Struct, tag="close", frozen=True):
    """Close a connection of the receiving node after its frames (``code``: 1001 = reconnect)."""

    conn: int
    code: int
    reason: str


class Moved(msgspec.Struct, tag="moved", frozen=True):
    """To every node: ``table`` is owned by ``node`` now (None: by nobody, for a moment)."""

    table: str
    node: str | None


class SessionsEnded(msgspec.Struct, tag="sessions_ended", frozen=True):
    """To every node: close the sockets of ``guest`` that speak for ``session`` (None: for any
    session but ``keep``). An account logged out (here or everywhere) or changed its password:
    a socket is checked at its ``hello`` only, so without this it would go on for the session."""

    guest: str
    session: str | None = None
    keep: str | None = None


class Pushed(msgspec.Struct, tag="pushed", frozen=True):
    """To every node: push ``frame`` to the sockets of these people that listen for the club's
    news (a notice, a friend's presence). Lost with the bus, it costs nothing durable: notices
    are in the database, and a socket that connects again is sent those not yet read."""

    guests: list[str]
    frame: bytes


Body = ToOwner | Frames | Close | Moved | SessionsEnded | Pushed


class Envelope(msgspec.Struct, frozen=True, array_like=True):
    """What travels: the sender, its life (one per process start) and its counter towards the
    receiver (``n``, from 1 per life; 0 for a broadcast), and the message."""

    sender: str
    life: str
    n: int
    body: Body


encode = msgspec.msgpack.Encoder().encode
decode = msgspec.msgpack.Decoder(Envelope).decode


class Receiver(Protocol):
    """What a bus delivers to (``table.relay.Relay``)."""

    def received(self, envelope: Envelope) -> None:
        """A message for this node (in the order its sender sent them)."""
        ...

    def unreachable(self, node: str) -> None:
        """Nobody listens at ``node`` any more: what was sent to it is lost."""
        ...

    def bus_lost(self) -> None:
        """The bus itself failed (messages may have been lost, in both directions)."""
        ...


class Bus(Protocol):
    node: str
    counters: Counters

    async def start(self, receiver: Receiver) -> None: ...

    def send(self, node: str, body: Body) -> None:
        """Queue a message for ``node``, in order after those sent before; never blocks."""
        ...

    def broadcast(self, body: Body) -> None:
        """Queue a message for every other node."""
        ...

    async def reachable(self, node: str) -> bool:
        """Whether ``node`` listens now (a node that died does not)."""
        ...

    @property
    def healthy(self) -> bool:
        """Connected and delivering (the readiness of ``/healthz``)."""
        ...

    async def close(self) -> None: ...


class Counters:
    """Each sender's counter towards each receiver, and the gaps a receiver sees."""

    def __init__(self) -> None:
        self.life = secrets.token_hex(4)
        self._sent: dict[str, int] = {}
        self._seen: dict[str, tuple[str, int]] = {}

    def next(self, node: str) -> int:
        n = self._sent.get(node, 0) + 1
        self._sent[node] = n
        return n

    def gap(self, envelope: Envelope) -> bool:
        """True if a message from the envelope's sender was lost before this one. A sender's
        new life starts again from 1 (its earlier messages died with it)."""
        if envelope.n == 0:
            return False
        life, n = self._seen.get(envelope.sender, (envelope.life, 0))
        self._seen[envelope.sender] = (envelope.life, envelope.n)
        if life != envelope.life:
            return envelope.n != 1
        return envelope.n != n + 1

    def reset(self) -> None:
        """A new life (after the bus itself failed): every peer starts counting us afresh."""
        self.life = secrets.token_hex(4)
        self._sent.clear()
        self._seen.clear()


class LocalHub:
    """Nodes in one process: ``hub.bus("a")``. Messages are encoded and decoded as on Redis
    (so the types are the same) and delivered on the loop's next turn, in order."""

    def __init__(self) -> None:
        self.receivers: dict[str, Receiver] = {}

    def bus(self, node: str) -> LocalBus:
        return LocalBus(self, node)


class LocalBus:
    def __init__(self, hub: LocalHub, node: str) -> None:
        self.hub = hub
        self.node = node
        self.counters = Counters()

    async def start(self, receiver: Receiver) -> None:
        self.hub.receivers[self.node] = receiver

    def _deliver(self, node: str, data: bytes) -> None:
        receiver = self.hub.receivers.get(node)
        if receiver is None:
            own = self.hub.receivers.get(self.node)
            if own is not None:
                own.unreachable(node)
            return
        receiver.received(decode(data))

    def send(self, node: str, body: Body) -> None:
        data = encode(Envelope(self.node, self.counters.life, self.counters.next(node), body))
        asyncio.get_running_loop().call_soon(self._deliver, node, data)

    def broadcast(self, body: Body) -> None:
        data = encode(Envelope(self.node, self.counters.life, 0, body))
        loop = asyncio.get_running_loop()
        for node in list(self.hub.receivers):
            if node != self.node:
                loop.call_soon(self._deliver, node, data)

    async def reachable(self, node: str) -> bool:
        return node in self.hub.receivers

    @property
    def healthy(self) -> bool:
        return True

    async def close(self) -> None:
        self.hub.receivers.pop(self.node, None)
