"""WebSocket frames as a client may cut them, through a real server and a raw TCP socket.

The server reads a socket's text frames past ASGI (server/direct.py, ``direct_reader``) and
leaves every other frame to websockets. The client here writes frames byte by byte, several in
one write, split inside the header, the mask and the payload, and mixes in what websockets
alone must read (a ping, a fragmented message, a frame too big, bad UTF-8, an unmasked frame, a
text frame inside a fragmented message): every answer must come, in order, and every error
must close the socket with the code RFC 6455 gives it.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
from typing import Any

import pytest
from websockets.frames import Opcode

from tranque.client import create_table, new_guest


def masked(opcode: int, payload: bytes, *, fin: bool = True, mask: bool = True) -> bytes:
    """A client's frame (RFC 6455, 5.2), masked unless told not to be."""
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    bit = 0x80 if mask else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 65536:
        head += bytes([bit | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([bit | 127]) + n.to_bytes(8, "big")
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def text(msg: dict[str, Any]) -> bytes:
    return masked(0x1, json.dumps(msg).encode())


class Raw:
    """A WebSocket client on a bare TCP connection: frames written as given, read one by one."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, base: str) -> Raw:
        host, port = base.split("//", 1)[1].rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        assert head.startswith(b"HTTP/1.1 101"), head
        return cls(reader, writer)

    async def send(self, data: bytes, *, pieces: list[int] | None = None) -> None:
        """The bytes in one write, or cut at the offsets ``pieces`` into several."""
        cuts = [0, *(pieces or []), len(data)]
        for a, b in itertools.pairwise(cuts):
            self.writer.write(data[a:b])
            await self.writer.drain()
            await asyncio.sleep(0.01)  # separate reads are likelier; the test holds either way

    async def frame(self) -> tuple[int, bytes]:
        """The next frame from the server: its opcode and payload (a server does not mask)."""
        b0, b1 = await asyncio.wait_for(self.reader.readexactly(2), 30)
        assert not b1 & 0x80, "a server's frames are not masked"
        n = b1 & 0x7F
        if n == 126:
            n = int.from_bytes(await self.reader.readexactly(2), "big")
        elif n == 127:
            n = int.from_bytes(await self.reader.readexactly(8), "big")
        assert b0 & 0x80, "the server sends no fragments"
        return b0 & 0x0F, await asyncio.wait_for(self.reader.readexactly(n), 30)

    async def message(self) -> dict[str, Any]:
        """The next text message (pings of the server's keepalive are answered on the way)."""
        while True:
            opcode, payload = await self.frame()
            if opcode == Opcode.TEXT.value:
                return json.loads(payload)  # type: ignore[no-any-return]
            assert opcode == Opcode.PING.value, (opcode, payload)
            await self.send(masked(0xA, payload))

    async def closed_with(self) -> int:
        """The code of the close frame the server sends next (text frames before it skipped)."""
        while True:
            opcode, payload = await self.frame()
            if opcode == Opcode.CLOSE.value:
                return int.from_bytes(payload[:2], "big")

    async def aclose(self) -> None:
        self.writer.close()


async def seated(base: str) -> Raw:
    """A raw socket that said hello at a new table of its own (the hello cut byte by byte) and
    got its sync."""
    guest = await new_guest(base)
    table = (await create_table(base, guest["token"], practice=False))["table"]
    raw = await Raw.open(base)
    hello = text({"type": "hello", "token": guest["token"], "table": table})
    await raw.send(hello, pieces=list(range(1, len(hello))))
    while (await raw.message())["type"] != "sync":
        pass
    return raw


def pings(*ids: str) -> list[bytes]:
    return [text({"type": "ping", "id": i}) for i in ids]


async def pongs(raw: Raw, count: int) -> list[str]:
    got = []
    while len(got) < count:
        msg = await raw.message()
        assert msg["type"] == "pong", msg
        got.append(msg["id"])
    return got


def test_frames_cut_anywhere_and_mixed_with_websockets_own_are_answered_in_order(
    server_factory: Any,
) -> None:
    server = server_factory("--rate", "100000")

    async def go() -> None:
        raw = await seated(server.base)
        # Three whole frames in one write.
        await raw.send(b"".join(pings("a", "b", "c")))
        assert await pongs(raw, 3) == ["a", "b", "c"]
        # One frame cut in its header, its mask and its payload; the next in the same writes.
        two = b"".join(pings("d", "e"))
        await raw.send(two, pieces=[1, 4, 9, len(two) - 3])
        assert await pongs(raw, 2) == ["d", "e"]
        # A long one (a 16-bit length: JSON's spaces) cut inside that length.
        long = masked(0x1, b'{"type": "ping", "id": "f"' + b" " * 300 + b"}")
        await raw.send(long, pieces=[3])
        assert await pongs(raw, 1) == ["f"]
        # A fragmented message (websockets puts it together) between two whole ones.
        body = json.dumps({"type": "ping", "id": "j"}).encode()
        frags = masked(0x1, body[:7], fin=False) + masked(0x0, body[7:])
        await raw.send(b"".join([*pings("i"), frags, *pings("k")]), pieces=[5])
        assert await pongs(raw, 3) == ["i", "j", "k"]
        await raw.aclose()

    asyncio.run(go())


def test_a_ping_between_messages_is_answered_with_its_payload(server_factory: Any) -> None:
    server = server_factory("--rate", "100000")

    async def go() -> None:
        raw = await seated(server.base)
        await raw.send(b"".join([*pings("g"), masked(0x9, b"hey"), *pings("h")]), pieces=[3])
        # The control pong may come before or between the answers (websockets sends it as it
        # reads the ping); the answers keep their order.
        answers, control = [], []
        while len(answers) + len(control) < 3:
            opcode, payload = await raw.frame()
            if opcode == Opcode.PONG.value:
                control.append(payload)
            else:
                answers.append(json.loads(payload)["id"])
        assert (answers, control) == (["g", "h"], [b"hey"])
        await raw.aclose()

    asyncio.run(go())


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        # Over the server's message size: refused at its header (what follows is never read,
        # and unread bytes at the close would make it a reset).
        (masked(0x1, b"x" * (64 * 1024 + 1))[:14], 1009),
        (masked(0x1, b'{"type": "ping", "id": "\xff"}'), 1007),  # not UTF-8
        (masked(0x1, b'{"type": "ping", "id": "u"}', mask=False), 1002),  # not masked
        (masked(0x0, b'{"type": "ping"}'), 1002),  # a continuation of nothing
        # A whole text frame where the rest of a fragmented message was due.
        (masked(0x1, b'{"type"', fin=False) + pings("mid")[0], 1002),
    ],
    ids=["too-big", "bad-utf8", "unmasked", "stray-continuation", "text-inside-fragments"],
)
def test_what_websockets_refuses_still_closes_the_socket_with_its_code(
    server_factory: Any, frame: bytes, code: int
) -> None:
    server = server_factory("--rate", "100000")

    async def go() -> None:
        raw = await seated(server.base)
        await raw.send(pings("before")[0], pieces=[2])
        assert await pongs(raw, 1) == ["before"]
        after = pings("after") if code != 1009 else []
        await raw.send(b"".join([frame, *after]), pieces=[2])
        assert await raw.closed_with() == code
        await raw.aclose()

    asyncio.run(go())
