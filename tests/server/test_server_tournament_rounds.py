"""A tournament's rounds when people do not come, withdraw, or the server dies mid-round, through
a real server and real sockets (docs/tournaments.md, "The service"): a pair neither of whose
people came loses by forfeit, a pair with one partner there plays with a marked bot for the
other; a withdrawn pair is never paired again and stays in the file; a server killed mid-round
resumes it, with the same table, and never starts a round twice."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from friends_client import call, listen, ok, refused
from tournament_people import LIMITS, Person, close_all, pairs_of, table_notices, wait_state

from tranque.client import TableClient, get_json, random_legal
from tranque.tournament.model import decode

pytestmark = pytest.mark.slow


def create(base: str, creator: Person, **body: Any) -> str:
    got = ok(call(base, "POST", "/api/tournaments", creator.token, {"name": "Copa", **body}))
    return str(got["id"])


def register(base: str, tid: str, made: list[tuple[str, Person, Person]]) -> None:
    for name, a, _ in made:
        ok(call(base, "POST", f"/api/tournaments/{tid}/register", a.token, {"pair": name}))


async def rung(
    people: list[Person], tid: str, round_no: int
) -> dict[str, list[tuple[Person, int]]]:
    """Each person's table and seat for the round, from his bell: table -> [(person, seat)]."""
    out: dict[str, Any] = {}
    for p in people:
        await p.bell.wait(
            lambda m: (
                m.get("type") == "notice"
                and (m["notice"].get("tournament"), m["notice"].get("round")) == (tid, round_no)
            ),
            timeout=60,
        )
        note = next(n for n in table_notices(p, tid) if n["round"] == round_no)
        out.setdefault(note["table"], []).append((p, note["seat"]))
    return out


def test_no_shows_forfeit_and_one_partner_plays_with_a_marked_bot(server_factory: Any) -> None:
    server = server_factory(*LIMITS)
    base = server.base

    async def go() -> None:
        made = await pairs_of(base, 4)
        everyone = [p for _, a, b in made for p in (a, b)]
        try:
            tid = create(base, made[0][1], rounds=1, no_show=3)
            register(base, tid, made)
            ok(call(base, "POST", f"/api/tournaments/{tid}/start", made[0][1].token))
            tables = await rung(everyone, tid, 1)
            assert sorted(len(v) for v in tables.values()) == [4, 4]
            empty, short = sorted(tables)  # which table gets which absence: either will do
            clients: dict[str, list[TableClient]] = {}
            for table, people in tables.items():
                # At ``empty`` pair B (seats 1, 3) never comes; at ``short`` only seat 3 stays away.
                away = {1, 3} if table == empty else {3}
                for p, seat in people:
                    if seat not in away:
                        c = TableClient(base, p.token, table)
                        await c.connect()
                        p.clients.append(c)
                        clients.setdefault(table, []).append(c)
            await asyncio.gather(*(c.play_game(random_legal, timeout=600) for c in clients[short]))
            final = await wait_state(base, tid, lambda p: p["state"] == "finished")
            file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            lines = {(t.a, t.b): t for t in file.played[0].tables}
            assert final["played"] == 1
            info_empty = await get_json(base, f"/api/tables/{empty}")
            info_short = await get_json(base, f"/api/tables/{short}")
            by_record = {t.record: t for t in lines.values()}
            forfeit = next(t for t in lines.values() if t.forfeit)
            # Pair A came, pair B did not: A wins by forfeit, the target to nothing, no record.
            assert (forfeit.winner, forfeit.points, forfeit.record) == ("a", (100, 0), None)
            # Its table ended there, with no result and unrated (an aborted table).
            assert info_empty["over"] and info_empty["result"] is None
            assert info_empty["aborted"]["seat"] in (1, 3)
            # The other: played out, a bot marked in seat 3 for the partner who never came.
            played = by_record[short]
            assert not played.forfeit and played.winner in ("a", "b")
            assert list(played.points) == info_short["result"]["points"]
            seat3 = info_short["seats"][3]
            assert seat3["kind"] == "person" and seat3["taken_over"] and seat3["bot"]
            assert not any(s["taken_over"] for s in info_short["seats"][:3])
        finally:
            await close_all(everyone)

    asyncio.run(go())


