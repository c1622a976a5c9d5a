"""A guest's name where he sits (issue 29, bug 2): a name typed on the landing was lost when he
sat through the lobby or an invite link ("La Blanca 14"), and nothing at the table let him
change it. A guest may take a new nickname (the same guest: his games and chips stay his), sit
with a name, and change it in his seat before the first hand; every such name has the checks a
new guest's has (its form, never cut; no bot's or the house's name, by its look-alikes)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tranque.client import CommandFailed, TableClient, create_table, new_guest


def rename(base: str, token: str, nickname: str) -> httpx.Response:
    return httpx.post(
        base + "/api/guests/nickname",
        json={"nickname": nickname},
        headers={"Authorization": f"Bearer {token}"},
    )


def test_a_guest_takes_a_new_nickname_and_stays_the_same_guest(server: Any) -> None:
    base = server.base
    g = httpx.post(base + "/api/guests", json={}).json()
    assert g["nickname"].startswith("guest-")
    r = rename(base, g["token"], "  Marisol  ")
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["guest"] == g["guest"] and got["nickname"] == "Marisol"
    me = httpx.get(base + "/api/me", headers={"Authorization": f"Bearer {got['token']}"}).json()
    assert me["guest"] == g["guest"] and me["nickname"] == "Marisol"
    profile = httpx.get(f"{base}/api/profiles/~{g['guest']}").json()
    assert profile["nickname"] == "Marisol"
    # The same checks as a new guest's nickname: never cut, no bot's nor the house's name in
    # any guise (a Cyrillic "а" in Pancho, a zero for an O).
    for bad, code in [
        ("x" * 25, "bad_nickname"),
        ("", "bad_nickname"),
        ("Ana<3", "bad_nickname"),
        ("Pаncho", "reserved_name"),
        ("B0T", "reserved_name"),
        ("Rosa2", "reserved_name"),
    ]:
        r = rename(base, got["token"], bad)
        assert (r.status_code, r.json()["code"]) == (400, code), (bad, r.text)
    assert rename(base, "nonsense", "Marisol").status_code == 401


def test_an_account_keeps_its_name(server: Any) -> None:
    base = server.base
    g = httpx.post(base + "/api/guests", json={"nickname": "zoe"}).json()
    acc = httpx.post(
        base + "/api/accounts",
        json={"name": "Zoe_Quintana", "password": "a long enough passphrase"},
        headers={"Authorization": f"Bearer {g['token']}"},
    ).json()
    r = rename(base, acc["token"], "Otra")
    assert (r.status_code, r.json()["code"]) == (403, "account_name")


def test_a_guest_sits_with_a_name_and_changes_it_before_the_first_hand(server: Any) -> None:
    base = server.base

    async def go() -> None:
        host = await new_guest(base, "ana")
        t = await create_table(base, host["token"], practice=False, seat=0, stake=100)
        tid = t["table"]
        g = await new_guest(base)  # a guest who never typed a name: "guest-1234"
        c = TableClient(base, g["token"], tid)
        await c.connect()
        try:
            refused = await c.command({"type": "sit", "seat": 1, "nickname": "Chela"})
            assert refused["type"] == "error" and refused["code"] == "reserved_name"
            refused = await c.command({"type": "sit", "seat": 1, "nickname": "y" * 70})
            assert refused["type"] == "error" and refused["code"] == "malformed"
            refused = await c.command({"type": "sit", "seat": 1, "nickname": "y" * 25})
            assert refused["type"] == "error" and refused["code"] == "bad_nickname"
            info = httpx.get(f"{base}/api/tables/{tid}").json()
            assert info["seats"][1]["kind"] == "empty"  # nothing half-applied
            await c.do({"type": "sit", "seat": 1, "nickname": "Bea"})
            chips = httpx.get(
                base + "/api/chips", headers={"Authorization": f"Bearer {g['token']}"}
            ).json()
            # A new name in the seat, before the first hand: the seat says it, the log too
            # (another node reads seats from it), and no second escrow is taken.
            await c.do({"type": "sit", "seat": 1, "nickname": "Beatriz"})
            info = httpx.get(f"{base}/api/tables/{tid}").json()
            assert info["seats"][1]["nickname"] == "Beatriz"
            players = httpx.get(f"{base}/api/tables/{tid}/players").json()
            assert players["seats"][1]["nickname"] == "Beatriz"
            again = httpx.get(
                base + "/api/chips", headers={"Authorization": f"Bearer {g['token']}"}
            ).json()
            assert again["balance"] == chips["balance"], (chips, again)
            assert (await c.command({"type": "sit", "seat": 1}))["code"] == "already_seated"
            # Once the game is on, the names are what they are.
            h = TableClient(base, host["token"], tid)
            await h.connect()
            for seat in (2, 3):
                await h.do({"type": "add_bot", "seat": seat})
            await c.wait_for(lambda cl: bool(cl.table_info) and cl.state.get("phase") is not None)
            try:
                await c.do({"type": "sit", "seat": 1, "nickname": "Otra"})
            except CommandFailed as exc:
                assert exc.code == "started"
            else:
                raise AssertionError("renamed after the start")
            await h.close()
        finally:
            await c.close()

    asyncio.run(go())
