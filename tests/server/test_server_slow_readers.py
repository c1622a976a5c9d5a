"""Sockets that read too slowly, through a real server: the lobby does not fill the server's
memory for them, and one that falls behind by more than the queue's bytes is dropped while the
others go on.

The lobby's readers here never read after their handshake and their receive buffer is a few KB
(``_never_reading``): whatever the server sends them waits in its memory. Before the lobby was
sent as changes, every change of a listing of hundreds of tables was the whole listing again,
encoded again for each such socket, and waited there: ten of them took a server from 189 to
312 MiB in 75 s.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))

from club_client import ClubSocket, of

from tranque.client import TableClient

TABLES = 400  # public tables in the lobby: its listing is over 100 KB
READERS = 20  # lobby sockets that never read
CHANGES = 40  # lobby changes, each at least one look of the board apart (0.25 s)
GROWTH_MIB = 24  # the bound on the server's RSS growth while they happen
ASKS = 4800  # views a reader that falls behind asks for


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _never_reading(base: str, first: dict[str, Any]) -> socket.socket:
    """A WebSocket opened by hand (a receive buffer of a few KB, set before the connect) that
    sends ``first`` and then never reads again."""
    url = urlsplit(base)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect((url.hostname or "127.0.0.1", url.port or 80))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: {url.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)  # one byte at a time: nothing past the handshake is read
    assert head.startswith(b"HTTP/1.1 101"), head
    sock.sendall(_text_frame(json.dumps(first).encode()))
    return sock


def _text_frame(payload: bytes) -> bytes:
    """One masked client text frame (payloads under 64 KiB)."""
    mask = os.urandom(4)
    n = len(payload)
    head = struct.pack("!BB", 0x81, 0x80 | n) if n < 126 else struct.pack("!BBH", 0x81, 0xFE, n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


@pytest.mark.slow
def test_lobby_readers_that_never_read_do_not_grow_the_servers_memory(server_factory: Any) -> None:
    server = server_factory()
    base = server.base
    assert server.proc is not None
    pid = server.proc.pid
    with httpx.Client(base_url=base, timeout=30) as http:
        hosts = [http.post("/api/guests", json={"nickname": f"host{i}"}).json() for i in range(8)]
        for i in range(TABLES):
            token = hosts[i % len(hosts)]["token"]
            r = http.post(
                "/api/tables",
                json={"practice": False, "seat": 0, "public": True},
                headers={"authorization": f"Bearer {token}"},
            )
            assert r.status_code == 200, r.text
        churn_table = r.json()["table"]
        sitter = http.post("/api/guests", json={"nickname": "sitter"}).json()

    async def go() -> tuple[float, float, int]:
        watcher = await ClubSocket(base).open()  # a reader that keeps up: counts the changes
        await watcher.send({"type": "lobby"})
        await watcher.wait_listing(lambda tables: len(tables) == TABLES)
        stuck = [_never_reading(base, {"type": "lobby"}) for _ in range(READERS)]
        sitting = TableClient(base, sitter["token"], churn_table)
        await sitting.connect()
        try:
            await asyncio.sleep(1)  # the first listings are out (or waiting for their readers)
            before = _rss_mib(pid)
            seen = len(watcher.listings)
            for i in range(CHANGES):
                # A seat taken, then freed: the churn table's line changes every time.
                await sitting.do({"type": "sit", "seat": 1} if i % 2 == 0 else {"type": "leave"})
                want = seen + i + 1
                await watcher.wait_listing(
                    lambda _, want=want: len(watcher.listings) >= want, timeout=30
                )
            await asyncio.sleep(1)  # the last change reached every socket's queue
            after = _rss_mib(pid)
            return before, after, len(watcher.listings) - seen
        finally:
            await sitting.close()
            await watcher.close()
            for s in stuck:
                s.close()

    before, after, changes = asyncio.run(go())
    print(f"server RSS {before:.1f} -> {after:.1f} MiB over {changes} lobby changes")
    assert changes >= CHANGES
    assert after - before < GROWTH_MIB, (
        f"{READERS} lobby sockets that never read grew the server from {before:.0f} to "
        f"{after:.0f} MiB over {changes} changes of a {TABLES}-table lobby"
    )


def _stats(base: str) -> dict[str, Any]:
    return dict(httpx.get(base + "/api/stats", timeout=10).json().get("sockets", {}))


def _small_socket(base: str) -> socket.socket:
    url = urlsplit(base)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((url.hostname or "127.0.0.1", url.port or 80))
    sock.setblocking(False)
    return sock


@pytest.mark.slow
def test_a_reader_that_falls_behind_is_dropped_and_the_others_go_on(server_factory: Any) -> None:
    # 64 KiB may wait for a socket (the setting's variable: a server without it still starts).
    server = server_factory("--rate", "100000", env={"TRANQUE_WS_QUEUE_BYTES": "65536"})
    base = server.base
    with httpx.Client(base_url=base, timeout=30) as http:
        host, slow, late = (
            http.post("/api/guests", json={"nickname": n}).json() for n in ("ana", "lento", "bea")
        )
        table = http.post(
            "/api/tables",
            json={"practice": False, "seat": 0, "public": True},
            headers={"authorization": f"Bearer {host['token']}"},
        ).json()["table"]

    async def go() -> None:
        lobby = await ClubSocket(base).open()
        await lobby.send({"type": "lobby"})
        await lobby.wait(of("lobby"))
        ana = TableClient(base, host["token"], table)
        await ana.connect()
        # The slow one watches the table and asks for its whole view, again and again, and
        # reads nothing: 4,800 views of 1.5 KB are more than the kernel's buffers take (4 MB at
        # most on this side), yet fewer frames than the old limit of 5,000.
        ws = await websockets.connect(
            base.replace("http", "ws", 1) + "/ws", sock=_small_socket(base), max_queue=4
        )
        await ws.send(json.dumps({"type": "hello", "token": slow["token"], "table": table,
                                  "role": "spectator"}))  # fmt: skip
        for _ in range(ASKS):
            await ws.send(json.dumps({"type": "sync"}))
        # A bound, not a speed: a busy machine takes a minute to make 4,800 views.
        deadline = time.monotonic() + 180
        while _stats(base).get("dropped_slow", 0) < 1:
            assert time.monotonic() < deadline, "the reader that fell behind was never dropped"
            await asyncio.sleep(0.2)
        # What had reached its buffers comes first, then the close: 1008, and why.
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(ws.recv(), 30)
        rcvd = closed.value.rcvd
        assert rcvd is not None and rcvd.code == 1008, closed.value
        assert rcvd.reason.startswith("too slow"), rcvd.reason
        # The others go on: a person sits, the table's player and the lobby both hear of it.
        bea = TableClient(base, late["token"], table)
        await bea.connect()
        await bea.do({"type": "sit", "seat": 1})
        await ana.wait_for(lambda c: any(e.get("type") == "sat" for e in c.events), 30)

        def two_free(tables: list[dict[str, Any]]) -> bool:
            return any(t["table"] == table and t["free"] == 2 for t in tables)

        await lobby.wait_listing(two_free)
        assert ana.closed_code is None and not lobby._reader.done()  # type: ignore[union-attr]
        assert _stats(base)["dropped_slow"] == 1
        for c in (ana, bea):
            await c.close()
        await lobby.close()

    asyncio.run(go())


@pytest.mark.slow
def test_asks_that_come_in_one_read_are_bounded_by_the_queue_too(server_factory: Any) -> None:
    """Thousands of asks in one write reach the server in one read, and every answer is made in
    that turn of its loop, before the socket's buffers have said they are full: the answers
    made then count against the queue's bytes as well, so this reader is dropped too (it once
    made the server hold megabytes for a socket that never reads, and never dropped it)."""
    server = server_factory("--rate", "100000", env={"TRANQUE_WS_QUEUE_BYTES": "65536"})
    base = server.base
    with httpx.Client(base_url=base, timeout=30) as http:
        host, slow = (http.post("/api/guests", json={"nickname": n}).json() for n in ("an", "lo"))
        table = http.post(
            "/api/tables",
            json={"practice": False, "seat": 0, "public": True},
            headers={"authorization": f"Bearer {host['token']}"},
        ).json()["table"]
    hello = {"type": "hello", "token": slow["token"], "table": table, "role": "spectator"}
    sock = _never_reading(base, hello)
    try:
        # The spectator's view has come (or waits in its buffers): the hello is done.
        deadline = time.monotonic() + 60
        while _stats(base).get("open", 0) < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        # One write of 63 KB: the server reads it at once, and its 3,000 answers (4.5 MB) are
        # more than the kernel's buffers take on this side.
        sock.sendall(_text_frame(b'{"type":"sync"}') * 3000)
        deadline = time.monotonic() + 60
        while _stats(base).get("dropped_slow", 0) < 1:
            assert time.monotonic() < deadline, "a reader whose asks came at once was never dropped"
            time.sleep(0.2)
    finally:
        sock.close()