def test_a_withdrawn_pair_is_never_paired_again_and_stays_in_the_file(server_factory: Any) -> None:
    server = server_factory(*LIMITS)
    base = server.base

    async def go() -> None:
        made = await pairs_of(base, 4)
        everyone = [p for _, a, b in made for p in (a, b)]
        try:
            tid = create(base, made[0][1], rounds=2, no_show=2)
            register(base, tid, made)
            # Before the start a withdrawal takes the pair out altogether.
            ok(call(base, "POST", f"/api/tournaments/{tid}/withdraw", made[3][2].token))
            refused(call(base, "POST", f"/api/tournaments/{tid}/withdraw", made[3][1].token),
                    404, "not_entered")  # fmt: skip
            ok(call(base, "POST", f"/api/tournaments/{tid}/start", made[0][1].token))
            page = await wait_state(base, tid, lambda p: p["round"] is not None)
            assert [e["pair"] for e in page["entrants"]] == ["Pareja-1", "Pareja-2", "Pareja-3"]
            (bye,) = page["round"]["byes"]
            quitter = next(e["pair"] for e in page["entrants"] if e["id"] == bye)
            person = next(a for name, a, _ in made if name == quitter)
            # Mid-tournament: it stays, withdrawn; nobody comes to the table (both forfeit).
            ok(call(base, "POST", f"/api/tournaments/{tid}/withdraw", person.token))
            refused(call(base, "POST", f"/api/tournaments/{tid}/withdraw", person.token),
                    404, "not_entered")  # fmt: skip
            final = await wait_state(base, tid, lambda p: p["state"] == "finished")
            assert final["played"] == 2
            file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            assert [e.withdrawn for e in file.entrants if e.id == bye] == [True]
            assert len(file.entrants) == 3
            second = file.played[1]
            assert second.byes == [] and len(second.tables) == 1
            assert bye not in (second.tables[0].a, second.tables[0].b)
            # Nobody came anywhere: no winner, nothing scored, both take a loss.
            for r in file.played:
                for t in r.tables:
                    assert (t.winner, t.points, t.forfeit) == (None, (0, 0), True)
            wins = {s["id"]: s["wins"] for s in final["standings"]}
            assert wins[bye] == 1 and sum(wins.values()) == 1
        finally:
            await close_all(everyone)

    asyncio.run(go())


def test_a_server_killed_mid_round_resumes_the_round(server_factory: Any) -> None:
    server = server_factory(*LIMITS)
    base = server.base

    async def go() -> None:
        made = await pairs_of(base, 2)
        everyone = [p for _, a, b in made for p in (a, b)]
        try:
            tid = create(base, made[0][1], rounds=2, no_show=30)
            register(base, tid, made)
            ok(call(base, "POST", f"/api/tournaments/{tid}/start", made[0][1].token))
            ((table, people),) = (await rung(everyone, tid, 1)).items()
            clients = []
            for p, _ in people:
                c = TableClient(base, p.token, table)
                await c.connect()
                clients.append(c)
            # A hand or so, then the server dies at once.
            await asyncio.gather(
                *(c.play_game(random_legal, timeout=300, stop=lambda c: c.state.get("hand", 0) >= 2)
                  for c in clients)
            )  # fmt: skip
            server.kill9()
            server.start(port=server.port)
            for p in everyone:
                await p.bell.close()
                p.bell = await listen(base, p.token)
            page = await wait_state(base, tid, lambda p: p["round"] is not None)
            assert page["round"]["number"] == 1 and [
                t["table"] for t in page["round"]["tables"]
            ] == [table]
            for c in clients:
                await c.reconnect()
            await asyncio.gather(*(c.play_game(random_legal, timeout=600) for c in clients))
            ((table2, people2),) = (await rung(everyone, tid, 2)).items()
            assert table2 != table
            second = []
            for p, _ in people2:
                c = TableClient(base, p.token, table2)
                await c.connect()
                second.append(c)
                p.clients.append(c)
            await asyncio.gather(*(c.play_game(random_legal, timeout=600) for c in second))
            final = await wait_state(base, tid, lambda p: p["state"] == "finished")
            file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            assert [r.round for r in file.played] == [1, 2]
            assert [t.record for r in file.played for t in r.tables] == [table, table2]
            assert not any(t.forfeit for r in file.played for t in r.tables)
            assert final["played"] == 2
            for c in clients:
                await c.close()
        finally:
            await close_all(everyone)

    asyncio.run(go())


def test_a_tournament_starts_at_its_time(server_factory: Any) -> None:
    server = server_factory(*LIMITS)
    base = server.base

    async def go() -> None:
        made = await pairs_of(base, 2)
        everyone = [p for _, a, b in made for p in (a, b)]
        try:
            tid = create(base, made[0][1], rounds=1, no_show=1, starts=time.time() + 3)
            register(base, tid, made)
            assert ok(call(base, "GET", f"/api/tournaments/{tid}"))["state"] == "registering"
            # Nobody starts it: its time does; nobody comes, both lose, and it is over.
            final = await wait_state(base, tid, lambda p: p["state"] == "finished")
            assert final["played"] == 1
            assert [s["wins"] for s in final["standings"]] == [0, 0]
        finally:
            await close_all(everyone)

    asyncio.run(go())
