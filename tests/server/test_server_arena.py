"""An arena run by the service, through a real server and real sockets (docs/tournaments.md,
"The service"): people join, are seated whenever they are free (a leftover group with bots
after the fill time), play their tables, one leaves mid-arena and is never seated again; the
clock ends, the games still playing finish and count, and the standings the page shows are the
ones this test computes itself from the file. The server's arena minute is short
(``--tournament-minute``), so 30 minutes of arena last a few seconds."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from friends_client import account, call, listen, ok, refused
from tournament_people import LIMITS, Person, close_all, table_notices, wait_state

from tranque.client import TableClient, random_legal
from tranque.tournament.model import decode

ARENA = ["--fill-time", "1", "--tournament-minute", "0.5"]  # 30 minutes: 15 s


def create(base: str, creator: Person, **body: Any) -> str:
    # Oriente (double six, to 20 points): short games, so several fit in the short clock.
    body = {"name": "Arena", "kind": "arena", "rules": "oriente", "minutes": 30, "no_show": 30,
            **body}  # fmt: skip
    return str(ok(call(base, "POST", "/api/tournaments", creator.token, body))["id"])


async def people(base: str, names: list[str]) -> list[Person]:
    out = []
    for n in names:
        token = await account(base, n)
        out.append(Person(n, token, await listen(base, token)))
    return out


def expected(file: Any) -> list[tuple[str, int, int, int]]:
    """The standings as the rules say (docs/tournaments.md, "An arena"), computed here from the
    file's games: (id, score, wins, games), ranked by score, then wins, then join order."""
    results: dict[str, list[bool]] = {e.id: [] for e in file.entrants}
    score = dict.fromkeys(results, 0)
    for g in file.games:
        for seat, eid in enumerate(g.seats):
            if eid is None:
                continue
            won = g.winner == ("a" if seat % 2 == 0 else "b")
            streak = results[eid][-2:] == [True, True]
            if won:
                score[eid] += (3 if g.pollona else 2) * (2 if streak else 1)
            results[eid].append(won)
    order = [e.id for e in file.entrants]
    lines = [(e, score[e], sum(results[e]), len(results[e])) for e in order]
    return sorted(lines, key=lambda x: (-x[1], -x[2], order.index(x[0])))


async def play_arena(base: str, p: Person, tid: str, leave: bool = False) -> None:
    """Go to each table the bell names and play it out, until the arena is over (with
    ``leave``: leave the arena as soon as the first table is named, and play that one out)."""

    def new_table(m: dict[str, Any]) -> bool:
        n = m.get("notice") or {}
        return (
            m.get("type") == "notice"
            and n.get("kind") == "tournament_table"
            and n.get("tournament") == tid
            and n["table"] not in p.seats
        )

    while True:
        try:
            m = await p.bell.wait(new_table, timeout=2)
        except AssertionError:
            if ok(call(base, "GET", f"/api/tournaments/{tid}"))["state"] == "finished":
                return
            continue
        note = m["notice"]
        if leave:
            ok(call(base, "POST", f"/api/tournaments/{tid}/withdraw", p.token))
        p.seats[note["table"]] = note["seat"]
        c = TableClient(base, p.token, note["table"])
        p.clients.append(c)
        await c.connect()
        await c.play_game(random_legal, seed=hash(p.name) % 1000, timeout=300)
        if leave:
            return


@pytest.mark.slow
def test_a_short_arena_seats_the_free_counts_every_game_and_ranks_as_the_rules_say(
    server_factory: Any,
) -> None:
    server = server_factory(*LIMITS, *ARENA)
    base = server.base

    async def go() -> None:
        everyone = await people(base, [f"Ara{n}" for n in range(1, 10)])
        leaver, late = everyone[7], everyone[8]
        try:
            tid = create(base, everyone[0])
            for p in everyone[:8]:
                ok(call(base, "POST", f"/api/tournaments/{tid}/register", p.token))
            ok(call(base, "POST", f"/api/tournaments/{tid}/start", everyone[0].token))
            # Eight at the start: two tables of four people at once. The ninth joins while it
            # runs and gets the next id in join order.
            joined = ok(call(base, "POST", f"/api/tournaments/{tid}/register", late.token))
            assert joined["entrant"] == "p9"
            # The leaver (p8) leaves as soon as his first table is named, and plays it out; his
            # table of four people ends early in the clock, so he would be seated again then.
            await asyncio.gather(
                *(play_arena(base, p, tid) for p in everyone if p is not leaver),
                play_arena(base, leaver, tid, leave=True),
            )
            final = await wait_state(base, tid, lambda p: p["state"] == "finished")
            file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            assert all(len([s for s in g.seats if s]) >= 1 for g in file.games)
            # The leaver played one game and was never seated again; he stays in the file.
            p8 = next(e for e in file.entrants if e.id == "p8")
            assert p8.withdrawn and not any(e.withdrawn for e in file.entrants if e.id != "p8")
            assert len(table_notices(leaver, tid)) == 1
            assert len([g for g in file.games if "p8" in g.seats]) == 1
            assert min(g.ended for g in file.games if "p8" in g.seats) < 10  # well before the end
            # Every table anybody's bell named is in the file (games playing at the end count).
            named = {n["table"] for p in everyone for n in table_notices(p, tid)}
            assert named == {g.table for g in file.games if any(g.seats)}
            assert all(g.ended >= 0 for g in file.games)
            assert [g.ended for g in file.games] == sorted(g.ended for g in file.games)
            # The page's standings are the rules' own.
            mine = expected(file)
            shown = [(x["id"], x["score"], x["wins"], x["games"]) for x in final["standings"]]
            assert shown == mine
            assert [x["rank"] for x in final["standings"]] == list(range(1, 10))
            assert max(x["games"] for x in final["standings"]) >= 2  # seated again once free
            assert final["games"] == len(file.games) and final["tables"] == []
            assert sum(x["games"] for x in final["standings"]) == sum(
                len([s for s in g.seats if s]) for g in file.games
            )
        finally:
            await close_all(everyone)

    asyncio.run(go())


