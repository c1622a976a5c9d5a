"""The server's pings of its WebSockets: every socket on one timer, not one timer each.

uvicorn pings each socket on a timer of its own (``ws_ping_interval``): a timer armed every
interval and another for the pong's deadline, per socket. At 8,000 sockets that is 8,000 live
timers, each a timer handle, a libuv timer, a context and a bound method renewed every 20 s:
about a fifth of what the young generation of Python's collector held when it paused for
100-150 ms under 1,500 tables (docs/server.md). Here one timer walks the sockets in slices:
each tick pings the sockets of one slice, so that every socket is pinged once per interval and
the pings of many sockets do not all leave in the same turn of the loop.

A socket whose ping is still unanswered when its slice comes round again (one interval later)
is failed with 1011, "keepalive ping timeout", by uvicorn's own code, as uvicorn does with
``ws_ping_timeout`` equal to the interval; if its client does not read even the close, it is
cut after uvicorn's close timeout, so that what waited for it is let go. The pong is recognised
by uvicorn's ``handle_pong``, which clears the payload we set, so this module only reads and
writes the fields uvicorn's own keepalive uses; it acts only on sockets whose own keepalive
uvicorn was told not to run (``tranque serve`` passes ``ws_ping_interval=None`` with the
sans-I/O protocol), never on a socket uvicorn pings itself.
"""

from __future__ import annotations

import asyncio
import random
import struct
from typing import Any

from starlette.types import Scope

from tranque.server.direct import cut, sansio_protocol

SLICES = 50  # ticks per interval: 8,000 sockets are 160 pings a tick, every 0.4 s at 20 s


def supported() -> bool:
    """Whether uvicorn's sans-I/O protocol has the keepalive fields this module drives (so
    that ``tranque serve`` may turn uvicorn's own pings off)."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    except ImportError:
        return False
    return all(
        hasattr(WebSocketsSansIOProtocol, name) for name in ("handle_pong", "keepalive_timeout")
    )


class Keepalive:
    """Pings every watched socket once per ``interval`` seconds; see the module's docstring."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.slices: list[list[Any]] = [[] for _ in range(SLICES)]
        self.count = 0  # sockets watched
        self._next_slice = 0  # the slice the next socket joins
        self._tick_slice = 0  # the slice the next tick pings
        self._timer: asyncio.TimerHandle | None = None

    def watch(self, scope: Scope) -> None:
        """Ping this socket from now on, if it is one of uvicorn's sans-I/O sockets that uvicorn
        does not ping itself; it is forgotten once it closes."""
        proto = sansio_protocol(scope)
        if proto is None or getattr(proto, "ping_interval", 0) is not None:
            return
        self.slices[self._next_slice].append(proto)
        self._next_slice = (self._next_slice + 1) % SLICES
        self.count += 1
        if self._timer is None:
            self._arm()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.interval / SLICES, self._tick)

    def _tick(self) -> None:
        self._timer = None
        index = self._tick_slice
        self._tick_slice = (index + 1) % SLICES
        alive = [proto for proto in self.slices[index] if _ping(proto)]
        self.count -= len(self.slices[index]) - len(alive)
        self.slices[index] = alive
        if self.count:
            self._arm()


def _ping(proto: Any) -> bool:
    """Ping one socket, or fail it if the last ping is unanswered; False once it is closed."""
    if proto.close_sent or proto.disconnected or proto.transport.is_closing():
        return False
    if proto.pending_ping_payload is not None:
        proto.keepalive_timeout()  # 1011 and the transport closed, as uvicorn's own timeout
        # A transport's close waits for its buffer to drain, which a client that stopped
        # reading never lets happen: past uvicorn's close timeout, it is cut (server.direct).
        if not proto.disconnected:
            proto.close_timer = proto.loop.call_later(proto.close_timeout, cut, proto)
        return False
    payload = struct.pack("!I", random.getrandbits(32))
    proto.pending_ping_payload = payload  # uvicorn's handle_pong clears it when the pong comes
    proto.ping_sent_at = proto.loop.time()
    proto.conn.send_ping(payload)
    proto.transport.write(b"".join(proto.conn.data_to_send()))
    return True
