"""Limits at the edge, through a real server: body size, typed bodies, rates and caps, frames."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import httpx
import pytest
import websockets

from tranque.client import TableClient, create_table, new_guest


def _post(base: str, path: str, body: Any, token: str | None = None) -> httpx.Response:
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    content = body if isinstance(body, str | bytes) else json.dumps(body)
    return httpx.post(base + path, content=content, headers=headers, timeout=30)


def test_a_body_over_one_mebibyte_is_refused_before_it_is_read(server: Any) -> None:
    # A length of 50 MB, and only a few bytes sent: the answer comes without the rest.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(
            b"POST /api/guests HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 52428800\r\n\r\n{"
        )
        head = ""
        while "too_large" not in head:
            chunk = s.recv(4096).decode()
            if not chunk:
                break
            head += chunk
    assert head.startswith("HTTP/1.1 413"), head
    assert '"code":"too_large"' in head.replace(" ", "")

    # No length at all (chunked): refused once it passes the limit.
    def chunks() -> Any:
        yield b'{"nickname": "'
        for _ in range(40):
            yield b"x" * 65536
        yield b'"}'

    r = httpx.post(server.base + "/api/guests", content=chunks(), timeout=30)
    assert r.status_code == 413 and r.json()["code"] == "too_large"
    # Just under the limit is read (and refused for what it says, not for its size).
    r = _post(server.base, "/api/guests", {"nickname": "x" * (1024 * 1024 - 20)})
    assert r.status_code == 400 and r.json()["code"] == "bad_nickname"


GUEST_BODIES = [
    ({"nickname": 123}, "bad_nickname"),
    ({"nickname": "<script>"}, "bad_nickname"),
    ({"nick": "ana"}, "unknown_field"),
    ("[1, 2]", "malformed"),
    ("{nope", "malformed"),
    ('"ana"', "malformed"),
]

TABLE_BODIES = [
    ({"nickname": 123}, "unknown_field"),
    ({"practice": False, "seat": 1.0}, "bad_seat"),
    ({"practice": "false"}, "bad_practice"),
    ({"practice": 0}, "bad_practice"),
    ({"seat": True}, "bad_seat"),
    ({"seat": 4}, "bad_seat"),
    ({"seat": "0"}, "bad_seat"),
    ("not json at all", "malformed"),
    ("", "malformed"),
    ("[]", "malformed"),
    ({"rules": {"target": 10**30}}, "bad_rules"),
    ({"rules": {"preset": "havana", "target": 1001}}, "bad_rules"),
    ({"rules": {"games_to_win_match": 50}}, "bad_rules"),
    ({"rules": {"capicua_multiplier": 1000}}, "bad_rules"),
    ({"rules": {"target": 0}}, "unknown_option"),
    ({"rules": {"target": "100"}}, "unknown_option"),
    ({"rules": "chess"}, "unknown_option"),
    ({"rules": 5}, "bad_rules"),
    ({"move_clock": 10**9}, "bad_clock"),
    ({"move_clock": 0.1}, "bad_clock"),
    ({"move_clock": "fast"}, "bad_clock"),
    ({"bot": "deep-blue"}, "bad_bot"),
    ({"bot": "strong-slow"}, "bad_bot"),  # a bot's name, not a level
    ({"bot": 7}, "bad_bot"),
    ({"color": "red"}, "unknown_field"),
]


@pytest.mark.slow
def test_every_mistyped_field_gets_a_400_with_a_code_and_nothing_is_made(
    server_factory: Any,
) -> None:
    server = server_factory("--test-seed", "00" * 32)
    base = server.base
    for body, code in GUEST_BODIES:
        r = _post(base, "/api/guests", body)
        assert r.status_code == 400 and r.json()["code"] == code, (body, r.status_code, r.text)
        assert r.json()["message"]
    # An empty body is a guest with a made-up nickname (the nickname is optional).
    r = httpx.post(base + "/api/guests", timeout=30)
    assert r.status_code == 200 and r.json()["nickname"].startswith("guest-")
    token = r.json()["token"]
    for body, code in TABLE_BODIES:
        r = _post(base, "/api/tables", body, token)
        assert r.status_code == 400 and r.json()["code"] == code, (body, r.status_code, r.text)
        assert r.json()["message"]
    r = _post(base, "/api/tables", {}, None)
    assert r.status_code == 401 and r.json()["code"] == "unauthenticated"
    r = _post(base, "/api/tables", {}, "forged.token")
    assert r.status_code == 401 and r.json()["code"] == "bad_token"
    # Nothing was created by any of them: the first table made now is t1.
    r = _post(
        base, "/api/tables", {"rules": {"preset": "havana", "target": 1000}, "bot": "facil"}, token
    )
    assert r.status_code == 200 and r.json()["table"] == "t1", r.text
    info = httpx.get(base + "/api/tables/t1", timeout=30).json()
    assert info["settings"]["rules"]["target"] == 1000
    assert [s["bot"] for s in info["seats"][1:]] == ["facil"] * 3
    assert "Traceback" not in server.errors()


def test_guest_and_table_creation_are_rate_limited_per_client(server_factory: Any) -> None:
    server = server_factory(
        "--guests-per-minute", "1", "--guest-burst", "3",
        "--tables-per-minute", "1", "--table-burst", "2",
    )  # fmt: skip
    base = server.base
    tokens = []
    for _ in range(3):
        r = _post(base, "/api/guests", {})
        assert r.status_code == 200
        tokens.append(r.json()["token"])
    r = _post(base, "/api/guests", {})
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    assert 1 <= int(r.headers["retry-after"]) <= 60
    for token in tokens[:2]:
        assert _post(base, "/api/tables", {}, token).status_code == 200
    r = _post(base, "/api/tables", {}, tokens[2])
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    assert 1 <= int(r.headers["retry-after"]) <= 60


def test_a_guest_hosts_a_capped_number_of_unfinished_tables(server_factory: Any) -> None:
    server = server_factory("--max-open-tables", "2")

    async def go() -> None:
        ana = await new_guest(server.base, "ana")
        for _ in range(2):
            await create_table(server.base, ana["token"], practice=False)
        r = _post(server.base, "/api/tables", {"practice": False}, ana["token"])
        assert r.status_code == 429 and r.json()["code"] == "too_many_tables", r.text
        assert int(r.headers["retry-after"]) >= 1
        # Another guest is not held back by Ana's tables.
        bea = await new_guest(server.base, "bea")
        await create_table(server.base, bea["token"], practice=False)

    asyncio.run(go())


def test_spectators_per_table_are_capped(server_factory: Any) -> None:
    server = server_factory("--max-spectators", "2")

    async def go() -> None:
        base = server.base
        host = await new_guest(base, "host")
        tid = (await create_table(base, host["token"], practice=False))["table"]
        watchers = []
        for n in range(2):
            g = await new_guest(base, f"w{n}")
            c = TableClient(base, g["token"], tid, role="spectator")
            await c.connect()
            watchers.append(c)
        late = await new_guest(base, "late")
        async with websockets.connect(base.replace("http", "ws", 1) + "/ws") as ws:
            hello = {"type": "hello", "token": late["token"], "table": tid, "role": "spectator"}
            await ws.send(json.dumps(hello))
            reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert reply["type"] == "error" and reply["code"] == "too_many_spectators"
            # A player is not a spectator: the cap does not keep him out.
            player = TableClient(base, late["token"], tid)
            await player.connect()
            await player.close()
            # Once a spectator goes, the next one gets in (on the same socket, after an error).
            await watchers.pop().close()
            for _ in range(100):
                await ws.send(json.dumps(hello))
                reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if reply["type"] == "sync":
                    break
                assert reply["code"] == "too_many_spectators"
                await asyncio.sleep(0.05)
            assert reply["type"] == "sync"
        for c in watchers:
            await c.close()

    asyncio.run(go())


def test_sockets_per_client_address_are_capped(server_factory: Any) -> None:
    server = server_factory("--max-sockets-per-ip", "3")
    url = server.base.replace("http", "ws", 1) + "/ws"

    async def go() -> None:
        opened = [await websockets.connect(url) for _ in range(3)]
        extra = await websockets.connect(url)
        with pytest.raises(websockets.ConnectionClosed) as info:
            await asyncio.wait_for(extra.recv(), 10)
        assert info.value.rcvd is not None and info.value.rcvd.code == 1008
        assert "too many connections" in info.value.rcvd.reason
        # The three are alive; when one closes, a new one is accepted.
        for ws in opened:
            await ws.send(json.dumps({"type": "ping"}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "pong"
        await opened.pop().close()
        for _ in range(100):
            ws = await websockets.connect(url)
            try:
                await ws.send(json.dumps({"type": "ping"}))
                assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "pong"
                break
            except websockets.ConnectionClosed:
                await asyncio.sleep(0.05)
        opened.append(ws)
        for ws in opened:
            await ws.close()

    asyncio.run(go())


def test_a_binary_frame_is_refused_and_the_socket_lives(server: Any) -> None:
    async def go() -> None:
        async with websockets.connect(server.base.replace("http", "ws", 1) + "/ws") as ws:
            await ws.send(json.dumps({"type": "ping", "id": "p"}).encode())
            reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert reply["type"] == "error" and reply["code"] == "malformed", reply
            assert "binary" in reply["message"]
            await ws.send(json.dumps({"type": "ping", "id": "q"}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "pong"

    asyncio.run(go())
