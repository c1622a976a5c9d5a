"""Friends across nodes: a request made through one node reaches the friend's socket on another,
presence crosses the bus, an invitation seats the friend at a table another node owns, and a
notice sent while the socket was away is there when it comes back, to any node."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from frame_scanner import private_leaks
from friends_client import Sock, account, call, kind, listen, ok

from tranque.client import create_table

pytestmark = pytest.mark.slow


def test_friends_on_two_nodes(cluster_factory: Any) -> None:
    a, b = cluster_factory(2).bases

    async def go() -> None:
        amparo, berto = await account(a, "Amparo"), await account(b, "Berto")
        cuca = await account(b, "Cuca")
        on_a, on_b, cuca_b = await listen(a, amparo), await listen(b, berto), await listen(b, cuca)
        socks = [on_a, on_b, cuca_b]
        try:
            ok(call(a, "POST", "/api/friends", amparo, {"name": "Berto"}))
            await on_b.wait(kind("notice", kind="friend_request", **{"from": "Amparo"}))
            ok(call(b, "POST", "/api/friends/Amparo/accept", berto))
            await on_a.wait(kind("notice", kind="friend_accepted", **{"from": "Berto"}))
            await on_a.wait(kind("presence", friend="Berto", status="online"))
            table = (await create_table(a, amparo, practice=False, seat=0))["table"]  # a owns it
            at = await Sock(a).open({"type": "hello", "token": amparo, "table": table}, "sync")
            socks.append(at)
            await on_b.wait(kind("presence", friend="Amparo", status="playing", table=table))
            assert {"name": "Amparo", "status": "playing", "table": table} in ok(
                call(b, "GET", "/api/friends", berto)
            )["friends"]
            partner = {"name": "Berto", "table": table, "seat": 2}
            ok(call(a, "POST", "/api/invites", amparo, partner))
            invite = await on_b.wait(kind("notice", kind="invite", table=table))
            sits = await Sock(b).open({"type": "hello", "token": berto, "table": table}, "sync")
            socks.append(sits)
            await sits.send({"type": "sit", "id": "s1", "seat": invite["notice"]["seat"]})
            await sits.wait(kind("ack", id="s1"))
            await at.wait(lambda m: m.get("type") == "event" and m["event"].get("type") == "sat"
                          and m["event"].get("seat") == 2)  # fmt: skip
            await on_a.wait(kind("presence", friend="Berto", status="playing", table=table))
            # Away from every node: the invitation waits, and comes with the socket to node a.
            await on_b.close()
            ok(call(a, "POST", "/api/invites", amparo, {"name": "Berto", "table": table}))
            back = await listen(a, berto)
            socks.append(back)
            first = back.messages[-1]
            assert first["type"] == "notices" and first["unread"] >= 3
            assert first["latest"][0]["kind"] == "invite" and first["latest"][0]["seat"] is None
            # Hidden on node b: his friend on node a sees him go.
            ok(call(b, "PUT", "/api/privacy", berto, {"show_online": False}))
            await on_a.wait(kind("presence", friend="Berto", status=None))
            # Removed on node b: her list on node a drops him at once.
            assert ok(call(b, "DELETE", "/api/friends/Amparo", berto)) == {"state": "removed"}
            await on_a.wait(kind("unfriended", friend="Berto"))
            assert ok(call(a, "GET", "/api/friends", amparo))["friends"] == []
            assert not private_leaks(cuca_b.frames, ["Amparo", "Berto"])
            assert not private_leaks(on_a.frames + at.frames, ["Cuca", "show_online"])
        finally:
            for s in socks:
                await s.close()

    asyncio.run(go())


def test_a_pair_on_two_nodes(cluster_factory: Any) -> None:
    """A pair proposed through one node is answered through the other (the proposal's notice
    crosses the bus), its page is the same on both, and its quick-match party seats the two by
    the pair's rating whichever node each queues on. Nobody else hears of it."""
    a, b = cluster_factory(2).bases

    async def go() -> None:
        amparo, cuca = await account(a, "Amparo"), await account(b, "Cuca")
        berto = await account(b, "Berto")
        on_a, on_c, on_b = await listen(a, amparo), await listen(b, cuca), await listen(b, berto)
        socks = [on_a, on_c, on_b]
        try:
            proposal = {"name": "Las-Primas", "partner": "Cuca"}
            ok(call(a, "POST", "/api/pairs", amparo, proposal))
            await on_c.wait(kind("notice", kind="pair_proposal", pair="Las-Primas"))
            ok(call(b, "POST", "/api/pairs/Las-Primas/accept", cuca))
            await on_a.wait(kind("notice", kind="pair_formed", pair="Las-Primas"))
            assert ok(call(a, "GET", "/api/pairs/Las-Primas")) == ok(
                call(b, "GET", "/api/pairs/Las-Primas")
            )
            party = ok(call(b, "POST", "/api/pairs/Las-Primas/party", cuca))["party"]
            await on_a.wait(kind("notice", kind="invite", party=party))
            queued = []
            for base, token in ((a, amparo), (b, cuca)):
                msg = {"type": "queue", "token": token, "variant": "havana", "party": party}
                q = await Sock(base).open(msg, "queued")
                socks.append(q)
                queued.append(await q.wait(kind("queued")))
            assert [m["type"] for m in queued] == ["queued", "queued"]
            assert [m["rating"] for m in queued] == [1500, 1500]
            forged = {"type": "queue", "token": berto, "variant": "havana", "party": party}
            refused_sock = await Sock(a).open(forged, "queued")
            socks.append(refused_sock)
            await refused_sock.wait(kind("error", code="not_your_pair"))
            assert not private_leaks(on_b.frames, ["Las-Primas", "Amparo", "Cuca"])
        finally:
            for s in socks:
                await s.close()

    asyncio.run(go())


