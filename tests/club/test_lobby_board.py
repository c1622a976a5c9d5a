"""The lobby board's frames: the whole listing once per socket, then only what changed, each
frame encoded once and the same bytes for every socket."""

from __future__ import annotations

import asyncio
import json
from typing import Any

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
