"""The lobby board's frames: the whole listing once per socket, then only what changed, each
frame encoded once and the same bytes for every socket."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tranque.club.lobby import LobbyBoard
from tranque.club.ports import LocalDirectory


def _line(table: str, free: int, status: str = "waiting") -> dict[str, Any]:
    return {"table": table, "status": status, "free": free}


def test_a_socket_gets_the_listing_once_then_the_changes_encoded_once_for_all() -> None:
    async def go() -> None:
        directory = LocalDirectory()
        board = LobbyBoard(directory, tick=3600)  # looks only when the test says
        for t in ("t1", "t2", "t3"):
            await directory.put(t, _line(t, 3))
        a: list[bytes] = []
        b: list[bytes] = []
        await board.subscribe(a.append)
        await board.subscribe(b.append)
        assert a[0] is b[0]  # the whole listing, encoded once for both
        assert json.loads(a[0]) == {
            "type": "lobby",
            "tables": [_line(t, 3) for t in ("t1", "t2", "t3")],
        }
        await directory.put("t2", _line("t2", 0, "playing"))
        await directory.remove("t3")
        await directory.put("t4", _line("t4", 2))
        await board._look()
        assert len(a) == len(b) == 2 and a[1] is b[1]
        assert json.loads(a[1]) == {
            "type": "lobby_changes",
            "tables": [_line("t4", 2), _line("t2", 0, "playing")],
            "gone": ["t3"],
        }
        await board._look()  # nothing moved: nothing sent
        assert len(a) == 2
        # A socket that comes now gets the listing as the others have it, whole.
        c: list[bytes] = []
        await board.subscribe(c.append)
        assert json.loads(c[0])["tables"] == [
            _line("t4", 2),  # fewest free seats first
            _line("t1", 3),
            _line("t2", 0, "playing"),
        ]
        board.unsubscribe(a.append)
        await directory.put("t1", _line("t1", 2))
        await board._look()
        assert len(a) == 2 and len(b) == len(c) + 1 == 3

    asyncio.run(go())


def test_a_penas_tables_go_to_its_members_and_a_failed_question_is_asked_again() -> None:
    """A viewer gets his peñas' lists, never another's; when the club cannot say who belongs,
    nothing is sent and the next look asks again."""

    async def go() -> None:
        directory = LocalDirectory()
        board = LobbyBoard(directory, tick=3600)
        members = {"Rincon": {"gA"}, "Otra": {"gB"}}
        down = False

        async def members_of(names: Any) -> dict[str, set[str]]:
            if down:
                raise ConnectionError("the database is away")
            return {n: members[n] for n in names if n in members}

        async def penas_of(guest: str) -> list[str]:
            return sorted(n for n, g in members.items() if guest in g)

        board.penas_of, board.members_of = penas_of, members_of
        await directory.put("p1", {**_line("p1", 3), "pena": "Rincon"})
        await directory.put("p2", {**_line("p2", 3), "pena": "Otra"})
        a: list[bytes] = []
        anyone: list[bytes] = []
        await board.subscribe(a.append, "gA")
        await board.subscribe(anyone.append)
        assert [json.loads(f)["type"] for f in a] == ["lobby", "pena_lobby"]
        assert json.loads(a[1])["penas"] == [
            {"pena": "Rincon", "tables": [{**_line("p1", 3), "pena": "Rincon"}]}
        ]
        assert json.loads(anyone[0])["tables"] == []  # no peña's table for the public
        down = True
        await directory.put("p1", {**_line("p1", 2), "pena": "Rincon"})
        await directory.put("p2", {**_line("p2", 2), "pena": "Otra"})
        with pytest.raises(ConnectionError):
            await board._look()
        assert len(a) == 2  # nothing sent
        down = False
        await board._look()
        frames = [json.loads(f) for f in a[2:]]
        assert [(f["type"], f["pena"], f["tables"][0]["free"]) for f in frames] == [
            ("pena_tables", "Rincon", 2)
        ]
        assert len(anyone) == 1 and b"Otra" not in b"".join(a)

    asyncio.run(go())
