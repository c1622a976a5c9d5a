"""Text frames handed straight to uvicorn's sans-I/O WebSocket protocol, past the ASGI ``send``.

A move sends about five frames (four recipients and an ack), and through ASGI each one costs a
wake-up of the socket's writer task, three coroutines (Starlette's state check, uvicorn's
``send`` and its wait on the writable event), a dict, and our bytes decoded to ``str`` only to be
encoded back. The frame itself is made by websockets' ``ServerProtocol`` either way: here we call
it ourselves, on the same protocol object, when nothing of that socket's is queued ahead of the
frame and its transport takes writes, so the bytes on the wire (compression included, when it
was negotiated) are exactly what the ASGI path sends.

Everything else goes through ASGI as before: the handshake, the close, and any frame while the
transport is paused (a slow reader: the frames wait in the connection's queue, whose limit
closes a socket that does not keep up), or while a frame of the queue is being sent. When the
server runs another WebSocket implementation (``--ws-impl websockets``) there is no such
protocol object and every frame takes the ASGI path.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.types import Scope, Send

RAW_SEND = "tranque.raw_send"  # the scope key under which the app keeps the server's own send

DirectWrite = Callable[[bytes], bool]
CloseNow = Callable[[int, str], bool]


def keep_raw_send(scope: Scope, send: Send) -> None:
    """Called by the app for a socket of ``/ws`` (``server.app.TranqueApp``): the ``send`` it
    gets is the server's own."""
    scope[RAW_SEND] = send


def direct_writer(scope: Scope, limit: int) -> DirectWrite | None:
    """A function that frames one text frame now and says whether it could; None where the
    server's WebSocket protocol is not uvicorn's sans-I/O one.

    The frame's bytes wait in the protocol's outgoing buffer until the next turn of the loop,
    when one ``transport.write`` sends everything the socket was given in the turn before: a
    move's event and the ack its player is sent after it leave in one system call, not two.
    Whatever uvicorn writes itself meanwhile (a ping, a close, a frame of the ASGI path) takes
    the buffer's bytes with it, in order, since it drains the same buffer.

    It frames at most ``limit`` bytes (the socket's queue bound) in one turn; past them it says
    no, and the frame waits in the connection's queue, whose bound then drops a socket that
    does not read.
    """
    proto = sansio_protocol(scope)
    if proto is None:
        return None
    from websockets.exceptions import InvalidState

    conn = proto.conn
    transport = proto.transport
    writable = proto.writable
    loop = asyncio.get_running_loop()
    corked = False  # a flush is due at the next turn
    held = 0  # bytes framed since the last flush

    def flush() -> None:
        nonlocal corked, held
        corked = False
        held = 0
        if proto.disconnected or transport.is_closing():
            return
        data = b"".join(conn.data_to_send())
        if data:
            transport.write(data)

    def write(data: bytes) -> bool:
        nonlocal corked, held
        if proto.close_sent or proto.disconnected or not writable.is_set():
            return False
        if held >= limit:
            # The transport says it is full only once the flush has written: until then what
            # one turn frames here counts against the queue's bound too, else a reader whose
            # asks came in one read would have all their answers held at once, past it.
            return False
        if transport.is_closing():
            return False
        try:
            conn.send_text(data)
        except InvalidState:  # closing or closed: the reader will see the disconnect
            return False
        held += len(data)
        if not corked:
            corked = True
            loop.call_soon(flush)
        return True

    return write


def direct_closer(scope: Scope) -> CloseNow | None:
    """A function that closes the socket now, past whatever waits to be sent, and says whether
    it could; None where the server's WebSocket protocol is not uvicorn's sans-I/O one.

    Through ASGI a close waits, like any frame, until the transport takes writes: for a client
    that never reads, never. Here the close frame is written at once (behind the bytes the
    transport holds already, at most its high-water mark), the app is told the socket is gone,
    and reading resumes for the client's answer; a client that does not answer within uvicorn's
    own close timeout is cut (``abort``: the buffer it never read is let go). A socket that
    uvicorn's keepalive closed already (its pong never came) is cut after the same time, since
    a transport's ``close`` waits for a buffer that such a client never drains.
    """
    proto = sansio_protocol(scope)
    if proto is None:
        return None
    from websockets.exceptions import InvalidState

    def close(code: int, reason: str) -> bool:
        if proto.disconnected:
            return True
        transport = proto.transport
        if not proto.close_sent and not transport.is_closing():
            try:
                proto.conn.send_close(code, reason)
            except InvalidState:
                return False
            transport.write(b"".join(proto.conn.data_to_send()))
            proto.close_sent = True
            proto.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            if proto.read_paused:
                proto.read_paused = False
                transport.resume_reading()
        if proto.close_timer is not None:
            proto.close_timer.cancel()
        proto.close_timer = proto.loop.call_later(proto.close_timeout, cut, proto)
        return True

    return close


def cut(proto: Any) -> None:
    """Drop the connection of a client that does not read (``transport.close`` would wait for
    its buffer to drain): its ``connection_lost`` tells the app the socket is gone."""
    proto.close_timer = None
    if not proto.disconnected:
        proto.transport.abort()


def direct_reader(scope: Scope, take: Callable[[str], bool]) -> Callable[[bool], None]:
    """Text messages handed to ``take`` from uvicorn's sans-I/O protocol as they are parsed,
    past the ASGI ``receive``. Where the server's WebSocket protocol is not that one, every
    message takes the ASGI path (the returned function then does nothing).

    Through ASGI a message wakes the socket's reader task through a queue and four coroutines,
    and uvicorn pauses the socket's reading until the task asks again (two system calls). Here,
    while the reader task waits on an empty queue (the returned function says when it does),
    a whole text frame goes to ``take`` at once, on the protocol's callback; ``take`` answers
    False for a message it will not handle there, which then takes the ASGI path, like every
    message that comes while the reader is busy or another waits in the queue: so messages are
    handled in the order they came. Fragments, binary frames, bad UTF-8 and closes take the ASGI
    path too. ``take`` must not raise and must not wait.
    """
    proto = sansio_protocol(scope)
    if proto is None:
        return _no_reader
    queue = proto.queue
    asgi_text = proto.handle_text
    waiting = False

    def handle_text(event: Any) -> None:
        if waiting and event.fin and not proto.close_sent and queue.empty():
            try:
                text = event.data.decode()
            except UnicodeDecodeError:
                pass  # uvicorn closes with 1007
            else:
                if take(text):
                    return
        asgi_text(event)

    def reader_waits(now: bool) -> None:
        nonlocal waiting
        waiting = now

    proto.handle_text = handle_text
    return reader_waits


def _no_reader(waiting: bool) -> None:
    pass


def sansio_protocol(scope: Scope) -> Any:
    """uvicorn's sans-I/O protocol object of the socket (the ``send`` the app kept belongs to
    it), or None under another WebSocket implementation."""
    proto = getattr(scope.get(RAW_SEND), "__self__", None)
    return proto if proto is not None and _is_sansio(proto) else None


def _is_sansio(proto: object) -> bool:
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    except ImportError:  # an older uvicorn: the ASGI path only
        return False
    return isinstance(proto, WebSocketsSansIOProtocol)
