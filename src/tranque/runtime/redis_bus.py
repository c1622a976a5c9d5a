"""``RedisBus``: the ``Bus`` port (``table.bus``) on Redis pub/sub, for nodes on many machines.

Each node listens on its own channel and on one channel for every node; everything is under
``tranque:<namespace>:``, the namespace being a hash of the database URL, so that two clusters
sharing a Redis (tests, staging) never hear each other. Publishes go out through one connection,
in the order they were sent: the messages of one turn of the loop (of a few milliseconds with a
``linger``) are one write, and nothing waits for their answers, which come back in order to a
callback (``runtime.resp``). A write to Redis costs a node about as much CPU as the frames of a
move to its own sockets, so the linger is what brings a move across nodes near a move on one
(docs/deploy.md has both figures).

Redis keeps none of this: a message published while a node is not listening is gone. The bus
says so instead of hiding it: PUBLISH answers how many listened, and zero means the node is
gone (``Receiver.unreachable``); a lost publishing connection with messages in flight, an error
answer, or a broken subscription means anything may have been lost (``Receiver.bus_lost``), and
the relay makes the sockets concerned reconnect and resync from the owner. Nothing is retried
for the same reason: a publish retried after an error could arrive twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections import deque
from typing import Any

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from tranque.runtime.resp import RespProtocol, connect, pack
from tranque.table.bus import Body, Counters, Envelope, Frames, Receiver, decode, encode

log = logging.getLogger("tranque.bus")

RECONNECT = (0.2, 0.5, 1.0, 2.0)  # seconds between tries to subscribe again
KEEPALIVE = 5.0  # a PING on the subscription this often; no answer by the next one: broken
MAX_BUFFERED = 32 * 1024 * 1024  # bytes of publishes Redis has not taken: it is not keeping up


def namespace(db_url: str) -> str:
    """The cluster's name on Redis: the same database, the same cluster."""
    return hashlib.sha256(db_url.encode()).hexdigest()[:12]


