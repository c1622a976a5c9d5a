"""A tournament with a time cap, through a real server and real sockets (docs/tournaments.md,
"Time cap"): ``minutes`` is one of a small set (a typed 400 otherwise), the round's tables carry
the cap, and a game ends at the first hand's end past it with the pair ahead the winner.

The server runs with ``--tournament-minute 0.01``: a cap of 20 minutes lasts 0.2 s, less than a
hand takes, so every game here is ended by the time cap (but one whose first scoring hand reaches
the target)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from friends_client import call, ok, refused
from tournament_people import LIMITS, close_all, pairs_of, play_round, wait_state

from tranque.client import TableClient, get_json, random_legal
from tranque.rules.record import replay_game
from tranque.tournament.model import decode

pytestmark = pytest.mark.slow

MINUTE = 0.01  # seconds per minute of the time cap, for this test


def test_a_capped_round_ends_its_game_by_time(server_factory: Any) -> None:
    server = server_factory(*LIMITS, "--tournament-minute", str(MINUTE))
    base = server.base

    async def go() -> None:
        made = await pairs_of(base, 2)
        everyone = [p for _, a, b in made for p in (a, b)]
        ana = made[0][1]
        try:
            for body, code in (
                ({"name": "x", "minutes": 25}, "bad_minutes"),  # not one of the set
                ({"name": "x", "minutes": 0}, "bad_minutes"),
                ({"name": "x", "minutes": 30, "rules": "miami"}, "bad_minutes"),  # a match
                ({"name": "x", "minutes": "30"}, "bad_request"),
                ({"name": "x", "minutes": 30.5}, "bad_request"),
            ):
                refused(call(base, "POST", "/api/tournaments", ana.token, body), 400, code)
            body = {"name": "Relámpago", "rounds": 1, "no_show": 60, "minutes": 20}
            tid = ok(call(base, "POST", "/api/tournaments", ana.token, body))["id"]
            assert ok(call(base, "GET", f"/api/tournaments/{tid}"))["minutes"] == 20
            for name, a, _ in made:
                ok(call(base, "POST", f"/api/tournaments/{tid}/register", a.token,
                        {"pair": name}))  # fmt: skip
            ok(call(base, "POST", f"/api/tournaments/{tid}/start", ana.token))
            page = await wait_state(base, tid, lambda p: p["round"] is not None)
            rnd = page["round"]
            assert rnd["time_up"] == pytest.approx(rnd["started"] + 20 * MINUTE)
            await play_round(base, everyone, tid, 1)
            final = await wait_state(base, tid, lambda p: p["state"] == "finished")
            assert final["played"] == 1
            file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            (line,) = file.played[0].tables
            table = line.record
            assert table is not None
            info = await get_json(base, f"/api/tables/{table}")
            assert info["settings"]["time_cap"] == pytest.approx(20 * MINUTE)
            record = await get_json(base, f"/api/tables/{table}/record")
            points = info["result"]["points"]
            # The game ended at the first hand's end with a pair ahead: every hand before the
            # last ended level (a tied block at 0-0 plays one more hand).
            sheet = replay_game(record).sheet
            assert sheet and all(ln.totals[0] == ln.totals[1] for ln in sheet[:-1])
            assert list(sheet[-1].totals) == points
            if info["by_time"] is None:  # that hand reached the target: no time cap needed
                assert max(points) >= 100 and "time_cap" not in record
            else:
                ahead = "A" if points[0] > points[1] else "B"
                assert max(points) < 100 and info["by_time"] == ahead
                assert info["result"]["winner"] == ahead
                assert record["time_cap"]["winner"] == ahead
            # The tournament counts the game's real score and winner.
            assert list(line.points) == points and not line.forfeit
            assert line.winner == info["result"]["winner"].lower()
            assert file.minutes == 20
        finally:
            await close_all(everyone)

    asyncio.run(go())


def test_a_capped_table_rebuilt_after_a_crash_keeps_its_deadline(server_factory: Any) -> None:
    # A 20-minute cap of 10 s: a hand or so is played before it, then the server dies.
    server = server_factory(*LIMITS, "--tournament-minute", "0.5")
    base = server.base

    async def go() -> None:
        made = await pairs_of(base, 2)
        everyone = [p for _, a, b in made for p in (a, b)]
        ana = made[0][1]
        try:
            body = {"name": "Apagón", "rounds": 1, "no_show": 60, "minutes": 20}
            tid = ok(call(base, "POST", "/api/tournaments", ana.token, body))["id"]
            for name, a, _ in made:
                ok(call(base, "POST", f"/api/tournaments/{tid}/register", a.token,
                        {"pair": name}))  # fmt: skip
            ok(call(base, "POST", f"/api/tournaments/{tid}/start", ana.token))
            clients = []
            for p in everyone:
                rung = await p.bell.wait(
                    lambda m: (
                        m.get("type") == "notice" and m["notice"].get("kind") == "tournament_table"
                    ),
                    timeout=60,
                )
                note = rung["notice"]
                c = TableClient(base, p.token, note["table"])
                await c.connect()
                clients.append(c)
            table = clients[0].table
            before = await get_json(base, f"/api/tables/{table}")
            deadline = before["time_up"]
            assert deadline is not None and before["by_time"] is None
            await asyncio.gather(
                *(c.play_game(random_legal, timeout=300, stop=lambda c: c.state.get("hand", 0) >= 2)
                  for c in clients)
            )  # fmt: skip
            server.kill9()
            server.start(port=server.port)
            # Rebuilt from its log: the same deadline (the logged start plus the cap), although
            # the server was down meanwhile.
            after = await get_json(base, f"/api/tables/{table}")
            assert after["time_up"] == deadline and not after["over"]
            for c in clients:
                await c.reconnect()
            await asyncio.gather(*(c.play_game(random_legal, timeout=600) for c in clients))
            final = await get_json(base, f"/api/tables/{table}")
            assert final["over"] and final["time_up"] == deadline
            points = final["result"]["points"]
            assert final["by_time"] == ("A" if points[0] > points[1] else "B") or max(points) >= 100
            for c in clients:
                await c.close()
        finally:
            await close_all(everyone)

    asyncio.run(go())
