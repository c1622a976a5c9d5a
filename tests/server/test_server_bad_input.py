"""Bad input of every kind: an error frame with a code, no change, the connection alive."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import websockets
from test_server_e2e import seat_four

from tranque.client import TableClient, get_json, new_guest


async def _raw(ws: Any, msg: Any) -> dict[str, Any]:
    await ws.send(msg if isinstance(msg, str) else json.dumps(msg))
    while True:
        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if reply["type"] in ("error", "ack", "pong"):
            return dict(reply)


def test_every_kind_of_bad_input_is_refused_and_changes_nothing(server: Any) -> None:
    async def go() -> None:
        base = server.base
        tid, clients = await seat_four(base, {"preset": "havana", "target": 30})
        # Let the hand be dealt and the lead chosen, up to a person's turn.
        await asyncio.gather(
            *(
                c.play_game(stop=lambda c: any(x.state.get("legal") for x in clients))
                for c in clients
            )
        )
        turn = next(c for c in clients if c.state.get("legal"))
        other = next(c for c in clients if c is not turn)
        seq_before = turn.seq
        tiles = set(turn.state["tiles"].split())
        not_mine = next(t for t in ("99", "98", "88", "97", "87", "77") if t not in tiles)
        legal = turn.state["legal"][0]

        async def refused(c: TableClient, msg: dict[str, Any], code: str) -> None:
            reply = await c.command(msg)
            assert reply["type"] == "error" and reply["code"] == code, (msg, reply)
            assert reply["message"]

        await refused(other, {"type": "play", "seq": other.seq, "move": legal}, "not_your_turn")
        await refused(turn, {"type": "play", "seq": turn.seq, "move": not_mine}, "tile_not_in_hand")
        await refused(turn, {"type": "play", "seq": turn.seq - 1, "move": legal}, "stale")
        await refused(turn, {"type": "play", "seq": turn.seq, "move": "pass"}, "server_passes")
        await refused(turn, {"type": "play", "seq": turn.seq, "move": "x9"}, "malformed_move")
        await refused(turn, {"type": "sit", "seat": 0}, "started")
        not_host = next(c for c in clients[1:] if c is not turn)
        await refused(not_host, {"type": "add_bot", "seat": 0}, "not_host")
        # A seat cannot be named: the seat is the token's, so another's token cannot act for it.
        await refused(
            other, {"type": "play", "seq": other.seq, "move": legal, "seat": 0}, "malformed"
        )
        await refused(turn, {"type": "teleport"}, "unknown_type")
        await refused(turn, {"type": "play", "seq": turn.seq}, "malformed")
        await refused(turn, {"type": "play", "seq": "x", "move": legal}, "malformed")

        async def raw(msg: Any) -> str:
            n = len(turn.errors)
            await turn.send_raw(msg if isinstance(msg, str) else json.dumps(msg))
            await turn.wait_for(lambda c: len(c.errors) > n, 10)
            return str(turn.errors[-1]["code"])

        assert await raw({"type": "ping", "pad": "x" * 5000}) == "too_large"
        assert await raw("{not json") == "malformed"
        assert await raw("[1, 2]") == "malformed"  # JSON, but not an object
        assert await raw({"type": "hello", "token": "x", "table": tid}) == "already_joined"
        # Nothing changed, and the connection is alive.
        assert turn.seq == seq_before
        assert (await turn.command({"type": "ping"}))["type"] == "pong"

        # Duplicate: a resend of an applied command gets the original answer.
        play = {"type": "play", "id": "dup-1", "seq": turn.seq, "move": legal}
        first = await turn.command(play)
        assert first["type"] == "ack"
        again = await turn.command(play)
        assert again == first
        # Nothing was applied twice: the table's own log holds the play once, at its first seq.
        log = await get_json(base, f"/api/tables/{tid}/history")
        plays = [e for e in log if e.get("type") == "played" and e.get("move") == legal]
        assert [e["seq"] for e in plays] == [first["seq"]]

        # Unauthenticated: commands before hello, and a forged token.
        async with websockets.connect(base.replace("http", "ws", 1) + "/ws") as raw:
            cmd = {"type": "play", "id": "u1", "seq": 0, "move": legal}
            assert (await _raw(raw, cmd))["code"] == "unauthenticated"
            hello = {"type": "hello", "token": turn.token[:-2] + "xx", "table": tid}
            assert (await _raw(raw, hello))["code"] == "bad_token"
            assert (await _raw(raw, {"type": "hello", "token": turn.token, "table": "nope"}))[
                "code"
            ] == "no_table"
            assert (await _raw(raw, {"type": "ping", "id": "p"}))["type"] == "pong"
        # A spectator cannot act.
        g = await new_guest(base, "eve")
        spy = TableClient(base, g["token"], tid, role="spectator")
        await spy.connect()
        reply = await spy.command({"type": "play", "seq": spy.seq, "move": legal})
        assert reply["code"] == "spectator"
        await spy.close()
        for c in clients:
            await c.close()

    asyncio.run(go())


async def flood(ws: Any, n: int = 200) -> list[dict[str, Any]]:
    """Send ``n`` pings without reading, then read every reply until the socket is closed."""
    replies = []
    try:
        for i in range(n):
            await ws.send(json.dumps({"type": "ping", "id": f"p{i}"}))
        async for text in ws:
            replies.append(json.loads(text))
    except websockets.ConnectionClosed:
        pass
    return replies


def test_a_flood_gets_refused_then_closed_with_policy_violation(server_factory: Any) -> None:
    sp = server_factory("--rate", "10")

    async def go() -> None:
        url = sp.base.replace("http", "ws", 1) + "/ws"
        async with websockets.connect(url) as ws:
            replies = await flood(ws)
            assert ws.close_code == 1008
        kinds = [r.get("code") or r["type"] for r in replies]
        # The burst (three seconds' worth at --rate 10) is answered in order, then refused...
        first_refusal = kinds.index("rate_limited")
        assert first_refusal >= 30, kinds
        assert [r["id"] for r in replies[:30]] == [f"p{i}" for i in range(30)]
        assert set(kinds[:first_refusal]) == {"pong"}
        # ... and the socket is closed long before the flood is over.
        assert len(replies) < 200 and kinds[-1] == "rate_limited"
        # The server goes on serving everyone else.
        async with websockets.connect(url) as calm:
            assert (await _raw(calm, {"type": "ping", "id": "after"}))["type"] == "pong"

    asyncio.run(go())
