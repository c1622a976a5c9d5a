"""A peña's founder hands it over to an admin (``POST /api/penas/{name}/founder``) and
dissolves it (``DELETE /api/penas/{name}``): every refusal typed, nothing half done, the new
founder's and the members' bells told, the dissolved peña's rows gone, its name free again, and
its table seating nobody new."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from friends_client import Sock, account, call, kind, listen, ok, refused

from tranque.client import create_table, new_guest

pytestmark = pytest.mark.slow


def _roles(base: str) -> dict[str, str]:
    page = ok(call(base, "GET", "/api/penas/Vieja"))
    return {m["name"]: m["role"] for m in page["members"]}


def test_the_founder_hands_over_then_dissolves(server: Any) -> None:
    base = server.base

    async def go() -> None:
        ana, beto = await account(base, "Ana"), await account(base, "Beto")
        cary, dino = await account(base, "Cary"), await account(base, "Dino")
        guest = (await new_guest(base, "visita"))["token"]
        ok(call(base, "POST", "/api/penas", ana, {"name": "Vieja", "open": True}))
        for who in (beto, cary):
            ok(call(base, "POST", "/api/penas/Vieja/join", who))
        ok(call(base, "POST", "/api/penas/Vieja/promote/Beto", ana))
        on_a, on_b, on_c = (
            await listen(base, ana),
            await listen(base, beto),
            await listen(base, cary),
        )
        # The hand-over's refusals: nothing changes.
        to = "/api/penas/Vieja/founder"
        refused(call(base, "POST", to, None, {"name": "Beto"}), 401, "unauthenticated")
        refused(call(base, "POST", to, guest, {"name": "Beto"}), 403, "account_needed")
        refused(call(base, "POST", to, dino, {"name": "Beto"}), 403, "not_a_member")
        refused(call(base, "POST", to, beto, {"name": "Beto"}), 403, "not_allowed")
        refused(call(base, "POST", to, cary, {"name": "Beto"}), 403, "not_allowed")
        refused(call(base, "POST", to, ana, {"name": "Cary"}), 409, "not_an_admin")
        refused(call(base, "POST", to, ana, {"name": "Dino"}), 404, "not_a_member")
        refused(call(base, "POST", to, ana, {"name": "Nadie"}), 404, "unknown_account")
        refused(call(base, "POST", to, ana, {"name": "Ana"}), 409, "already_founder")
        refused(call(base, "POST", to, ana, {"nombre": "Beto"}), 400, "unknown_field")
        refused(call(base, "POST", "/api/penas/Otra/founder", ana, {"name": "Beto"}), 404,
                "no_pena")  # fmt: skip
        assert _roles(base) == {"Ana": "founder", "Beto": "admin", "Cary": "member"}
        # Handed over: Beto founds it, Ana stays as an admin, and may leave now; Beto may not.
        done = ok(call(base, "POST", to, ana, {"name": "Beto"}))
        assert done == {"state": "handed_over", "pena": "Vieja", "founder": "Beto"}
        await on_b.wait(kind("notice", kind="pena_founder", pena="Vieja", **{"from": "Ana"}))
        assert _roles(base) == {"Beto": "founder", "Ana": "admin", "Cary": "member"}
        assert ok(call(base, "GET", "/api/penas/Vieja"))["founder"] == "Beto"
        refused(call(base, "POST", "/api/penas/Vieja/leave", beto), 409, "founder_stays")
        refused(call(base, "POST", "/api/penas/Vieja/demote/Beto", ana), 403, "not_allowed")
        ok(call(base, "POST", "/api/penas/Vieja/demote/Ana", beto))
        # A table of the peña, hosted by Beto, before the end.
        table_of = {"practice": False, "seat": 0, "pena": "Vieja"}
        table = (await create_table(base, beto, **table_of))["table"]
        host = await Sock(base).open({"type": "hello", "token": beto, "table": table}, "sync")
        # The dissolution's refusals: only the founder, and nothing goes.
        end = "/api/penas/Vieja"
        refused(call(base, "DELETE", end, None), 401, "unauthenticated")
        refused(call(base, "DELETE", end, guest), 403, "account_needed")
        refused(call(base, "DELETE", end, dino), 403, "not_a_member")
        refused(call(base, "DELETE", end, ana), 403, "not_allowed")
        refused(call(base, "DELETE", end, cary), 403, "not_allowed")
        refused(call(base, "DELETE", "/api/penas/Otra", beto), 404, "no_pena")
        assert len(_roles(base)) == 3
        # Dissolved: the others' bells say so; the peña, its rows and its name are gone.
        assert ok(call(base, "DELETE", end, beto)) == {"state": "dissolved", "pena": "Vieja"}
        for on in (on_a, on_c):
            await on.wait(kind("notice", kind="pena_dissolved", pena="Vieja", **{"from": "Beto"}))
        assert not any(m.get("notice", {}).get("kind") == "pena_dissolved" for m in on_b.messages)
        refused(call(base, "GET", end), 404, "no_pena")
        refused(call(base, "DELETE", end, beto), 404, "no_pena")
        for who in (ana, beto, cary):
            assert ok(call(base, "GET", "/api/me/penas", who))["penas"] == []
        assert all(p["name"] != "Vieja" for p in ok(call(base, "GET", "/api/penas"))["penas"])
        refused(call(base, "POST", "/api/tables", beto, table_of), 404, "no_pena")
        # Its table seats nobody new: the peña has no member left.
        at = await Sock(base).open({"type": "hello", "token": cary, "table": table}, "sync")
        await at.send({"type": "sit", "id": "s1", "seat": 1})
        await at.wait(kind("error", id="s1", code="not_a_member"))
        # The name is free again.
        ok(call(base, "POST", "/api/penas", dino, {"name": "Vieja"}))
        for s in (on_a, on_b, on_c, host, at):
            await s.close()

    asyncio.run(go())
