"""Blocks in the quick match, for one node and for two (the Redis queue): the same check."""

from __future__ import annotations

from typing import Any

import httpx
from club_client import ClubSocket, of

from tranque.client import new_guest


async def never_seated_together(bases: list[str]) -> None:
    """Five people queue (through the nodes in turn); Ana blocks Bea first. Everyone is
    seated (the fill time seats whoever waits), and never Ana and Bea at one table."""
    try:
        names = ["ana", "bea", "cai", "dan", "eva"]
        guests = [await new_guest(bases[i % len(bases)], n) for i, n in enumerate(names)]
        async with httpx.AsyncClient(timeout=30) as http:
            r = await http.post(
                bases[0] + "/api/blocks",
                json={"person": "~" + guests[1]["guest"]},
                headers={"authorization": f"Bearer {guests[0]['token']}"},
            )
            assert r.status_code == 200 and r.json()["blocked"] is True, r.text
        socks: list[ClubSocket] = []
        for i, g in enumerate(guests):
            s = await ClubSocket(bases[i % len(bases)]).open()
            await s.send({"type": "queue", "token": g["token"], "variant": "oriente"})
            await s.wait(of("queued"))
            socks.append(s)
        matched: list[dict[str, Any]] = [await s.wait(of("matched"), 60) for s in socks]
        assert matched[0]["table"] != matched[1]["table"], matched
        # Ana's table is someone's else's too unless the fill time seated her with bots.
        tables = {m["table"] for m in matched}
        assert 2 <= len(tables) <= 3, matched
    finally:
        await ClubSocket.close_all()


async def phrases_hidden(bases: list[str]) -> None:
    """Ana blocks Bea; at a table of Ana, Bea and Cai (Ana's socket on the last node given),
    Bea's phrase reaches Cai and not Ana; Cai's reaches both. Frames come in order from the
    table's owner, so Ana's getting Cai's later phrase says Bea's never came."""
    from tranque.client import TableClient, create_table

    guests = [await new_guest(bases[0], n) for n in ("ana", "bea", "cai")]
    async with httpx.AsyncClient(timeout=30) as http:
        r = await http.post(
            bases[0] + "/api/blocks",
            json={"person": "~" + guests[1]["guest"]},
            headers={"authorization": f"Bearer {guests[0]['token']}"},
        )
        assert r.status_code == 200, r.text
    t = await create_table(bases[0], guests[0]["token"], practice=False, seat=0)
    ana = TableClient(bases[-1], guests[0]["token"], t["table"])
    bea = TableClient(bases[0], guests[1]["token"], t["table"])
    cai = TableClient(bases[0], guests[2]["token"], t["table"])
    for c in (ana, bea, cai):
        await c.connect()
    assert (await bea.do({"type": "sit", "seat": 1}))["type"] == "ack"
    assert (await cai.do({"type": "sit", "seat": 2}))["type"] == "ack"

    def said(c: TableClient, seat: int) -> bool:
        return any('"said"' in f and f'"seat":{seat}' in f for f in c.frames)

    assert (await bea.command({"type": "say", "phrase": "suerte"}))["type"] == "ack"
    await cai.wait_for(lambda c: said(c, 1), 30)
    assert (await cai.command({"type": "say", "phrase": "gracias"}))["type"] == "ack"
    await ana.wait_for(lambda c: said(c, 2), 30)
    assert not said(ana, 1), [f for f in ana.frames if '"said"' in f]
    for c in (ana, bea, cai):
        await c.close()
