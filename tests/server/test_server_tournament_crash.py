"""A server killed between writing down a tournament table's id and making the table (``kill
-9`` at that very point, ``TRANQUE_CRASH_AT``): restarted on the same database, the runner finds
the id with no table and makes the table under that id, its people seated as the round (or the
arena's game) says; they play it, and the tournament counts it. Never a second table for the
same people, never a round or a game with no table. A Swiss of two pairs and an arena of four."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from friends_client import call, ok
from test_server_arena import create as create_arena
from test_server_arena import people
from tournament_people import LIMITS, Person, close_all, pairs_of, wait_state

from tranque.client import TableClient, get_json, random_legal
from tranque.tournament.model import decode

pytestmark = pytest.mark.slow  # a server killed and started again, and a game played


def _named_but_not_made(db: Path, sql: str, tid: str) -> str:
    """The table id the rows name, and that no table of that id exists."""
    with sqlite3.connect(db) as con:
        (named,) = con.execute(sql, (tid,)).fetchone()
        assert named is not None, "the id was not written before the crash"
        assert con.execute("SELECT count(*) FROM tables WHERE id = ?", (named,)).fetchone() == (0,)
    return str(named)


def _tables_of(db: Path, tid: str) -> list[str]:
    """Every table made for the tournament (its settings name it)."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT id, info FROM tables").fetchall()
    return sorted(t for t, info in rows if f'"tournament":"{tid}"' in info.replace(" ", ""))


async def _play_at(base: str, everyone: list[Person], table: str) -> None:
    """Each person of the table (found by his name in its seats) plays it out."""
    info = await get_json(base, f"/api/tables/{table}")
    names = [s["nickname"] for s in info["seats"]]
    assert sorted(names) == sorted(p.name for p in everyone), names
    clients = [TableClient(base, p.token, table) for p in everyone]
    for p, c in zip(everyone, clients, strict=True):
        p.clients.append(c)
        await c.connect()
    await asyncio.gather(*(c.play_game(random_legal, timeout=600) for c in clients))


def test_a_swiss_table_named_but_never_made_is_made_after_the_restart(
    server_factory: Any, tmp_path: Path
) -> None:
    db = tmp_path / "swiss.db"
    server = server_factory(*LIMITS, db=db, env={"TRANQUE_CRASH_AT": "tournament_table_named"})
    assert server.proc is not None
    base = server.base

    async def until_killed() -> tuple[str, list[Person]]:
        made = await pairs_of(base, 2)
        ana = made[0][1]
        body = {"name": "Corte", "rounds": 1, "no_show": 600}
        tid = str(ok(call(base, "POST", "/api/tournaments", ana.token, body))["id"])
        for name, a, _ in made:
            ok(call(base, "POST", f"/api/tournaments/{tid}/register", a.token, {"pair": name}))
        ok(call(base, "POST", f"/api/tournaments/{tid}/start", ana.token))
        await asyncio.to_thread(server.proc.wait, 60)  # it dies naming the round's table
        return tid, [p for _, a, b in made for p in (a, b)]

    tid, everyone = asyncio.run(until_killed())
    sql = "SELECT table_id FROM tournament_tables WHERE tournament_id = ?"
    named = _named_but_not_made(db, sql, tid)
    server.stop()  # reaped, its pipe let go
    server.env = {}
    server.start(port=server.port)

    async def after() -> None:
        try:
            page = await wait_state(base, tid, lambda p: p["round"] is not None)
            assert [tb["table"] for tb in page["round"]["tables"]] == [named]
            await _play_at(base, everyone, named)
            await wait_state(base, tid, lambda p: p["state"] == "finished")
            file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            assert [tb.record for rnd in file.played for tb in rnd.tables] == [named]
            assert not file.played[0].tables[0].forfeit
        finally:
            await close_all(everyone)

    asyncio.run(after())
    assert _tables_of(db, tid) == [named]  # made once, under the id written down


def test_an_arena_game_named_but_never_made_is_made_after_the_restart(
    server_factory: Any, tmp_path: Path
) -> None:
    db = tmp_path / "arena.db"
    args = [*LIMITS, "--fill-time", "1", "--tournament-minute", "2"]  # 30 minutes: 60 s
    server = server_factory(*args, db=db, env={"TRANQUE_CRASH_AT": "arena_table_named"})
    assert server.proc is not None
    base = server.base

    async def until_killed() -> tuple[str, list[Person]]:
        everyone = await people(base, ["Rey1", "Rey2", "Rey3", "Rey4"])
        tid = create_arena(base, everyone[0], rules="havana")
        for p in everyone:
            ok(call(base, "POST", f"/api/tournaments/{tid}/register", p.token))
        ok(call(base, "POST", f"/api/tournaments/{tid}/start", everyone[0].token))
        await asyncio.to_thread(server.proc.wait, 60)  # it dies naming the first game's table
        for p in everyone:
            await p.bell.close()
        return tid, everyone

    tid, everyone = asyncio.run(until_killed())
    sql = "SELECT table_id FROM arena_games WHERE tournament_id = ? AND number = 1"
    named = _named_but_not_made(db, sql, tid)
    server.stop()  # reaped, its pipe let go
    server.env = {}
    server.start(port=server.port)

    async def after() -> None:
        try:
            page = await wait_state(base, tid, lambda p: p["tables"] != [])
            assert [t["table"] for t in page["tables"]] == [named]
            await _play_at(base, everyone, named)
            file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            for _ in range(100):  # the result is written at the runner's next look
                if file.games:
                    break
                await asyncio.sleep(0.2)
                file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            assert [g.table for g in file.games] == [named]
        finally:
            await close_all(everyone)

    asyncio.run(after())
    assert named in _tables_of(db, tid)
    with sqlite3.connect(db) as con:  # one game's row per table: none made twice
        rows = con.execute(
            "SELECT table_id FROM arena_games WHERE tournament_id = ?", (tid,)
        ).fetchall()
    assert sorted(r[0] for r in rows if r[0] is not None) == _tables_of(db, tid)
