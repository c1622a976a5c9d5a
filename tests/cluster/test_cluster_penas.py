"""Peñas on two nodes sharing PostgreSQL: a person one short of the cap sends many joins and
foundings at once, half through each node, and belongs to exactly ``MAX_PENAS`` peñas after
(the rest refused ``too_many_penas``, 409); a peña's table, owned by one node, reaches its
member's lobby socket on the other node and nobody else's."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from friends_client import Sock, account, call, kind, ok

from tranque.client import create_table
from tranque.club.penas import MAX_PENAS

pytestmark = pytest.mark.slow


def test_the_cap_and_the_members_lobby_on_two_nodes(cluster_factory: Any) -> None:
    a, b = cluster_factory(2).bases

    async def go() -> None:
        dina, eva = await account(a, "Dina"), await account(b, "Eva")
        fito = await account(a, "Fito")
        for i in range(MAX_PENAS - 1):
            ok(call(a, "POST", "/api/penas", dina, {"name": f"Club-{i:02d}"}))
        for i in range(8):
            ok(call(b, "POST", "/api/penas", eva, {"name": f"Abierta-{i}"}))
        headers = {"authorization": f"Bearer {dina}"}
        async with httpx.AsyncClient(headers=headers, timeout=60) as client:
            sent = [
                client.post(f"{(a, b)[i % 2]}/api/penas/Abierta-{i}/join") for i in range(8)
            ] + [
                client.post(f"{(b, a)[i % 2]}/api/penas", json={"name": f"Nueva-{i}"})
                for i in range(4)
            ]
            answers = await asyncio.gather(*sent)
        codes = [(r.status_code, r.json().get("code")) for r in answers]
        assert codes.count((200, None)) == 1, codes
        assert codes.count((409, "too_many_penas")) == len(codes) - 1, codes
        assert len(ok(call(b, "GET", "/api/me/penas", dina))["penas"]) == MAX_PENAS
        # Her table of Club-00, owned by node b, reaches her lobby socket on node a (with her
        # twenty peñas); Fito's, on node a too, hears nothing of it.
        table = (await create_table(b, dina, practice=False, seat=0, pena="Club-00"))["table"]
        host = await Sock(b).open({"type": "hello", "token": dina, "table": table}, "sync")
        his = await Sock(a).open({"type": "lobby", "token": fito}, "lobby")
        hers = await Sock(a).open({"type": "lobby", "token": dina}, "pena_lobby")
        assert len((await hers.wait(kind("pena_lobby")))["penas"]) == MAX_PENAS
        await hers.wait(lambda m: (m.get("pena") == "Club-00" and table in str(m)) or (
            m.get("type") == "pena_lobby" and table in str(m)))  # fmt: skip
        for s in (host, hers, his):
            await s.close()
        assert table not in "".join(his.frames) and "Club-00" not in "".join(his.frames)

    asyncio.run(go())
