"""``RedisBus``: the ``Bus`` port (``table.bus``) on Redis pub/sub, for nodes on many machines.

Each node listens on its own channel and on one channel for every node; everything is under
``tranque:<namespace>:``, the namespace being a hash of the database URL, so that two clusters
sharing a Redis (tests, staging) never hear each other. Publishes go out through one connection,
in the order they were sent, pipelined: the messages of one turn of the loop cost one round trip.

Redis keeps none of this: a message published while a node is not listening is gone. The bus
says so instead of hiding it: PUBLISH answers how many listened, and zero means the node is
gone (``Receiver.unreachable``); a failed publish or a broken subscription means anything may
have been lost (``Receiver.bus_lost``), and the relay makes the sockets concerned reconnect and
resync from the owner. Retries are off for the same reason: a publish retried after an error
could arrive twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections import deque
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from tranque.table.bus import Body, Counters, Envelope, Receiver, decode, encode

log = logging.getLogger("tranque.bus")

RECONNECT = (0.2, 0.5, 1.0, 2.0)  # seconds between tries to subscribe again


def namespace(db_url: str) -> str:
    """The cluster's name on Redis: the same database, the same cluster."""
    return hashlib.sha256(db_url.encode()).hexdigest()[:12]


class RedisBus:
    def __init__(self, url: str, node: str, ns: str) -> None:
        self.url = url
        self.node = node
        self.prefix = f"tranque:{ns}:"
        self.counters = Counters()
        self._receiver: Receiver | None = None
        self._client: Any = None
        self._out: deque[tuple[str, str | None, bytes]] = deque()  # channel, node, data
        self._flusher: asyncio.Task[None] | None = None
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self._conn: Any = None  # the publishing connection (``_publish``)
        self._ok = False

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
        data = encode(Envelope(self.node, self.counters.life, self.counters.next(node), body))
        self._queue(self._channel(node), node, data)

    def broadcast(self, body: Body) -> None:
        self._queue(self._all, None, encode(Envelope(self.node, self.counters.life, 0, body)))

    def _queue(self, channel: str, node: str | None, data: bytes) -> None:
        self._out.append((channel, node, data))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="bus publisher")

    async def _flush(self) -> None:
        while self._out:
            batch = list(self._out)
            self._out.clear()
            try:
                heard = await self._publish(batch)
            except Exception:
                log.warning("publishing on Redis failed: messages between nodes were lost")
                self._lost()
                continue
            gone = {node for (_, node, _), n in zip(batch, heard, strict=True) if node and not n}
            for node in gone:
                if self._receiver is not None:
                    self._receiver.unreachable(node)

    async def _publish(self, batch: list[tuple[str, str | None, bytes]]) -> list[int]:
        """PUBLISH each message, written at once on the bus's own connection, then read the
        answers in order. The connection is held, not taken from the pool each time: redis-py's
        pipeline (a checkout, retries, metrics) was most of a message's cost."""
        conn = self._conn
        if conn is None:
            conn = self._conn = await self._client.connection_pool.get_connection()
        try:
            packed = conn.pack_commands([("PUBLISH", ch, data) for ch, _, data in batch])
            await conn.send_packed_command(packed, check_health=False)
            return [int(await conn.read_response()) for _ in batch]
        except BaseException:
            self._conn = None
            with contextlib.suppress(Exception):
                await conn.disconnect()
            raise

    async def reachable(self, node: str) -> bool:
        try:
            counts = await self._client.pubsub_numsub(self._channel(node))
        except Exception:
            return False
        return bool(counts and counts[0][1])

    # -- listening ----

    async def _listen(self) -> None:
        failures = 0
        while True:
            pubsub = self._client.pubsub()
            try:
                await pubsub.subscribe(self._channel(self.node), self._all)
                confirmed = 0
                while True:
                    msg = await pubsub.get_message(timeout=5.0)
                    if msg is None:
                        await pubsub.ping()  # a dead connection shows here rather than never
                        continue
                    kind = msg["type"]
                    if kind == "subscribe":
                        confirmed += 1
                        if confirmed > 2:
                            # The client subscribed again by itself: it had lost the connection.
                            raise ConnectionError("the subscription was renewed behind our back")
                        if confirmed == 2:
                            failures = 0
                            self._ok = True
                            self._subscribed.set()
                        continue
                    if kind == "message" and self._receiver is not None:
                        try:
                            envelope = decode(msg["data"])
                        except Exception:
                            log.warning("a message on the bus could not be read; ignored")
                            continue
                        if envelope.sender != self.node:
                            self._receiver.received(envelope)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                raise
            except Exception as exc:
                log.warning("the Redis subscription broke (%s); subscribing again", exc)
                self._ok = False
                self._lost()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                await asyncio.sleep(RECONNECT[min(failures, len(RECONNECT) - 1)])
                failures += 1

    def _lost(self) -> None:
        self._out.clear()
        if self._receiver is not None:
            self._receiver.bus_lost()

    async def close(self) -> None:
        if self._flusher is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._flusher, 2)
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.disconnect()
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()
