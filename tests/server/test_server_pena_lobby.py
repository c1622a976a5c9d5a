"""A peña's tables in the lobby of its members alone: a lobby socket that came with an
account's token gets its peñas' tables (``pena_lobby`` once, ``pena_tables`` at each change),
live; a non-member's socket, a guest's and an anonymous one never see a peña's table, its id nor
its people's names. Who belongs is asked at each change: a member removed is told his section is
gone and hears no more of it; one accepted meanwhile starts hearing of it -- at once, since a
change of members nudges the board (``LobbyBoard.members_changed``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from frame_scanner import private_leaks
from friends_client import Sock, account, call, kind, ok

from tranque.client import create_table, new_guest

pytestmark = pytest.mark.slow


def _has(table: str) -> Any:
    """A ``pena_tables`` frame of the peña ``Rincon`` listing ``table``."""
    return lambda m: (
        m.get("type") == "pena_tables"
        and m["pena"] == "Rincon"
        and table in [t["table"] for t in m["tables"]]
    )


def test_a_penas_tables_reach_its_members_lobby_alone(server: Any) -> None:
    base = server.base

    async def go() -> None:
        ana, beto = await account(base, "Ana"), await account(base, "Beto")
        cary = await account(base, "Cary")
        guest = (await new_guest(base, "visita"))["token"]
        ok(call(base, "POST", "/api/penas", ana, {"name": "Rincon", "open": False}))
        ok(call(base, "POST", "/api/penas/Rincon/invite", ana, {"name": "Beto"}))
        ok(call(base, "POST", "/api/penas/Rincon/join", beto))
        # Lobby sockets before any table: Ana's shows her peña, with no table yet.
        mine = await Sock(base).open({"type": "lobby", "token": ana}, "pena_lobby")
        first = await mine.wait(kind("pena_lobby"))
        assert first["penas"] == [{"pena": "Rincon", "tables": []}]
        others = [
            await Sock(base).open({"type": "lobby", "token": cary}, "lobby"),
            await Sock(base).open({"type": "lobby", "token": guest}, "lobby"),
            await Sock(base).open({"type": "lobby"}, "lobby"),
        ]
        table = (await create_table(base, ana, practice=False, seat=0, pena="Rincon"))["table"]
        host = await Sock(base).open({"type": "hello", "token": ana, "table": table}, "sync")
        # Pushed to her lobby as soon as the board writes it: no asking again.
        await mine.wait(_has(table))
        # Beto's lobby, opened now, has it in its first peña frame.
        his = await Sock(base).open({"type": "lobby", "token": beto}, "pena_lobby")
        sections = (await his.wait(kind("pena_lobby")))["penas"]
        assert [t["table"] for t in sections[0]["tables"]] == [table]
        # Beto is removed; Cary asks and is accepted. At the next change of the table (Cary
        # sits), Beto's lobby is told the section is gone, Cary's gets it.
        ok(call(base, "POST", "/api/penas/Rincon/remove/Beto", ana))
        ok(call(base, "POST", "/api/penas/Rincon/join", cary))
        before = len(others[0].frames)
        ok(call(base, "POST", "/api/penas/Rincon/accept/Cary", ana))
        seat = await Sock(base).open({"type": "hello", "token": cary, "table": table}, "sync")
        await seat.send({"type": "sit", "id": "s1", "seat": 1})
        await seat.wait(kind("ack", id="s1"))
        await his.wait(kind("pena_tables", pena="Rincon", member=False))
        seen = await others[0].wait(lambda m: _has(table)(m) and m["tables"][0]["free"] == 2)
        assert [s["nickname"] for s in seen["tables"][0]["seats"]][:2] == ["Ana", "Cary"]
        await mine.wait(lambda m: _has(table)(m) and m["tables"][0]["free"] == 2)
        gone_at = next(i for i, m in enumerate(his.messages) if m.get("member") is False)
        for sock in [host, seat, mine, his, *others]:
            await sock.close()
        # Never a word of the table to those who do not belong (Cary before he did).
        assert private_leaks(others[0].frames[:before], [table, "Rincon"]) == []
        for sock in others[1:]:
            assert private_leaks(sock.frames, [table, "Rincon"]) == [], sock.frames
        assert private_leaks([str(m) for m in his.messages[gone_at + 1 :]], [table]) == []
        assert private_leaks(mine.frames, [ana, beto, cary, "token"]) == []

    asyncio.run(go())


def test_a_change_of_members_reaches_open_lobbies_at_once(server: Any) -> None:
    """Nobody touches the peña's table: a member removed is told his section is gone, and one
    who joins gets the peña's tables, by the change of members alone."""
    base = server.base

    async def go() -> None:
        ana, beto = await account(base, "Ana"), await account(base, "Beto")
        cary = await account(base, "Cary")
        ok(call(base, "POST", "/api/penas", ana, {"name": "Rincon", "open": False}))
        ok(call(base, "POST", "/api/penas/Rincon/invite", ana, {"name": "Beto"}))
        ok(call(base, "POST", "/api/penas/Rincon/join", beto))
        table = (await create_table(base, ana, practice=False, seat=0, pena="Rincon"))["table"]
        host = await Sock(base).open({"type": "hello", "token": ana, "table": table}, "sync")
        his = await Sock(base).open({"type": "lobby", "token": beto}, "pena_lobby")
        await his.wait(  # in his first peña frame, or in the next when the board writes it
            lambda m: _has(table)(m) or (m.get("type") == "pena_lobby" and m["penas"][0]["tables"])
        )
        theirs = await Sock(base).open({"type": "lobby", "token": cary}, "pena_lobby")
        assert (await theirs.wait(kind("pena_lobby")))["penas"] == []
        ok(call(base, "POST", "/api/penas/Rincon/remove/Beto", ana))
        await his.wait(kind("pena_tables", pena="Rincon", member=False))
        ok(call(base, "POST", "/api/penas/Rincon/invite", ana, {"name": "Cary"}))
        ok(call(base, "POST", "/api/penas/Rincon/join", cary))
        await theirs.wait(_has(table))
        for sock in (host, his, theirs):
            await sock.close()

    asyncio.run(go())
