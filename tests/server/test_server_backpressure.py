"""A reader that falls behind, through a real server: what waited for it arrives in order, and a
reader that stops for good is dropped.

The server writes a frame straight to the socket when nothing of that socket's waits ahead of it
and the transport takes writes (server/direct.py), and queues it otherwise. These clients make the
server's transport pause: their socket's receive buffer is a few KB, they stop reading, and what
they ask for is large (a full view of their table, from its owner, with a ping between views).
"""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any
from urllib.parse import urlsplit

import pytest
import websockets

from tranque.client import create_table, new_guest


def _small_socket(base: str) -> socket.socket:
    """A connected socket whose receive buffer stays a few KB (set before the connect)."""
    url = urlsplit(base)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((url.hostname or "127.0.0.1", url.port or 80))
    sock.setblocking(False)
    return sock


def _ws_url(base: str) -> str:
    return base.replace("http", "ws", 1) + "/ws"


async def _at_a_table(base: str) -> websockets.ClientConnection:
    """A socket with a small buffer, at a table of its own, its first sync read."""
    guest = await new_guest(base)
    table = (await create_table(base, guest["token"], practice=False))["table"]
    ws = await websockets.connect(
        _ws_url(base), sock=_small_socket(base), max_queue=4, open_timeout=30
    )
    await ws.send(json.dumps({"type": "hello", "token": guest["token"], "table": table}))
    while json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] != "sync":
        pass
    return ws


def _ask(i: int) -> list[str]:
    """A full view (several KB, made by the table's owner) and a ping (answered by the socket's
    own loop): the two ways a frame is pushed, numbered by the ping."""
    return [json.dumps({"type": "sync"}), json.dumps({"type": "ping", "id": str(i)})]


@pytest.mark.slow
def test_frames_that_waited_for_a_slow_reader_arrive_in_the_order_sent(server_factory: Any) -> None:
    # The queue may hold all of it (several MB): this test is about the order, not the limit.
    server = server_factory("--rate", "100000", "--ws-queue-bytes", str(256 * 1024 * 1024))
    total, unread = 6000, 4000

    async def go() -> None:
        ws = await _at_a_table(server.base)
        try:
            sent = asyncio.Event()

            async def send_all() -> None:
                for i in range(total):
                    for text in _ask(i):
                        await ws.send(text)
                    if i == unread:
                        sent.set()
                    if i >= unread:
                        # While the backlog drains (the transport pausing and resuming as the
                        # reader takes it), each new ask lands at a different moment of it.
                        await asyncio.sleep(0.001)

            sender = asyncio.create_task(send_all())
            # Nothing is read until 2,000 views (several MB) are on their way: far more than the
            # socket's buffers hold, so the server queues; the rest is asked while it drains.
            await asyncio.wait_for(sent.wait(), 60)
            views, pongs = 0, []
            while len(pongs) < total or views < total:
                reply = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if reply["type"] == "pong":
                    pongs.append(int(reply["id"]))
                else:
                    assert reply["type"] != "error", reply
                    views += reply["type"] == "sync"  # each comes with the seats' ratings
            await sender
            # The pongs come from one place in order (the views from the table's owner, which
            # may answer a little later): what waited was not overtaken by what came after.
            assert pongs == list(range(total))
        finally:
            await ws.close()

    asyncio.run(go())


def test_a_reader_that_stops_reading_is_dropped_once_its_queue_is_full(server_factory: Any) -> None:
    server = server_factory("--rate", "100000")

    async def go() -> None:
        ws = await _at_a_table(server.base)
        closed = None
        try:
            # More bytes than the buffers and the queue (512 KiB by default) hold, never read.
            for i in range(8000):
                for text in _ask(i):
                    await ws.send(text)
        except websockets.ConnectionClosed as exc:
            closed = exc
        if closed is None:
            # The close waits behind the frames queued before it: read them all.
            try:
                while True:
                    await asyncio.wait_for(ws.recv(), 60)
            except websockets.ConnectionClosed as exc:
                closed = exc
        assert closed.rcvd is not None, closed
        assert closed.rcvd.code == 1008, closed
        assert closed.rcvd.reason == "too slow: over 524288 bytes waited for you; reconnect"

    asyncio.run(go())
