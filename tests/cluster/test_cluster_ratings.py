"""Ratings on a cluster: the node that owns a table looks up its seats' ratings and saves the
record (settling the ratings in that transaction); the sockets of every node at the table get
both, through the bus; the other node's lobby shows the seats' ratings."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from club_client import ClubSocket, assert_nothing_secret
from frame_scanner import scan_all
from test_server_e2e import seat_four

from tranque.client import get_json, random_legal
from tranque.club.ratings import Skill, rate

NEW = {"rating": 1500, "provisional": True, "games": 0, "completion": None}


def told(c: Any, kind: str) -> list[dict[str, Any]]:
    return [m for m in (json.loads(f) for f in c.frames) if m.get("type") == kind]


def seat_ratings(c: Any) -> list[Any] | None:
    frames = told(c, "ratings")
    if frames:
        return list(frames[-1]["seats"])
    r = (c.last_sync or {}).get("ratings")
    return None if r is None else list(r["seats"])


def test_people_on_two_nodes_get_the_seats_ratings_and_each_change(cluster_factory: Any) -> None:
    a, b = cluster_factory(2).bases

    async def go() -> None:
        try:
            lobby_b = await ClubSocket(b).open()
            await lobby_b.send({"type": "lobby"})
            # The table is created on node a (its owner); seats 1 and 3 connect through b.
            tid, clients = await seat_four(a, "barrio", names="pqrs", bases=[a, b], public=True)
            assert [c.base for c in clients] == [a, b, a, b]
            for c in clients:
                await c.wait_for(lambda c: seat_ratings(c) == [NEW] * 4, 30)

            def line(tables: list[dict[str, Any]]) -> list[Any] | None:
                rows = [x for x in tables if x["table"] == tid]
                return [s["rating"] for s in rows[0]["seats"]] if rows else None

            await lobby_b.wait_listing(lambda ts: line(ts) == [NEW] * 4)
            await asyncio.gather(*(c.play_game(random_legal, timeout=900) for c in clients))
            for c in clients:
                await c.wait_for(lambda c: bool(told(c, "rating")), 30)
            frames = [told(c, "rating") for c in clients]
            assert all(f == frames[0] and len(f) == 1 for f in frames)  # the same, once
            info = await get_json(b, f"/api/tables/{tid}")
            winner = "AB".index(info["result"]["winner"])
            expected = rate([Skill()] * 4, winner, info["result"]["pollona"])
            changes = frames[0][0]["seats"]
            assert [c["after"] for c in changes] == [round(x.mu) for x in expected]
            record = await get_json(b, f"/api/tables/{tid}/record")
            scan_all(clients, record, at_least=5)
            players = await get_json(b, f"/api/tables/{tid}/players")
            secrets = [c.token for c in clients] + [p["profile"][1:] for p in players["seats"]]
            mine = [f for c in clients for f in c.frames if '"type":"rating' in f]
            assert assert_nothing_secret(mine + lobby_b.frames, secrets) >= 9
            for c in clients:
                await c.close()
        finally:
            await ClubSocket.close_all()

    asyncio.run(go())
