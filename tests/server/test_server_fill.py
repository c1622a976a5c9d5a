"""A rematch somebody declined (issue 29, bug 11): the new table says who declined, and the
people at it may offer the free seat to the quick-match queue (``fill``): whoever waits there
is seated first; when nobody came in time, a bot takes the seat and the game starts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from club_client import ClubSocket, of
from test_server_e2e import seat_four

from tranque.client import TableClient, get_json, new_guest

pytestmark = pytest.mark.slow  # a game of four, then the new table


async def _declined_rematch(base: str) -> tuple[list[TableClient], str, list[TableClient]]:
    """Four people play an Oriente game (the preset: the queue's rules); seat 2 declines the
    rematch, the three others accept: the new table, and the three at it."""
    _, clients = await seat_four(base, "oriente")
    await asyncio.gather(*(c.play_game(seed=s) for s, c in enumerate(clients)))
    for s, c in enumerate(clients):
        await c.do({"type": "rematch", "accept": s != 2})
    offer = json.loads([f for f in clients[0].frames if f.startswith('{"type":"rematch"')][-1])
    new = offer["table"]
    assert offer["answers"] == ["yes", "yes", "no", "yes"] and new
    again = []
    for s in (0, 1, 3):
        n = TableClient(base, clients[s].token, new)
        await n.connect()
        again.append(n)
    return clients, new, again


def test_the_free_seat_goes_to_whoever_waits_in_the_queue(server_factory: Any) -> None:
    base = server_factory("--fill-time", "20").base

    async def go() -> None:
        clients, new, again = await _declined_rematch(base)
        info = await get_json(base, f"/api/tables/{new}")
        assert info["rematch"]["declined"] == [{"seat": 2, "nickname": "pc"}]
        assert info["filling"] is None and info["seats"][2]["kind"] == "empty"
        # Somebody else waits for an Oriente table of people.
        eva = await new_guest(base, "eva")
        sock = await ClubSocket(base).open()
        await sock.send({"type": "queue", "token": eva["token"], "variant": "oriente"})
        await sock.wait(of("queued"))
        # Who is not seated may not ask; one of the three may, once.
        outsider = TableClient(base, eva["token"], new, role="spectator")
        await outsider.connect()
        refused = await outsider.command({"type": "fill"})
        assert refused["type"] == "error" and refused["code"] == "spectator"
        ack = await again[0].command({"type": "fill"})
        assert ack["type"] == "ack", ack
        twice = await again[1].command({"type": "fill"})
        assert twice["type"] == "error" and twice["code"] == "filling"
        matched = await sock.wait(of("matched"), timeout=10)
        assert matched == {"type": "matched", "table": new, "seat": 2}
        info = await get_json(base, f"/api/tables/{new}")
        assert info["seats"][2]["nickname"] == "eva" and info["started"] is True
        fill = [e for e in again[1].events if e.get("type") == "fill"]
        assert fill and fill[0]["seat"] == 0 and fill[0]["deadline"] > 0
        for c in [*clients, *again, outsider]:
            await c.close()
        await sock.close()

    asyncio.run(go())


def test_a_bot_takes_the_free_seat_when_nobody_comes_in_time(server_factory: Any) -> None:
    base = server_factory("--fill-time", "1").base

    async def go() -> None:
        clients, new, again = await _declined_rematch(base)
        ack = await again[2].command({"type": "fill"})
        assert ack["type"] == "ack", ack
        await again[0].wait_for(lambda c: any(e["type"] == "started" for e in c.events), 15)
        info = await get_json(base, f"/api/tables/{new}")
        assert info["seats"][2]["kind"] == "bot" and info["started"] is True
        for c in [*clients, *again]:
            await c.close()

    asyncio.run(go())
