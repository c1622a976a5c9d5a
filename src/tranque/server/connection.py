"""``Connection``: one WebSocket's identity and the queue of frames waiting for it.

The socket loop that fills it is ``server.ws``. The queue is where a client that reads too
slowly shows: it is bounded in bytes, and a socket that falls further behind is dropped, its
close written past the queue (``Connection.end``, ``server.direct.direct_closer``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Any

from starlette.websockets import WebSocket

from tranque.server.direct import CloseNow, DirectWrite
from tranque.table.lobby import TableHandle
from tranque.table.owner_frames import frame

GOING_AWAY = 1001
POLICY_VIOLATION = 1008
INTERNAL_ERROR = 1011


def too_slow(limit: int) -> str:
    """The close reason of a socket dropped for reading too slowly (at most 123 bytes)."""
    return f"too slow: over {limit} bytes waited for you; reconnect"


class Connection:
    """One WebSocket: its identity, its table, and the ordered queue of frames to send it.

    The queue is a deque with one waiting future rather than an ``asyncio.Queue``: a frame is
    pushed for every recipient of every event, and the plain deque is the cheaper of the two.
    It is bounded in bytes (``limit``): a frame that would take it past them, behind others
    still waiting, drops the socket instead (its queue is let go at once, and it is closed with
    1008: the client reconnects and resyncs). A frame is never refused while nothing waits
    ahead of it, so one frame larger than the limit (a big lobby) still goes out.
    """

    def __init__(
        self,
        ws: WebSocket,
        limit: int,
        direct: DirectWrite | None = None,
        close_now: CloseNow | None = None,
    ) -> None:
        self.ws = ws
        self.direct = direct  # writes a frame now when nothing waits ahead of it (direct.py)
        self.close_now = close_now  # the close frame now, past the queue (direct.py)
        self.sending = False  # the writer is sending a frame of the queue
        self.guest: str | None = None
        self.session: str | None = None  # the account's session the token named (None: a guest)
        self.nickname = "guest"
        self.watcher = False
        # The guests whose phrases this connection does not hear: those its person blocks.
        self.muted: frozenset[str] = frozenset()
        self.owner: TableHandle | None = None  # the table's owner, or its stand-in (relay)
        self.pending: deque[bytes | None] = deque()
        self.queued_bytes = 0  # of the frames in ``pending``
        self._idle: asyncio.Future[None] | None = None  # the writer waits on it when done
        self.limit = limit
        self.dropped = False  # closed for reading too slowly
        self.cut = False  # closed at once, its queue let go (``end``)
        self.closed_now = False  # ... and its close frame written past the queue
        self.closing = False
        self.close_code = POLICY_VIOLATION
        self.close_reason = "too slow"
        self.in_lobby = False  # gets the lobby's listing at every change
        self.queued = False  # waits in the quick-match queue
        self.listening = False  # gets its account's notices and friends' presence (bell)

    def tell(self, obj: dict[str, Any]) -> None:
        """Push a message of the club (the queue) to this socket."""
        self.push(frame(obj))

    def push(self, frame_: bytes) -> None:
        if self.closing:
            return
        direct = self.direct
        if direct is not None and not self.pending and not self.sending and direct(frame_):
            return
        size = len(frame_)
        if self.pending and self.queued_bytes + size > self.limit:
            self.dropped = True
            self.end(POLICY_VIOLATION, too_slow(self.limit))
            return
        self.queued_bytes += size
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

    def end(self, code: int, reason: str) -> None:
        """Close with ``code`` now: what is queued is let go, nothing more is sent or taken.
        The close frame goes out past the queue (``direct.direct_closer``), so that a reader
        that never reads cannot hold the socket, or its frames, any longer; else through the
        queue, now empty."""
        if self.cut:
            return
        self.cut = self.closing = True
        self.close_code, self.close_reason = code, reason
        self.pending.clear()
        self.queued_bytes = 0
        self.closed_now = self.close_now is not None and self.close_now(code, reason)
        self._put(None)  # wakes the writer: it closes, or stops if the close went out already

    async def write_loop(self) -> None:
        send = self.ws.send
        pending = self.pending
        loop = asyncio.get_running_loop()
        while True:
            while pending:
                item = pending.popleft()
                if item is None:
                    if self.closed_now:
                        return
                    with contextlib.suppress(Exception):
                        await self.ws.close(code=self.close_code, reason=self.close_reason)
                    return
                self.queued_bytes -= len(item)
                self.sending = True
                try:
                    await send({"type": "websocket.send", "text": item.decode()})
                finally:
                    self.sending = False
            self._idle = loop.create_future()
            await self._idle
            self._idle = None