def test_a_pena_on_two_nodes(cluster_factory: Any) -> None:
    """A request to join a peña made through one node reaches its admin's bell on the other;
    a peña's table owned by one node refuses a non-member who reaches it through the other
    (``not_a_member``: its owner decides) and seats a member accepted there."""
    a, b = cluster_factory(2).bases

    async def go() -> None:
        amparo, berto = await account(a, "Amparo"), await account(b, "Berto")
        cuca = await account(b, "Cuca")
        on_a = await listen(a, amparo)
        socks = [on_a]
        try:
            body = {"name": "Los-Del-Parque", "open": False, "emblem": "ancla"}
            ok(call(a, "POST", "/api/penas", amparo, body))
            ok(call(b, "POST", "/api/penas/Los-Del-Parque/join", berto))
            note = await on_a.wait(kind("notice", kind="pena_request", pena="Los-Del-Parque"))
            assert note["notice"]["from"] == "Berto"
            table_of = {"practice": False, "seat": 0, "pena": "Los-Del-Parque"}
            table = (await create_table(a, amparo, **table_of))["table"]  # a owns it
            # Cuca (not a member) reaches the table through node b: refused by its owner.
            c_at = await Sock(b).open({"type": "hello", "token": cuca, "table": table}, "sync")
            socks.append(c_at)
            await c_at.send({"type": "sit", "id": "c1", "seat": 1})
            await c_at.wait(kind("error", id="c1", code="not_a_member"))
            # Berto, accepted through node b, sits through node b.
            ok(call(b, "POST", "/api/penas/Los-Del-Parque/accept/Berto", amparo))
            b_at = await Sock(b).open({"type": "hello", "token": berto, "table": table}, "sync")
            socks.append(b_at)
            await b_at.send({"type": "sit", "id": "b1", "seat": 2})
            await b_at.wait(kind("ack", id="b1"))
            assert not private_leaks(c_at.frames, ["pena_request", berto, amparo])  # tokens
        finally:
            for s in socks:
                await s.close()

    asyncio.run(go())
