"""A Redis connection for the bus's two hot paths: publishing and listening, without awaits.

redis-py does everything the bus needs, and ``RedisBus`` still uses it for the rare calls
(``PUBSUB NUMSUB``). But a message between nodes goes out for nearly every move of a table with
players on two nodes, and through redis-py each one cost a task, a wait for the answer and a
parse through its layers of readers and retries: the cross-node share of a move's CPU was mostly
that (docs/deploy.md). Here a connection is an ``asyncio.Protocol``: writes go straight to the
transport, and every reply that arrives is handed to a callback in the order the commands were
written. The parsing is hiredis's (the C parser redis-py itself uses); the writing is RESP's
few bytes of framing.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import unquote, urlsplit

import hiredis

log = logging.getLogger("tranque.bus")

CONNECT_TIMEOUT = 5.0


def pack(*parts: bytes) -> bytes:
    """One command in RESP: an array of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n" % len(part))
        out.append(part)
        out.append(b"\r\n")
    return b"".join(out)


class RespProtocol(asyncio.Protocol):
    """One connection: ``write`` commands, get every reply (or push message) in ``on_reply``.

    A reply that is an error arrives as a ``hiredis.ReplyError`` value, not raised: the caller
    knows which command it answers. The answer to the AUTH that ``connect`` sends is taken here
    (refused credentials close the connection), so callers see only their own commands' replies.
    ``on_lost`` is called once, when the connection ends for any reason (``close`` included)."""

    def __init__(self, on_reply: Callable[[Any], None], on_lost: Callable[[], None]) -> None:
        self.on_reply = on_reply
        self.on_lost = on_lost
        self.reader = hiredis.Reader()
        self.transport: asyncio.Transport | None = None
        self.lost = False
        self.authenticating = False  # the AUTH's answer is still to come

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but have its methods.
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        reader.feed(data)
        try:
            reply = reader.gets()
            while reply is not False:
                if self.authenticating:
                    self.authenticating = False
                    if isinstance(reply, hiredis.ReplyError):
                        log.error("Redis refused the bus's credentials: %s", reply)
                        self.close()
                        return
                else:
                    self.on_reply(reply)
                reply = reader.gets()
        except hiredis.ProtocolError:
            self.close()  # not Redis speaking: nothing after this can be trusted

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost:
            self.lost = True
            self.on_lost()

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.lost:
            self.transport.write(data)

    def buffered(self) -> int:
        """Bytes written and not yet taken by the kernel (Redis is not keeping up)."""
        return 0 if self.transport is None else self.transport.get_write_buffer_size()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def connect(
    url: str, on_reply: Callable[[Any], None], on_lost: Callable[[], None]
) -> RespProtocol:
    """A connection to the Redis server of ``url`` (``redis://[[user]:password@]host:port``,
    ``rediss://`` for TLS, ``unix:///path``), authenticated when the URL has a password."""
    parts = urlsplit(url)
    loop = asyncio.get_running_loop()

    def protocol() -> RespProtocol:
        return RespProtocol(on_reply, on_lost)

    if parts.scheme == "unix":
        made = loop.create_unix_connection(protocol, parts.path)
    else:
        host, port = parts.hostname or "127.0.0.1", parts.port or 6379
        tls = ssl.create_default_context() if parts.scheme == "rediss" else None
        made = loop.create_connection(protocol, host, port, ssl=tls)
    _, proto = await asyncio.wait_for(made, CONNECT_TIMEOUT)
    if parts.password is not None:
        user = [unquote(parts.username).encode()] if parts.username else []
        proto.authenticating = True
        proto.write(pack(b"AUTH", *user, unquote(parts.password).encode()))
    return proto
