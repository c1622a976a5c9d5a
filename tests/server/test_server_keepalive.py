"""The server's pings (server.keepalive), through a real server process and a real socket: a
socket that answers is pinged once per interval with a fresh payload and stays open; one that
stops answering is closed with 1011 at its next ping.

The client is websockets' sans-I/O protocol over a plain TCP stream, so that the test sees the
ping frames (a full client answers them out of sight) and can choose not to answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.uri import parse_uri

INTERVAL = 0.2


class RawSocket:
    """One WebSocket whose pongs go out only while ``answering``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, url: str):
        self.reader, self.writer = reader, writer
        self.proto = ClientProtocol(parse_uri(url))
        self.proto.send_request(self.proto.connect())
        self.flush()
        self.answering = True

    def flush(self) -> None:
        self.writer.write(b"".join(self.proto.data_to_send()))

    async def events(self) -> list[Any]:
        """What the next bytes from the server make (the handshake's answer, frames)."""
        data = await asyncio.wait_for(self.reader.read(65536), 10)
        if data:
            self.proto.receive_data(data)
        else:
            self.proto.receive_eof()
        out = self.proto.data_to_send()  # the pongs the protocol made for the pings
        if self.answering:
            self.writer.write(b"".join(out))
        events = self.proto.events_received()
        if not data and not events:
            raise ConnectionError("the server closed the connection without a close frame")
        return events


def pings(events: list[Any]) -> list[bytes]:
    return [bytes(e.data) for e in events if isinstance(e, Frame) and e.opcode is Opcode.PING]


@pytest.mark.slow
def test_pinged_every_interval_and_closed_when_it_stops_answering(server_factory: Any) -> None:
    sp = server_factory("--ws-ping", str(INTERVAL))
    asyncio.run(_ping_then_silence(sp.base, sp.port))


async def _ping_then_silence(base: str, port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    sock = RawSocket(reader, writer, base.replace("http", "ws", 1) + "/ws")
    try:
        seen: list[bytes] = []
        while len(seen) < 5:  # five intervals, every ping answered
            seen += pings(await sock.events())
        assert len(set(seen)) == 5, "each ping carries a payload of its own"
        assert sock.proto.close_rcvd is None, "a socket that answers stays open"

        sock.answering = False
        unanswered = 0
        close: Close | None = None
        while close is None:
            events = await sock.events()
            unanswered += len(pings(events))
            assert unanswered <= 1, "the first unanswered ping is the last: the next one closes"
            for event in events:
                if isinstance(event, Frame) and event.opcode is Opcode.CLOSE:
                    close = Close.parse(event.data)
        assert close.code == 1011
        assert close.reason == "keepalive ping timeout"
    finally:
        writer.close()
