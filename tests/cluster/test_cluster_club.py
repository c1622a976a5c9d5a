"""The club on a cluster: one queue across the nodes, one lobby (Redis behind the club's ports)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from club_client import ClubSocket, assert_nothing_secret, of

from tranque.client import TableClient, create_table, get_json, new_guest


def test_people_on_two_nodes_wait_in_one_queue_and_sit_at_one_table(cluster_factory: Any) -> None:
    a, b = cluster_factory(2, "--fill-time", "2").bases

    async def go() -> None:
        try:
            guests, socks = [], []
            for base, nick in ((a, "ana"), (b, "bea"), (a, "cai")):
                g = await new_guest(base, nick)
                s = await ClubSocket(base).open()
                await s.send({"type": "queue", "token": g["token"], "variant": "oriente"})
                await s.wait(of("queued"))
                guests.append(g)
                socks.append(s)
            matched = [await s.wait(of("matched"), timeout=30) for s in socks]
            assert len({m["table"] for m in matched}) == 1
            table = matched[0]["table"]
            # Bea's node does not own the table (maybe): she plays through it all the same.
            bea = TableClient(b, guests[1]["token"], table)
            await bea.connect()
            assert bea.state["seat"] == matched[1]["seat"]
            seats = bea.table_info["seats"]
            assert [s["kind"] for s in seats].count("bot") == 1
            assert bea.table_info["settings"]["rules"] == "oriente"
            secrets = [g["token"] for g in guests] + [g["guest"] for g in guests]
            for s in socks:
                assert assert_nothing_secret(s.frames, secrets) >= 2
            await bea.close()
        finally:
            await ClubSocket.close_all()

    asyncio.run(go())


def test_a_public_table_on_one_node_is_in_the_lobby_of_the_other(cluster_factory: Any) -> None:
    a, b = cluster_factory(2).bases

    async def go() -> None:
        try:
            lobby_b = await ClubSocket(b).open()
            await lobby_b.send({"type": "lobby"})
            host = await new_guest(a, "ana")
            t = await create_table(a, host["token"], practice=False, seat=0, public=True)

            def listed(tables: list[dict[str, Any]], free: int) -> bool:
                return any(r["table"] == t["table"] and r["free"] == free for r in tables)

            await lobby_b.wait_listing(lambda ts: listed(ts, 3))
            bea = await new_guest(b, "bea")
            c = TableClient(b, bea["token"], t["table"])
            await c.connect()
            await c.do({"type": "sit", "seat": 1})
            await lobby_b.wait_listing(lambda ts: listed(ts, 2))
            await c.close()
        finally:
            await ClubSocket.close_all()

    asyncio.run(go())


def test_the_seats_players_are_the_same_through_either_node(cluster_factory: Any) -> None:
    """``/api/tables/{t}/players`` through a node that does not own the table names its people
    and bots as the owner does (they come from the log, not from the owner's memory)."""
    a, b = cluster_factory(2).bases

    async def go() -> None:
        pepa = await new_guest(a, "pepa")
        lola = await new_guest(b, "lola")
        t = await create_table(a, pepa["token"], practice=False, seat=0)
        tid = t["table"]
        host = TableClient(a, pepa["token"], tid)
        await host.connect()
        await host.do({"type": "add_bot", "seat": 1, "level": "facil"})
        guest = TableClient(b, lola["token"], tid)
        await guest.connect()
        await guest.do({"type": "sit", "seat": 2})
        owner = await get_json(a, f"/api/tables/{tid}/players")
        other = await get_json(b, f"/api/tables/{tid}/players")
        names = [s["nickname"] for s in owner["seats"]]
        assert names[0] == "pepa" and names[2] == "lola" and names[1] and names[3] is None
        assert [s["kind"] for s in owner["seats"]] == ["person", "bot", "person", "empty"]
        assert other == owner, (other, owner)
        await host.close()
        await guest.close()

    asyncio.run(go())
