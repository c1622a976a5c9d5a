"""Friends through HTTP and sockets on one node: requests and their answers, presence pushed to
friends, an invitation that seats the friend, notices kept until read (a socket that comes back
finds them), privacy honoured, and typed refusals for bad requests. Nothing of a person's friends
or privacy reaches anybody else (``frame_scanner.private_leaks``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from frame_scanner import private_leaks
from friends_client import Sock, account, call, kind, listen, ok, refused

from tranque.client import create_table, new_guest

pytestmark = pytest.mark.slow


def test_bad_requests_are_refused_with_a_code(server: Any) -> None:
    base = server.base

    async def go() -> None:
        amparo, berto = await account(base, "Amparo"), await account(base, "Berto")
        guest = (await new_guest(base, "visita"))["token"]
        refused(call(base, "POST", "/api/friends", guest, {"name": "Berto"}), 403, "account_needed")
        refused(call(base, "GET", "/api/notices", guest), 403, "account_needed")
        refused(call(base, "GET", "/api/friends"), 401, "unauthenticated")
        refused(call(base, "POST", "/api/friends", amparo, {"name": "amparo"}), 400, "self_request")
        nobody = {"name": "Nadie"}
        refused(call(base, "POST", "/api/friends", amparo, nobody), 404, "unknown_account")
        refused(call(base, "POST", "/api/friends", amparo, {"name": "x" * 200}), 400, "bad_request")
        refused(call(base, "POST", "/api/friends", amparo, {"nombre": "B"}), 400, "unknown_field")
        sent = ok(call(base, "POST", "/api/friends", amparo, {"name": "Berto"}))
        assert sent == {"state": "sent"}
        refused(
            call(base, "POST", "/api/friends", amparo, {"name": "BERTO"}), 409, "already_requested"
        )
        refused(call(base, "POST", "/api/friends/Berto/accept", amparo), 404, "no_request")
        refused(call(base, "POST", "/api/friends/Nadie/decline", berto), 404, "unknown_account")
        # Both asked: that is a yes.
        assert ok(call(base, "POST", "/api/friends", berto, {"name": "amparo"})) == {
            "state": "friends"
        }
        again = {"name": "Amparo"}
        refused(call(base, "POST", "/api/friends", berto, again), 409, "already_friends")
        refused(call(base, "PUT", "/api/privacy", berto, {"invites": "all"}), 400, "bad_privacy")
        refused(call(base, "PUT", "/api/privacy", berto, {"show_online": 1}), 400, "bad_privacy")
        refused(call(base, "PUT", "/api/privacy", berto, [1]), 400, "bad_request")
        refused(
            call(base, "POST", "/api/invites", amparo, {"name": "Berto", "table": "nope"}),
            404,
            "no_table",
        )
        refused(call(base, "POST", "/api/invites", amparo, {"name": "Amparo", "table": "t"}), 400,
                "self_request")  # fmt: skip
        refused(call(base, "GET", "/api/notices?before=x", berto), 400, "bad_request")
        both = {"name": "Berto", "table": "t", "party": "abcdefgh1234"}
        refused(call(base, "POST", "/api/invites", amparo, both), 400, "bad_request")
        refused(call(base, "POST", "/api/invites", amparo, {"name": "Berto"}), 400, "bad_request")
        bad = {"name": "Berto", "party": "no good"}
        refused(call(base, "POST", "/api/invites", amparo, bad), 400, "bad_request")
        assert ok(call(base, "DELETE", "/api/friends/Amparo", berto)) == {"state": "removed"}
        refused(call(base, "DELETE", "/api/friends/Amparo", berto), 404, "not_friends")
        # A socket at a table does not listen: the page keeps one socket for the bell.
        table = (await create_table(base, amparo, practice=False, seat=0))["table"]
        at = await Sock(base).open({"type": "hello", "token": amparo, "table": table}, "sync")
        await at.send({"type": "notices", "token": amparo})
        await at.wait(kind("error", code="already_joined"))
        await at.close()
        # A guest's socket may not listen for notices.
        s = await Sock(base).open({"type": "notices", "token": guest}, "notices")
        assert s.messages[-1]["code"] == "account_needed"
        await s.close()

    asyncio.run(go())


def test_a_friend_is_asked_told_invited_and_seated(server: Any) -> None:
    base = server.base

    async def go() -> None:
        amparo, berto = await account(base, "Amparo"), await account(base, "Berto")
        cuca = await account(base, "Cuca")
        on_a, on_b, on_c = (
            await listen(base, amparo),
            await listen(base, berto),
            await listen(base, cuca),
        )
        socks = [on_a, on_b, on_c]
        try:
            ok(call(base, "POST", "/api/friends", amparo, {"name": "berto"}))
            await on_b.wait(kind("notice", kind="friend_request", **{"from": "Amparo"}))
            got = ok(call(base, "GET", "/api/friends", berto))
            assert got == {"friends": [], "incoming": ["Amparo"], "outgoing": []}
            ok(call(base, "POST", "/api/friends/amparo/accept", berto))
            await on_a.wait(kind("notice", kind="friend_accepted", **{"from": "Berto"}))
            await on_a.wait(kind("presence", friend="Berto", status="online"))
            # Cuca is Berto's friend too: Amparo never hears of her.
            ok(call(base, "POST", "/api/friends", cuca, {"name": "Berto"}))
            ok(call(base, "POST", "/api/friends/Cuca/accept", berto))
            await on_c.wait(kind("presence", friend="Berto", status="online"))
            # Amparo sits at a table: Berto sees where.
            table = (await create_table(base, amparo, practice=False, seat=0))["table"]
            at = await Sock(base).open({"type": "hello", "token": amparo, "table": table}, "sync")
            socks.append(at)
            await on_b.wait(kind("presence", friend="Amparo", status="playing", table=table))
            friends = ok(call(base, "GET", "/api/friends", berto))["friends"]
            assert {"name": "Amparo", "status": "playing", "table": table} in friends
            # An invitation to sit as her partner: Berto's socket says where, and he sits there.
            partner = {"name": "Berto", "table": table, "seat": 2}
            ok(call(base, "POST", "/api/invites", amparo, partner))
            invite = await on_b.wait(kind("notice", kind="invite", table=table))
            assert invite["notice"]["seat"] == 2 and invite["unread"] >= 1
            sits = await Sock(base).open({"type": "hello", "token": berto, "table": table}, "sync")
            socks.append(sits)
            await sits.send({"type": "sit", "id": "s1", "seat": invite["notice"]["seat"]})
            await sits.wait(kind("ack", id="s1"))
            await on_a.wait(kind("presence", friend="Berto", status="playing", table=table))
            # The quick match as partners, without a link to pass: the party's id in his bell.
            party = ok(call(base, "POST", "/api/parties", amparo))["party"]
            ok(call(base, "POST", "/api/invites", amparo, {"name": "Berto", "party": party}))
            await on_b.wait(kind("notice", kind="invite", party=party))
            # Privacy: invitations from nobody; then his status hidden, from everyone at once.
            ok(call(base, "PUT", "/api/privacy", berto, {"invites": "nobody"}))
            refused(
                call(base, "POST", "/api/invites", amparo, {"name": "Berto", "table": table}),
                403,
                "invites_refused",
            )
            ok(call(base, "PUT", "/api/privacy", berto, {"invites": "friends"}))
            dalia = await account(base, "Dalia")  # not his friend
            refused(
                call(base, "POST", "/api/invites", dalia, {"name": "Berto", "table": table}),
                403,
                "invites_refused",
            )
            assert ok(call(base, "PUT", "/api/privacy", berto, {"show_online": False})) == {
                "invites": "friends",
                "show_online": False,
            }
            await on_a.wait(kind("presence", friend="Berto", status=None))
            friends = ok(call(base, "GET", "/api/friends", amparo))["friends"]
            assert friends == [{"name": "Berto", "status": None, "table": None}]
            # Nothing of Berto's other friend, nor of anybody's privacy, reached Amparo; Cuca
            # heard nothing of Amparo.
            assert not private_leaks(on_a.frames + at.frames, ["Cuca", "show_online", "invites"])
            assert not private_leaks(on_c.frames, ["Amparo"])  # where Berto sits is hers to see
            assert not private_leaks(sits.frames, ["Cuca", "show_online"])
        finally:
            for s in socks:
                await s.close()

    asyncio.run(go())


def test_notices_wait_for_a_socket_that_comes_back_and_are_paged(server: Any) -> None:
    base = server.base

    async def go() -> None:
        amparo, berto = await account(base, "Amparo"), await account(base, "Berto")
        away = await listen(base, berto)
        assert away.messages[-1] == {"type": "notices", "unread": 0, "latest": []}
        await away.close()
        ok(call(base, "POST", "/api/friends", amparo, {"name": "Berto"}))
        ok(call(base, "POST", "/api/friends/Amparo/accept", berto))
        table = (await create_table(base, amparo, practice=False, seat=0))["table"]
        for _ in range(24):
            ok(call(base, "POST", "/api/invites", amparo, {"name": "Berto", "table": table}))
        back = await listen(base, berto)
        try:
            first = back.messages[-1]
            assert first["unread"] == 25 and len(first["latest"]) == 20
            assert first["latest"][0]["kind"] == "invite" and first["latest"][0]["table"] == table
            page = ok(call(base, "GET", "/api/notices?limit=20", berto))
            more = ok(call(base, "GET", f"/api/notices?before={page['next']}", berto))
            ids = [n["id"] for n in page["notices"] + more["notices"]]
            assert len(ids) == 25 == len(set(ids)) and ids == sorted(ids, reverse=True)
            assert more["next"] is None and more["notices"][-1]["kind"] == "friend_request"
            assert ok(call(base, "POST", "/api/notices/read", berto, {"ids": ids[:5]})) == {
                "unread": 20
            }
            await back.wait(kind("unread", unread=20))
            assert ok(call(base, "POST", "/api/notices/read", berto, {})) == {"unread": 0}
            await back.wait(kind("unread", unread=0))
            # Another person's notices are not his to read or mark.
            ok(call(base, "POST", "/api/notices/read", amparo, {"ids": ids}))
            assert ok(call(base, "GET", "/api/notices", amparo))["notices"][0]["read"] is False
        finally:
            await back.close()

    asyncio.run(go())
