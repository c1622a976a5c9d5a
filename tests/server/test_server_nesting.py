"""JSON nested past any real message's depth: a typed ``malformed``, never a 500 or a traceback.

msgspec decodes a free-form field (a table's ``rules`` object) by recursing once per level and
gives up with ``RecursionError`` near a thousand levels: a 200 kB body of brackets used to reach
the ASGI layer as a 500 and log a traceback on every request.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import websockets

DEPTH = 100_000


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_a_deeply_nested_body_is_malformed_and_logs_no_traceback(server: Any) -> None:
    base = server.base
    guest = httpx.post(base + "/api/guests", timeout=30).json()
    headers = {"authorization": f"Bearer {guest['token']}", "content-type": "application/json"}
    bodies = [
        '{"rules": {"target": ' + _nested(DEPTH) + "}}",
        '{"rules": {"preset": "havana", "x": ' + '{"a": ' * DEPTH + "1" + "}" * DEPTH + "}}",
    ]
    for body in bodies:
        for _ in range(3):  # once per request, every time
            r = httpx.post(base + "/api/tables", content=body, headers=headers, timeout=30)
            assert r.status_code == 400, (r.status_code, r.text[:200])
            # Since the rules object is typed (option names and values are words or numbers), the
            # schema refuses the first nested level as a wrong type; a free-form field would
            # reach the decoder's recursion limit and be refused as nested too deeply.
            code, message = r.json()["code"], r.json()["message"]
            assert (code, "nested" in message) in {("malformed", True), ("bad_rules", False)}
    # The server still makes tables, and its log holds no traceback.
    r = httpx.post(base + "/api/tables", json={}, headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    errors = server.errors()
    assert "Traceback" not in errors and "RecursionError" not in errors, errors[-2000:]


def test_a_deeply_nested_message_is_malformed_and_the_socket_lives(server: Any) -> None:
    # The largest message a socket takes (2,048 bytes) nests a thousand levels: enough for
    # msgspec's limit, since the tagged union looks past unknown keys for its ``type``.
    async def go() -> None:
        async with websockets.connect(server.base.replace("http", "ws", 1) + "/ws") as ws:
            for text in ('{"x": ' + _nested(1010) + "}", _nested(1020)):
                assert len(text) <= 2048
                await ws.send(text)
                reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
                assert reply["type"] == "error" and reply["code"] == "malformed", reply
            await ws.send(json.dumps({"type": "ping", "id": "p"}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "pong"

    asyncio.run(go())
    errors = server.errors()
    assert "Traceback" not in errors and "RecursionError" not in errors, errors[-2000:]
