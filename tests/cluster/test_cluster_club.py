"""The club on a cluster: one queue across the nodes, one lobby (Redis behind the club's ports)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from club_client import ClubSocket, assert_nothing_secret, of

from tranque.client import TableClient, create_table, new_guest


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