class RedisBus:
    def __init__(self, url: str, node: str, ns: str, linger: float = 0.0) -> None:
        self.url = url
        self.node = node
        self.linger = linger  # seconds a message waits for others to share its write
        self.prefix = f"tranque:{ns}:"
        self.counters = Counters()
        self._receiver: Receiver | None = None
        self._client: Any = None  # redis-py, for the rare calls (``reachable``)
        self._own = self._channel(node).encode()
        self._everyone = self._all.encode()
        # This turn's (or linger's) messages, each with its channel, packed at the flush (a
        # ``Frames`` message stays open to more frames for its node until then); and the node
        # each is for (None: everyone).
        self._out: list[tuple[bytes, Envelope]] = []
        self._out_nodes: list[str | None] = []
        self._open: dict[str, list[tuple[int, bytes]]] = {}  # node -> its open message's items
        self._scheduled = False
        self._pub: RespProtocol | None = None
        self._connecting: asyncio.Task[None] | None = None
        self._answers: deque[str | None] = deque()  # the publishes not yet answered, in order
        self._channels: dict[str, bytes] = {}  # each node's channel, encoded once
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self._sub: RespProtocol | None = None
        self._confirmed = 0
        self._pinged = False
        self._failures = 0
        self._ok = False
        self._closed = False
        self._drained: asyncio.Event | None = None  # set when the last publish is answered

    def _channel(self, node: str) -> str:
        return f"{self.prefix}node:{node}"

    @property
    def _all(self) -> str:
        return f"{self.prefix}all"

    async def start(self, receiver: Receiver) -> None:
        self._receiver = receiver
        self._client = aioredis.Redis.from_url(self.url, retry=Retry(NoBackoff(), 0))
        if await self.reachable(self.node):
            # Two nodes of one name would each take the other's messages.
            raise RuntimeError(f"a node named {self.node!r} is already running in this cluster")
        self._listener = asyncio.create_task(self._listen(), name="bus listener")
        # A node serves only once it hears the others (or gives up waiting and says so).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._subscribed.wait(), 10)
        if not self._ok:
            log.error("cannot subscribe on Redis at %s: serving, not ready", self.url)

    @property
    def healthy(self) -> bool:
        return self._ok

    # -- sending ----

    def send(self, node: str, body: Body) -> None:
        """Queue ``body`` for ``node``. Frames for a node whose last queued message is frames
        join that message: what one node sends another within a linger is one message (one
        envelope to decode, one PUBLISH for Redis), in the same order as sent."""
        channel = self._channels.get(node)
        if channel is None:
            channel = self._channels[node] = self._channel(node).encode()
        if type(body) is Frames:
            items = self._open.get(node)
            if items is not None:
                items.extend(body.items)
                return
            body = Frames(list(body.items))  # its own list: later frames are added to it
            self._open[node] = body.items
        else:
            self._open.pop(node, None)  # what comes after this message goes after it
        envelope = Envelope(self.node, self.counters.life, self.counters.next(node), body)
        self._queue(channel, envelope, node)

    def broadcast(self, body: Body) -> None:
        self._open.clear()  # nothing sent before it is held back to go after it
        self._queue(self._everyone, Envelope(self.node, self.counters.life, 0, body), None)

    def _queue(self, channel: bytes, envelope: Envelope, node: str | None) -> None:
        self._out.append((channel, envelope))
        self._out_nodes.append(node)
        if not self._scheduled:
            self._scheduled = True
            if self.linger:
                asyncio.get_running_loop().call_later(self.linger, self._flush)
            else:
                asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        """Write this turn's publishes at once; their answers come to ``_answered``."""
        self._scheduled = False
        pub = self._pub
        if pub is None:
            if self._connecting is None and not self._closed:
                self._connecting = asyncio.create_task(self._connect(), name="bus publisher")
            return  # written once connected, or dropped (bus lost) if it cannot connect
        if not self._out:
            return
        if pub.buffered() > MAX_BUFFERED:
            log.warning("Redis is not taking the bus's messages: they were lost")
            pub.close()  # ``_publisher_lost`` says what was lost
            return
        self._answers.extend(self._out_nodes)
        data = b"".join(pack(b"PUBLISH", channel, encode(env)) for channel, env in self._out)
        self._forget_queued()
        pub.write(data)

    async def _connect(self) -> None:
        try:
            pub = await connect(self.url, self._answered, self._publisher_lost)
        except (OSError, TimeoutError) as exc:
            log.warning("cannot publish on Redis (%s): messages between nodes were lost", exc)
            self._lost()
        else:
            self._pub = pub
        finally:
            self._connecting = None
        if self._out and self._pub is not None:
            self._flush()

    def _answered(self, reply: Any) -> None:
        node = self._answers.popleft() if self._answers else None
        if not self._answers and self._drained is not None:
            self._drained.set()
        if isinstance(reply, hiredis.ReplyError):
            log.warning("Redis refused a message between nodes (%s): it was lost", reply)
            self._lost()
        elif node is not None and reply == 0 and self._receiver is not None:
            self._receiver.unreachable(node)

    def _publisher_lost(self) -> None:
        self._pub = None
        if self._drained is not None:
            self._drained.set()
        if self._answers and not self._closed:
            # Written, not answered: each may or may not have arrived.
            log.warning("the publishing connection to Redis broke: messages may have been lost")
            self._lost()
        self._answers.clear()

    async def reachable(self, node: str) -> bool:
        try:
            counts = await self._client.pubsub_numsub(self._channel(node))
        except Exception:
            return False
        return bool(counts and counts[0][1])

    # -- listening ----

    async def _listen(self) -> None:
        """Keep one subscription up: subscribe, PING it while it lasts, subscribe again."""
        loop = asyncio.get_running_loop()
        while True:
            ended: asyncio.Future[None] = loop.create_future()

            def lost(ended: asyncio.Future[None] = ended) -> None:
                if not ended.done():
                    ended.set_result(None)

            try:
                sub = await connect(self.url, self._heard, lost)
            except (OSError, TimeoutError) as exc:
                log.warning("cannot subscribe on Redis (%s); trying again", exc)
            else:
                self._sub, self._confirmed, self._pinged = sub, 0, False
                sub.write(pack(b"SUBSCRIBE", self._own, self._everyone))
                try:
                    while not ended.done():
                        await asyncio.wait([ended], timeout=KEEPALIVE)
                        if ended.done():
                            break
                        if self._pinged:  # the last PING had no answer: the link is dead
                            log.warning("the Redis subscription stopped answering")
                            sub.close()
                            break
                        self._pinged = True
                        sub.write(pack(b"PING"))
                except asyncio.CancelledError:
                    sub.close()
                    raise
                self._sub = None
                log.warning("the Redis subscription broke; subscribing again")
            self._ok = False
            self._lost()  # whatever was published meanwhile was not heard
            await asyncio.sleep(RECONNECT[min(self._failures, len(RECONNECT) - 1)])
            self._failures += 1

    def _heard(self, reply: Any) -> None:
        self._pinged = False
        if type(reply) is not list:  # a subscribed connection answers in lists, or refuses
            if isinstance(reply, hiredis.ReplyError):
                log.error("Redis refused the subscription: %s", reply)
                if self._sub is not None:
                    self._sub.close()
            return
        kind = reply[0]
        if kind == b"message":
            if self._receiver is None:
                return
            try:
                envelope = decode(reply[2])
            except Exception:
                log.warning("a message on the bus could not be read; ignored")
                return
            if envelope.sender != self.node:
                self._receiver.received(envelope)
        elif kind == b"subscribe":
            self._confirmed += 1
            if self._confirmed == 2:
                self._failures = 0
                self._ok = True
                self._subscribed.set()

    def _forget_queued(self) -> None:
        self._out.clear()
        self._out_nodes.clear()
        self._open.clear()

    def _lost(self) -> None:
        self._forget_queued()
        if self._receiver is not None and not self._closed:
            self._receiver.bus_lost()

    async def close(self) -> None:
        self._closed = True
        if self._out and self._pub is not None:
            self._flush()  # the last turn's messages (a drain's) go out before the link closes
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        if self._connecting is not None:
            self._connecting.cancel()
        pub = self._pub
        if pub is not None and pub.transport is not None:
            if self._answers:  # let Redis take what was written: a drain's last Moved
                self._drained = asyncio.Event()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._drained.wait(), 2)
            pub.transport.close()
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()
