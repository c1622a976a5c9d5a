"""How a socket's messages are read, through a real server: at a table they are handled as they
are parsed while the socket's reader task waits (server/direct.py, ``direct_reader``), and
through uvicorn's queue otherwise; either way in the order they came, and under the same rate.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import websockets
from test_server_bad_input import flood

from tranque.client import create_table, new_guest


def _ws_url(base: str) -> str:
    return base.replace("http", "ws", 1) + "/ws"


async def _at_a_table(base: str) -> websockets.ClientConnection:
    """A socket at a new table of its own, its first sync read."""
    guest = await new_guest(base)
    table = (await create_table(base, guest["token"], practice=False))["table"]
    ws = await websockets.connect(_ws_url(base), open_timeout=30)
    await ws.send(json.dumps({"type": "hello", "token": guest["token"], "table": table}))
    while json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] != "sync":
        pass
    return ws


def test_messages_sent_while_the_hello_is_checked_are_answered_in_order(
    server_factory: Any,
) -> None:
    """The hello waits on the club (the token) and the table, so the pings sent right behind it
    queue; pings sent while that queue drains must not overtake it."""
    server = server_factory("--rate", "100000")
    first, second = 300, 300

    async def go() -> None:
        guest = await new_guest(server.base)
        table = (await create_table(server.base, guest["token"], practice=False))["table"]
        async with websockets.connect(_ws_url(server.base), open_timeout=30) as ws:
            hello = {"type": "hello", "token": guest["token"], "table": table}
            await ws.send(json.dumps(hello))
            for i in range(first):
                await ws.send(json.dumps({"type": "ping", "id": str(i)}))
            pongs: list[int] = []
            kinds: list[str] = []

            async def read() -> None:
                while len(pongs) < first + second:
                    reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    kinds.append(reply["type"])
                    if reply["type"] == "pong":
                        pongs.append(int(reply["id"]))

            reader = asyncio.create_task(read())
            while not pongs:  # the queue is draining: send more meanwhile, a few at a time
                await asyncio.sleep(0)
            for i in range(first, first + second):
                await ws.send(json.dumps({"type": "ping", "id": str(i)}))
                if i % 10 == 0:
                    await asyncio.sleep(0)
            await reader
        assert pongs == list(range(first + second))
        assert "sync" in kinds and "error" not in kinds

    asyncio.run(go())


def test_frames_of_one_read_are_answered_in_order_whichever_path_each_takes(
    server_factory: Any,
) -> None:
    """A binary frame is left to the reader task (its error comes from there), a ping at a
    table is answered on uvicorn's callback: in one TCP segment, each ping's pong must still
    come after the error of the binary frame before it."""
    server = server_factory()

    async def go() -> None:
        async with await _at_a_table(server.base) as ws:
            for i in range(5):
                ws.protocol.send_binary(b"{}")
                ws.protocol.send_text(json.dumps({"type": "ping", "id": str(i)}).encode())
            ws.transport.write(b"".join(ws.protocol.data_to_send()))  # one write, one read
            got: list[str] = []
            while len(got) < 10:
                reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
                got.append(reply.get("code") or f"pong {reply.get('id')}")
        assert got == [x for i in range(5) for x in ("malformed", f"pong {i}")]

    asyncio.run(go())


def test_a_flood_at_a_table_is_refused_then_closed_with_policy_violation(
    server_factory: Any,
) -> None:
    """The rate holds for messages read on uvicorn's callback as for those of the reader task."""
    server = server_factory("--rate", "10")

    async def go() -> None:
        async with await _at_a_table(server.base) as ws:
            replies = await flood(ws)
            assert ws.close_code == 1008
        kinds = [r.get("code") or r["type"] for r in replies]
        first_refusal = kinds.index("rate_limited")
        # The burst (three seconds' worth at --rate 10, one message of it the hello) is
        # answered in order, then refused, and the socket closed long before the flood is over.
        assert first_refusal >= 25, kinds
        assert [r["id"] for r in replies[:first_refusal]] == [f"p{i}" for i in range(first_refusal)]
        assert len(replies) < 200 and kinds[-1] == "rate_limited"

    asyncio.run(go())
