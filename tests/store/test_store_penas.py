"""Peñas' rules on their real rows, on SQLite and PostgreSQL: who may do what (the roles
matrix, as a table), names checked like accounts' (look-alikes taken), descriptions, emblems and
posts limited, the cap on peñas, joining open and by invitation; and the pages' reads (the
members' leaderboard, pairs and recent games)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from tranque.club import penas as pn
from tranque.club.penas import PenaError, Penas, may
from tranque.store import open_store
from tranque.store.db import Store
from tranque.store.penas import SqlPenas
from tranque.store.schema import accounts, ratings

# actor role, action, target role, allowed
MATRIX = [
    ("founder", "accept", None, True), ("admin", "accept", None, True),
    ("member", "accept", None, False), (None, "accept", None, False),
    ("founder", "invite", None, True), ("admin", "invite", None, True),
    ("member", "invite", None, False),
    ("founder", "remove", "admin", True), ("founder", "remove", "member", True),
    ("founder", "remove", "founder", False),
    ("admin", "remove", "member", True), ("admin", "remove", "admin", False),
    ("admin", "remove", "founder", False),
    ("member", "remove", "member", False), ("member", "remove", "admin", False),
    ("founder", "promote", "member", True), ("founder", "promote", "admin", False),
    ("admin", "promote", "member", False), ("member", "promote", "member", False),
    ("founder", "demote", "admin", True), ("founder", "demote", "member", False),
    ("admin", "demote", "admin", False),
    ("founder", "post", None, True), ("admin", "post", None, True),
    ("member", "post", None, False), (None, "post", None, False),
    ("founder", "leave", None, False), ("admin", "leave", None, True),
    ("member", "leave", None, True),
    ("founder", "table", None, True), ("admin", "table", None, True),
    ("member", "table", None, True), (None, "table", None, False),
    ("founder", "hand_over", "admin", True), ("founder", "hand_over", "member", False),
    ("admin", "hand_over", "admin", False), ("member", "hand_over", "admin", False),
    ("founder", "dissolve", None, True), ("admin", "dissolve", None, False),
    ("member", "dissolve", None, False), (None, "dissolve", None, False),
]  # fmt: skip


@pytest.mark.parametrize(("actor", "action", "target", "allowed"), MATRIX)
def test_the_roles_matrix(actor: Any, action: Any, target: Any, allowed: bool) -> None:
    assert may(actor, action, target) is allowed


def test_texts_and_emblems_are_checked() -> None:
    assert pn.check_post("  hola  ") == "hola"
    assert pn.check_description("") == ""
    for bad, code in (("", "empty_post"), ("x" * 501, "post_too_long"), ("a\x00b", "bad_post")):
        with pytest.raises(PenaError) as err:
            pn.check_post(bad)
        assert err.value.code == code
    with pytest.raises(PenaError) as err:
        pn.check_description("d" * 281)
    assert err.value.code == "bad_description"
    with pytest.raises(PenaError) as err:
        pn.check_emblem("calavera")
    assert err.value.code == "bad_emblem"
    with pytest.raises(PenaError) as err:
        pn.checked_name("no spaces")
    assert err.value.code == "bad_name"


async def _refused(code: str, call: Any) -> None:
    with pytest.raises(PenaError) as err:
        await call
    assert err.value.code == code, err.value.message


async def _check(store: Store) -> None:
    rows = SqlPenas(store)
    penas = Penas(rows)
    now = time.time()
    pena = await penas.found("gA", "El-Parque", "bajo la ceiba", False, "palma", now)
    assert (pena.name, pena.open, pena.founder) == ("El-Parque", False, "gA")
    for same in ("el-parque", "E1-Parque", "El-P\u0430rque"):
        await _refused("name_taken", penas.found("gB", same, "", True, "sol", now))
    await _refused("bad_emblem", penas.found("gB", "Otra", "", True, "calavera", now))
    # By invitation: a request, then accepted by the founder.
    assert (await penas.join("gB", "El-Parque", now))[1] == "requested"
    await _refused("already_requested", penas.join("gB", "El-Parque", now))
    await _refused("not_a_member", penas.accept("gC", "El-Parque", "gB", now))
    await penas.accept("gA", "El-Parque", "gB", now)
    assert await rows.role_of(pena.id, "gB") == "member"
    assert await rows.pending(pena.id, "gB") is None  # the request went with the acceptance
    await _refused("not_allowed", penas.accept("gB", "El-Parque", "gC", now))
    # An invitation makes joining immediate; an admin may not remove an admin.
    await penas.invite("gA", "El-Parque", "gC", now)
    assert await rows.pending(pena.id, "gC") == "invite"
    assert (await penas.join("gC", "El-Parque", now))[1] == "joined"
    await penas.promote("gA", "El-Parque", "gB", True)
    await penas.promote("gA", "El-Parque", "gC", True)
    await _refused("not_allowed", penas.remove("gB", "El-Parque", "gC"))
    await _refused("not_allowed", penas.remove("gB", "El-Parque", "gA"))
    await penas.promote("gA", "El-Parque", "gC", False)
    assert (await penas.remove("gB", "El-Parque", "gC"))[1] == "removed"
    assert await rows.is_member("el-parque", "gB") and not await rows.is_member("El-Parque", "gC")
    await _refused("founder_stays", penas.leave("gA", "El-Parque"))
    # The board, newest first.
    await penas.post("gA", "El-Parque", "primero", now)
    await penas.post("gB", "El-Parque", "segundo", now + 1)
    assert [p["text"] for p in await rows.board(pena.id)] == ["segundo", "primero"]
    # The cap: 20 peñas a person, the 21st refused (founding and joining alike).
    for i in range(pn.MAX_PENAS - 1):
        await penas.found("gD", f"Club-{i:02d}", "", True, "sol", now)
    assert await rows.count_of("gD") == pn.MAX_PENAS - 1
    await penas.found("gE", "Abierta", "", True, "sol", now)
    assert (await penas.join("gD", "Abierta", now))[1] == "joined"
    await _refused("too_many_penas", penas.found("gD", "Una-Mas", "", True, "sol", now))
    await _refused("too_many_penas", penas.join("gD", "El-Parque", now))
    # The pages' reads: the members' leaderboard by preset.
    async with store._begin() as conn:
        await conn.execute(
            accounts.insert(),
            [
                {
                    "guest": g,
                    "name": n,
                    "name_key": n.casefold(),
                    "name_skeleton": n.casefold(),
                    "password_hash": "-",
                    "created": now,
                }
                for g, n in (("gA", "Alma"), ("gB", "Bruno"), ("gZ", "Zoila"))
            ],
        )
        await conn.execute(
            ratings.insert(),
            [
                {
                    "guest": g,
                    "preset": "havana",
                    "mu": mu,
                    "sigma": 2.0,
                    "games": 9,
                    "updated": now,
                }
                for g, mu in (("gA", 30.0), ("gB", 35.0), ("gZ", 50.0))
            ],
        )
    members = [g for g, _ in await rows.members(pena.id)]
    assert members == ["gA", "gB"]
    board = await rows.leaderboard(members, "havana")
    assert [r["name"] for r in board] == ["Bruno", "Alma"]  # Zoila is no member: not there
    assert "gA" not in str(board)  # account names, never guest ids
    assert await rows.recent(members) == [] and await rows.pairs_of(members) == []
    # The list (biggest first) and a person's own, as the pages read them.
    listing = await rows.listing()
    assert [(x["name"], x["members"]) for x in listing[:2]] == [("Abierta", 2), ("El-Parque", 2)]
    assert len(listing) == pn.MAX_PENAS + 1
    assert await rows.of("gA") == [{"name": "El-Parque", "emblem": "palma", "role": "founder"}]
    await penas.invite("gA", "El-Parque", "gF", now)
    assert await rows.of("gF") == [{"name": "El-Parque", "emblem": "palma", "state": "invite"}]
    assert await rows.pendings(pena.id) == [("gF", "invite")]


def test_penas_on_sqlite(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'p.db'}")
        try:
            await _check(store)
        finally:
            await store.close()

    asyncio.run(go())


@pytest.mark.slow
def test_penas_on_postgresql(pg_url: str) -> None:
    async def go() -> None:
        store = await open_store(pg_url)
        try:
            await _check(store)
        finally:
            await store.close()

    asyncio.run(go())
