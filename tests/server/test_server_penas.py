"""Peñas through HTTP and sockets on one node: founded, joined (open at once, by invitation as a
request an admin accepts, or by an admin's invitation), the admins' and the founder's powers and
their typed refusals, the board (escaped by the page, limited here), guests refused; a peña's
table seats its members alone (``not_a_member`` over the socket) and is never in the lobby.
Nothing private (guest ids, tokens, requests) reaches a non-member (``private_leaks``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from frame_scanner import private_leaks
from friends_client import Sock, account, call, kind, listen, ok, refused

from tranque.client import create_table, new_guest

pytestmark = pytest.mark.slow

NEW = {"name": "La-Esquina", "description": "Los de la esquina de Obispo", "open": False,
       "emblem": "gallo"}  # fmt: skip


def test_a_pena_is_founded_joined_and_run_by_its_admins(server: Any) -> None:
    base = server.base

    async def go() -> None:
        ana, beto = await account(base, "Ana"), await account(base, "Beto")
        cary, dino = await account(base, "Cary"), await account(base, "Dino")
        on_a, on_c = await listen(base, ana), await listen(base, cary)
        try:
            assert ok(call(base, "POST", "/api/penas", ana, NEW)) == {
                "state": "founded", "pena": "La-Esquina"}  # fmt: skip
            # Taken: the same, another case, look-alikes (Cyrillic а, a one for l, an accent).
            for same in ("La-Esquina", "LA-ESQUINA", "L\u0430-Esquina", "1a-Esquina", "La-Esquína"):
                refused(call(base, "POST", "/api/penas", beto, {**NEW, "name": same}), 409,
                        "name_taken")  # fmt: skip
            # By invitation: Beto's join is a request; the founder's bell says so.
            assert ok(call(base, "POST", "/api/penas/la-esquina/join", beto))["state"] == (
                "requested"
            )
            note = await on_a.wait(kind("notice", kind="pena_request", pena="La-Esquina"))
            assert note["notice"]["from"] == "Beto"
            refused(call(base, "POST", "/api/penas/La-Esquina/join", beto), 409,
                    "already_requested")  # fmt: skip
            page = ok(call(base, "GET", "/api/penas/La-Esquina", ana))
            assert page["pending"] == [{"name": "Beto", "kind": "request"}]
            assert page["me"] == "founder" and "tables" in page
            # A non-member does not see requests nor tables; Beto is "request".
            page = ok(call(base, "GET", "/api/penas/La-Esquina", beto))
            assert page["me"] == "request" and "pending" not in page and "tables" not in page
            ok(call(base, "POST", "/api/penas/La-Esquina/accept/Beto", ana))
            # An invitation: Cary's bell, then his join is immediate.
            assert ok(call(base, "POST", "/api/penas/La-Esquina/invite", ana,
                           {"name": "Cary"}))["state"] == "invited"  # fmt: skip
            await on_c.wait(kind("notice", kind="pena_invite", pena="La-Esquina"))
            assert ok(call(base, "POST", "/api/penas/La-Esquina/join", cary))["state"] == "joined"
            # A member removes nobody, invites nobody, writes nothing on the board.
            refused(call(base, "POST", "/api/penas/La-Esquina/remove/Cary", beto), 403,
                    "not_allowed")  # fmt: skip
            refused(call(base, "POST", "/api/penas/La-Esquina/invite", beto, {"name": "Dino"}),
                    403, "not_allowed")  # fmt: skip
            refused(call(base, "POST", "/api/penas/La-Esquina/board", beto, {"text": "hola"}),
                    403, "not_allowed")  # fmt: skip
            # The founder promotes Beto; an admin removes a member, not another admin nor the
            # founder, and promotes nobody.
            ok(call(base, "POST", "/api/penas/La-Esquina/promote/Beto", ana))
            refused(call(base, "POST", "/api/penas/La-Esquina/remove/Ana", beto), 403,
                    "not_allowed")  # fmt: skip
            refused(call(base, "POST", "/api/penas/La-Esquina/promote/Cary", beto), 403,
                    "not_allowed")  # fmt: skip
            assert ok(call(base, "POST", "/api/penas/La-Esquina/remove/Cary", beto)) == {
                "state": "removed", "pena": "La-Esquina"}  # fmt: skip
            refused(call(base, "POST", "/api/penas/La-Esquina/remove/Cary", beto), 404,
                    "not_a_member")  # fmt: skip
            # An admin answers requests too (refusing one is removing it).
            ok(call(base, "POST", "/api/penas/La-Esquina/join", dino))
            assert ok(call(base, "POST", "/api/penas/La-Esquina/remove/Dino", beto))["state"] == (
                "refused"
            )
            # The founder stays; an admin may leave (and is a member no more).
            refused(call(base, "POST", "/api/penas/La-Esquina/leave", ana), 409, "founder_stays")
            ok(call(base, "POST", "/api/penas/La-Esquina/demote/Beto", ana))
            assert ok(call(base, "POST", "/api/penas/La-Esquina/leave", beto))["state"] == "left"
            refused(call(base, "POST", "/api/penas/La-Esquina/leave", beto), 404, "not_a_member")
            # The board: newest first, kept as written (the page escapes it), limited.
            ok(call(base, "POST", "/api/penas/La-Esquina/board", ana, {"text": "<b>viernes</b>"}))
            ok(call(base, "POST", "/api/penas/La-Esquina/board", ana, {"text": "  sábado  "}))
            refused(call(base, "POST", "/api/penas/La-Esquina/board", ana, {"text": "x" * 501}),
                    400, "post_too_long")  # fmt: skip
            refused(call(base, "POST", "/api/penas/La-Esquina/board", ana, {"text": "  "}),
                    400, "empty_post")  # fmt: skip
            board = ok(call(base, "GET", "/api/penas/La-Esquina"))["board"]
            assert [p["text"] for p in board] == ["sábado", "<b>viernes</b>"]
            assert board[0]["author"] == "Ana"
            # Everybody may read a peña's page and the list; mine says my role.
            listing = ok(call(base, "GET", "/api/penas"))["penas"]
            assert [(p["name"], p["members"], p["open"]) for p in listing] == [
                ("La-Esquina", 1, False)]  # fmt: skip
            assert ok(call(base, "GET", "/api/me/penas", ana))["penas"] == [
                {"name": "La-Esquina", "emblem": "gallo", "role": "founder"}]  # fmt: skip
        finally:
            for s in (on_a, on_c):
                await s.close()
        # Cary, removed, heard nothing of the requests of others, nor anyone's guest id.
        assert private_leaks(on_c.frames, ["Dino", "token"]) == []

    asyncio.run(go())


def test_an_open_pena_and_bad_requests(server: Any) -> None:
    base = server.base

    async def go() -> None:
        ana, beto = await account(base, "Ana"), await account(base, "Beto")
        guest = (await new_guest(base, "visita"))["token"]
        good = {"name": "Los-Socios", "open": True, "emblem": "palma"}
        refused(call(base, "POST", "/api/penas", guest, good), 403, "account_needed")
        refused(call(base, "POST", "/api/penas", None, good), 401, "unauthenticated")
        for bad in ("a", "x" * 30, "no spaces", "__"):
            refused(call(base, "POST", "/api/penas", ana, {**good, "name": bad}), 400, "bad_name")
        refused(call(base, "POST", "/api/penas", ana, {**good, "emblem": "calavera"}), 400,
                "bad_emblem")  # fmt: skip
        refused(call(base, "POST", "/api/penas", ana, {**good, "description": "d" * 281}), 400,
                "bad_description")  # fmt: skip
        refused(call(base, "POST", "/api/penas", ana, {**good, "nombre": "x"}), 400,
                "unknown_field")  # fmt: skip
        refused(call(base, "POST", "/api/penas", ana, [1]), 400, "bad_request")
        ok(call(base, "POST", "/api/penas", ana, good))
        refused(call(base, "POST", "/api/penas/Los-Socios/join", guest), 403, "account_needed")
        refused(call(base, "POST", "/api/penas/Nadie/join", beto), 404, "no_pena")
        refused(call(base, "GET", "/api/penas/Nadie"), 404, "no_pena")
        # Open: joining is immediate; twice is refused.
        assert ok(call(base, "POST", "/api/penas/Los-Socios/join", beto))["state"] == "joined"
        refused(call(base, "POST", "/api/penas/Los-Socios/join", beto), 409, "already_member")
        refused(call(base, "POST", "/api/penas/Los-Socios/accept/Nadie", ana), 404,
                "unknown_account")  # fmt: skip
        refused(call(base, "POST", "/api/penas/Los-Socios/remove/Ana", ana), 400, "self_remove")
        page = ok(call(base, "GET", "/api/penas/Los-Socios"))
        assert [(m["name"], m["role"]) for m in page["members"]] == [
            ("Ana", "founder"), ("Beto", "member")]  # fmt: skip
        assert "guest" not in str(page) and "token" not in str(page)
        # Nobody's guest id nor token in what anybody reads of a peña (a member's view too).
        ids = [ok(call(base, "GET", "/api/me", t))["guest"] for t in (ana, beto)]
        read = [
            call(base, "GET", path, who).text
            for path in ("/api/penas", "/api/penas/Los-Socios", "/api/me/penas")
            for who in (ana, beto)
        ]
        assert private_leaks(read, [*ids, ana, beto, "password"]) == []

    asyncio.run(go())


def test_a_penas_table_seats_its_members_alone(server: Any) -> None:
    base = server.base

    async def go() -> None:
        ana, beto = await account(base, "Ana"), await account(base, "Beto")
        cary = await account(base, "Cary")
        guest = (await new_guest(base, "visita"))["token"]
        ok(call(base, "POST", "/api/penas", ana, {"name": "Mesa-Cuatro", "open": True}))
        ok(call(base, "POST", "/api/penas/Mesa-Cuatro/join", beto))
        # A non-member (and a guest) cannot open one of its tables.
        table_of = {"practice": False, "seat": 0, "pena": "Mesa-Cuatro"}
        refused(call(base, "POST", "/api/tables", cary, table_of), 403, "not_a_member")
        refused(call(base, "POST", "/api/tables", guest, table_of), 403, "account_needed")
        refused(call(base, "POST", "/api/tables", ana, {**table_of, "pena": "Nadie"}), 404,
                "no_pena")  # fmt: skip
        table = (await create_table(base, ana, **table_of))["table"]
        host = await Sock(base).open({"type": "hello", "token": ana, "table": table}, "sync")
        # On the peña's page for its members only (once its host is there, as in the lobby);
        # never in the lobby (the HTTP listing nor the lobby's socket).
        page = await _listed(base, beto, table)
        assert all(t["table"] != table for t in ok(call(base, "GET", "/api/lobby"))["tables"])
        assert page["tables"][0]["pena"] == "Mesa-Cuatro"
        assert "tables" not in ok(call(base, "GET", "/api/penas/Mesa-Cuatro", cary))
        lobby = await Sock(base).open({"type": "lobby"}, "lobby")
        assert table not in "".join(lobby.frames)
        await lobby.close()
        # Cary and a guest are refused at the table's socket; Beto, a member, sits.
        socks = [host]
        for token in (cary, guest):
            at = await Sock(base).open({"type": "hello", "token": token, "table": table}, "sync")
            socks.append(at)
            await at.send({"type": "sit", "id": "s1", "seat": 1})
            await at.wait(kind("error", id="s1", code="not_a_member"))
        at = await Sock(base).open({"type": "hello", "token": beto, "table": table}, "sync")
        socks.append(at)
        await at.send({"type": "sit", "id": "s2", "seat": 2})
        await at.wait(kind("ack", id="s2"))
        info = ok(call(base, "GET", f"/api/tables/{table}"))
        assert [s["nickname"] for s in info["seats"]][:3] == ["Ana", None, "Beto"]
        # Cary joins the peña: now he sits too (the owner asks at each sit).
        ok(call(base, "POST", "/api/penas/Mesa-Cuatro/join", cary))
        await socks[1].send({"type": "sit", "id": "s3", "seat": 1})
        await socks[1].wait(kind("ack", id="s3"))
        # Looking for a fourth in the quick-match queue is refused at a peña's table.
        await at.send({"type": "fill", "id": "f1"})
        await at.wait(kind("error", id="f1", code="pena_table"))
        for s in socks:
            await s.close()
        assert private_leaks(socks[2].frames, ["token", "password"]) == []

    asyncio.run(go())


async def _listed(base: str, token: str, table: str) -> dict[str, Any]:
    """The peña's page once it lists the table (the lobby's board writes a few times a
    second): polled, with a generous bound."""
    for _ in range(600):
        page: dict[str, Any] = ok(call(base, "GET", "/api/penas/Mesa-Cuatro", token))
        if [t["table"] for t in page["tables"]] == [table]:
            return page
        await asyncio.sleep(0.1)
    raise AssertionError(f"the table never showed on the peña's page: {page}")