def test_an_arena_is_created_joined_and_left_with_typed_refusals(server_factory: Any) -> None:
    server = server_factory(*LIMITS, *ARENA)
    base = server.base

    async def go() -> None:
        ana, beto = await people(base, ["Ana", "Beto"])
        try:
            for minutes in (None, 29, 181):
                body = {"name": "A", "kind": "arena", "minutes": minutes}
                refused(call(base, "POST", "/api/tournaments", ana.token, body), 400, "bad_minutes")
            body = {"name": "S", "kind": "swiss-pairs", "minutes": 45}  # a Swiss's cap: 20-60
            refused(call(base, "POST", "/api/tournaments", ana.token, body), 400, "bad_minutes")
            tid = create(base, ana, minutes=180)
            page = ok(call(base, "GET", f"/api/tournaments/{tid}"))
            assert (page["kind"], page["minutes"], page["state"]) == ("arena", 180, "registering")
            reg = f"/api/tournaments/{tid}/register"
            assert ok(call(base, "POST", reg, beto.token)) == {"entrant": "p1"}
            refused(call(base, "POST", reg, beto.token), 409, "already_entered")
            refused(call(base, "POST", f"/api/tournaments/{tid}/withdraw", ana.token), 404,
                    "not_entered")  # fmt: skip
            refused(call(base, "POST", f"/api/tournaments/{tid}/start", beto.token), 403,
                    "not_creator")  # fmt: skip
            # An arena starts with whoever is there; people join and leave while it runs.
            ok(call(base, "POST", f"/api/tournaments/{tid}/start", ana.token))
            page = ok(call(base, "GET", f"/api/tournaments/{tid}", ana.token))
            assert page["state"] == "running" and page["left"] > 0
            assert page["you"] == {"creator": True, "entrant": None, "table": None}
            assert ok(call(base, "POST", reg, ana.token)) == {"entrant": "p2"}
            ok(call(base, "POST", f"/api/tournaments/{tid}/withdraw", beto.token))
            # Back again: the same entrant.
            assert ok(call(base, "POST", reg, beto.token)) == {"entrant": "p1"}
            # Two free people: after the fill time (1 s here) they sit as opponents, and bots of
            # level normal take the two empty seats.
            page = await wait_state(base, tid, lambda p: p["tables"] != [], timeout=30)
            (table,) = page["tables"]
            assert table["seats"] == ["p1", "p2", None, None]
            assert table["players"] == ["Beto", "Ana", None, None]
            info = ok(call(base, "GET", f"/api/tables/{table['table']}"))
            kinds = [s["kind"] for s in info["seats"]]
            assert kinds == ["person", "person", "bot", "bot"], info["seats"]
            note = await beto.bell.wait(lambda m: (m.get("notice") or {}).get("game") == 1)
            assert (note["notice"]["table"], note["notice"]["seat"]) == (table["table"], 0)
            file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            assert (file.kind, file.minutes, [e.id for e in file.entrants]) == (
                "arena", 180, ["p1", "p2"]
            )  # fmt: skip
        finally:
            await close_all([ana, beto])

    asyncio.run(go())


@pytest.mark.slow
def test_a_server_killed_mid_arena_resumes_its_game_and_seats_again(server_factory: Any) -> None:
    server = server_factory(*LIMITS, "--fill-time", "1", "--tournament-minute", "2")  # 60 s
    base = server.base

    async def go() -> None:
        everyone = await people(base, ["Rey1", "Rey2", "Rey3", "Rey4"])
        try:
            tid = create(base, everyone[0], rules="havana")
            for p in everyone:
                ok(call(base, "POST", f"/api/tournaments/{tid}/register", p.token))
            ok(call(base, "POST", f"/api/tournaments/{tid}/start", everyone[0].token))
            notes = [
                (await p.bell.wait(lambda m: (m.get("notice") or {}).get("game") == 1))["notice"]
                for p in everyone
            ]
            (table,) = {n["table"] for n in notes}
            clients = []
            for p in everyone:
                c = TableClient(base, p.token, table)
                await c.connect()
                clients.append(c)
            # A hand or so, then the server dies at once, and comes back on the same rows.
            await asyncio.gather(
                *(c.play_game(random_legal, timeout=300, stop=lambda c: c.state.get("hand", 0) >= 2)
                  for c in clients)
            )  # fmt: skip
            server.kill9()
            server.start(port=server.port)
            for p in everyone:
                await p.bell.close()
                p.bell = await listen(base, p.token)
            page = await wait_state(base, tid, lambda p: p["tables"] != [])
            assert [t["table"] for t in page["tables"]] == [table]  # the same game, not a new one
            for c in clients:
                await c.reconnect()
            await asyncio.gather(*(c.play_game(random_legal, timeout=600) for c in clients))
            # Its result is written once, and its four are free again: seated at a new table.
            again = [
                (await p.bell.wait(lambda m: (m.get("notice") or {}).get("game") == 2))["notice"]
                for p in everyone
            ]
            assert {n["table"] for n in again} != {table}
            file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            assert [g.table for g in file.games] == [table]
            for c in clients:
                await c.close()
        finally:
            await close_all(everyone)

    asyncio.run(go())
