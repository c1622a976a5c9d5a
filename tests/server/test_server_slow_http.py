"""Slow HTTP clients and too many connections from one address, through raw TCP sockets.

A client that trickles its headers (slowloris) or its body is cut at the setting's time with 408;
one address holds at most so many HTTP connections at once, the next one gets 429 at once. The
settings are given through their environment variables, so that a server that does not know them
still starts (and shows what it does without them).
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

# uvicorn trusts 127.0.0.1 as a proxy by default (its X-Forwarded-For is the client), and a
# trusted proxy is not capped: these servers trust another address, so the tests' own is a client.
NOT_A_PROXY = {"FORWARDED_ALLOW_IPS": "192.0.2.1"}


def _connect(base: str) -> socket.socket:
    url = urlsplit(base)
    return socket.create_connection((url.hostname or "127.0.0.1", url.port or 80), timeout=10)


def _trickle(sock: socket.socket, data: bytes, every: float, seconds: float) -> tuple[float, bytes]:
    """Send ``data`` a byte at a time, one every ``every`` seconds, reading what comes back,
    until the server closes the connection or ``seconds`` pass: (seconds until the close, or
    inf, and what the server sent)."""
    start = time.monotonic()
    got = b""
    i = 0
    while time.monotonic() - start < seconds:
        if i < len(data):
            try:
                sock.sendall(data[i : i + 1])
            except OSError:  # reset or broken pipe: closed
                return time.monotonic() - start, got
            i += 1
        sock.settimeout(every)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - start, got
        if not chunk:
            return time.monotonic() - start, got
        got += chunk
    return float("inf"), got


def _response(sock: socket.socket) -> bytes:
    """One whole response of a keep-alive connection: its head, then its body by its length."""
    sock.settimeout(10)
    raw = b""
    while b"\r\n\r\n" not in raw:
        chunk = sock.recv(65536)
        assert chunk, raw
        raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, raw
        body += chunk
    return head + b"\r\n\r\n" + body


def _answer(raw: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body) if body else {}


@pytest.mark.slow
def test_a_client_that_trickles_its_headers_is_cut_with_408(server_factory: Any) -> None:
    server = server_factory(env={"TRANQUE_HTTP_HEADER_TIMEOUT": "2"})
    header = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
    with _connect(server.base) as sock:
        # A header byte every half second: uvicorn alone never times this out.
        cut, got = _trickle(sock, header, every=0.5, seconds=15)
    assert cut < 6, f"still open after 15 s of trickled headers ({got[:80]!r})"
    status, body = _answer(got)
    assert (status, body["code"]) == (408, "request_timeout"), got
    # A connection that says nothing at all is cut the same way.
    with _connect(server.base) as sock:
        cut, got = _trickle(sock, b"", every=0.5, seconds=15)
    assert cut < 6 and _answer(got)[0] == 408, (cut, got)
    # A client that sends its request at once is answered as ever, keep-alive included.
    with _connect(server.base) as sock:
        for _ in range(2):
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert _response(sock).startswith(b"HTTP/1.1 200")


@pytest.mark.slow
def test_a_client_that_trickles_its_body_is_cut_with_408(server_factory: Any) -> None:
    server = server_factory(env={"TRANQUE_HTTP_BODY_TIMEOUT": "2"})
    body = json.dumps({"nickname": "tortuga" + " " * 40}).encode()
    head = (
        b"POST /api/guests HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    with _connect(server.base) as sock:
        sock.sendall(head)
        cut, got = _trickle(sock, body, every=0.5, seconds=15)
    assert cut < 6, f"still open after 15 s of a trickled body ({got[:80]!r})"
    status, answer = _answer(got)
    assert (status, answer["code"]) == (408, "request_timeout"), got
    # The same body sent at once makes a guest.
    with _connect(server.base) as sock:
        sock.sendall(head + body)
        assert _response(sock).startswith(b"HTTP/1.1 200")
    assert "Traceback" not in server.errors()


def test_one_address_holds_at_most_its_cap_of_http_connections(server_factory: Any) -> None:
    server = server_factory(env={"TRANQUE_MAX_HTTP_PER_IP": "3", **NOT_A_PROXY})
    idle = [_connect(server.base) for _ in range(3)]
    for sock in idle:
        sock.sendall(b"GET /he")  # a request begun, never finished
    try:
        with _connect(server.base) as extra:
            cut, got = _trickle(extra, b"", every=0.5, seconds=5)  # read until it closes
        assert cut < 5, "a fourth connection from the address was neither answered nor closed"
        status, body = _answer(got)
        assert (status, body["code"]) == (429, "too_many_connections"), got
        # One closes: the next connection is served.
        idle.pop().close()
        deadline = time.monotonic() + 10
        while True:
            with _connect(server.base) as sock:
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                got = _response(sock)
            if got.startswith(b"HTTP/1.1 200") or time.monotonic() > deadline:
                break
        assert got.startswith(b"HTTP/1.1 200"), got
        # A connection that became a WebSocket leaves the count: three sockets, then HTTP.
        import asyncio

        import websockets

        async def sockets() -> None:
            url = server.base.replace("http", "ws", 1) + "/ws"
            opened = [await websockets.connect(url, open_timeout=10) for _ in range(3)]
            try:
                with _connect(server.base) as sock:
                    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                    assert _response(sock).startswith(b"HTTP/1.1 200")
            finally:
                for ws in opened:
                    await ws.close()

        asyncio.run(sockets())
    finally:
        for sock in idle:
            sock.close()


def test_a_trusted_proxy_is_not_capped(server_factory: Any) -> None:
    """Behind a proxy on the same machine (uvicorn's default trust, 127.0.0.1) every client
    comes from the proxy's address: the cap would be the whole site's. The proxy limits its own
    clients (deploy/nginx)."""
    server = server_factory(env={"TRANQUE_MAX_HTTP_PER_IP": "2"})
    idle = [_connect(server.base) for _ in range(4)]
    try:
        for sock in idle:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert _response(sock).startswith(b"HTTP/1.1 200")
    finally:
        for sock in idle:
            sock.close()
