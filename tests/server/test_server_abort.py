"""Rated games people abandon, through a real server (docs/club.md, "Games people abandon"): a
person who leaves a rated game before its first hand ends aborts it (nobody's rating moves,
every chip back through the ledger, the table says so and leaves the lobby); a reconnect within
the grace is never a leave. Every wait is for an event (a frame), never a sleep."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
from club_client import ClubSocket, of
from test_server_chips import chips_of, ledger_check
from test_server_e2e import play_all, seat_four

from tranque.client import TableClient, create_table, get_history, get_json, new_guest
from tranque.club.ratings import Skill, rate
from tranque.ledger import stakes as chips


def _frames_of(client: TableClient, kind: str) -> list[dict[str, Any]]:
    return [m for m in map(json.loads, client.frames) if m.get("type") == kind]


def _event(client: TableClient, kind: str, **fields: Any) -> bool:
    return any(
        e["type"] == kind and all(e.get(k) == v for k, v in fields.items()) for e in client.events
    )


async def _lobby(base: str) -> list[str]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.get("/api/lobby")
        assert r.status_code == 200, r.text
        return [t["table"] for t in r.json()["tables"]]


@pytest.mark.slow
def test_a_rated_game_left_at_its_start_is_aborted_nobody_rated_and_every_chip_back(
    server_factory: Any,
) -> None:
    server = server_factory("--grace", "0.5")
    base = server.base

    async def go() -> None:
        tid, clients = await seat_four(base, "havana", names="qrst", public=True, stake=100)
        tokens = [c.token for c in clients]
        for tok in tokens:
            held = await chips_of(base, tok)
            assert (held["balance"], held["in_escrow"]) == (chips.OPENING_GRANT - 200, 200)
        await clients[0].wait_for(lambda c: _event(c, "started"), 30)
        assert tid in await _lobby(base)
        watch_guest = await new_guest(base, "vera")
        watch = TableClient(base, watch_guest["token"], tid, role="spectator")
        await watch.connect()
        await clients[1].do({"type": "leave"})  # she leaves before the first hand ends
        await watch.wait_for(lambda c: _event(c, "aborted", seat=1), 30)
        await watch.wait_for(lambda c: bool(_frames_of(c, "rating")), 30)
        assert _event(clients[0], "aborted", seat=1)  # the others are told
        assert not _event(watch, "takeover")  # no bot plays on for her
        rating = _frames_of(watch, "rating")[0]
        assert rating["rated"] is False and rating["seats"] == []
        info = await get_json(base, f"/api/tables/{tid}")
        assert info["over"] and info["result"] is None
        assert info["aborted"] == {"seat": 1} and info["abandoned"] is True
        history = [e["type"] for e in await get_history(base, tid)]
        assert history.index("away") < history.index("aborted")
        assert "takeover" not in history and "played" not in history[history.index("aborted") :]
        # Nobody's rating moved; every escrow went back, once (``void``).
        players = await get_json(base, f"/api/tables/{tid}/players")
        for s, tok in enumerate(tokens):
            profile = await get_json(base, f"/api/profiles/{players['seats'][s]['profile']}")
            assert profile["ratings"] == {}, profile
            # Only she left: one table begun and not finished; the others' began none.
            left = {"finished": 0, "begun": 1, "rate": 0.0}
            none = {"finished": 0, "begun": 0, "rate": None}
            assert profile["completion"] == (left if s == 1 else none), profile
            after = await chips_of(base, tok)
            assert (after["balance"], after["in_escrow"]) == (chips.OPENING_GRANT, 0)
            moves = (await chips_of(base, tok, "/api/chips/history?limit=5"))["movements"]
            assert [(m["kind"], m["amount"]) for m in moves] == [
                ("void", 200), ("escrow", -200), ("grant", chips.OPENING_GRANT),
            ]  # fmt: skip
        assert tid not in await _lobby(base)
        refused = await clients[0].command({"type": "rematch", "accept": True})
        assert refused["type"] == "error" and refused["code"] == "abandoned", refused
        for c in [*clients, watch]:
            await c.close()

    asyncio.run(go())
    check = ledger_check(server.url)
    assert check.returncode == 0, check.stdout
    assert "Traceback" not in server.stop()


@pytest.mark.slow
def test_a_reconnect_within_the_grace_is_never_a_leave(server_factory: Any) -> None:
    server = server_factory("--grace", "20")
    base = server.base

    async def go() -> None:
        tid, clients = await seat_four(base, "havana", names="wxyz")
        await clients[0].wait_for(lambda c: _event(c, "started"), 30)
        await clients[2].drop()  # her connection drops at the start ...
        await clients[0].wait_for(lambda c: _event(c, "away", seat=2), 30)
        await clients[2].connect(resume=True)  # ... and she is back within the grace
        await clients[0].wait_for(lambda c: _event(c, "back", seat=2), 30)
        await play_all(clients, seed=7)
        await clients[0].wait_for(lambda c: bool(_frames_of(c, "rating")), 30)
        history = [e["type"] for e in await get_history(base, tid)]
        assert "aborted" not in history and "takeover" not in history
        rating = _frames_of(clients[0], "rating")[0]
        assert rating["rated"] is True and len(rating["seats"]) == 4
        for c in clients:
            await c.close()

    asyncio.run(go())
    assert "Traceback" not in server.stop()


def _first_hand_ended(c: TableClient) -> bool:
    return any(e["type"] == "played" and e.get("hand_end") for e in c.events)


@pytest.mark.slow
def test_one_who_leaves_later_loses_alone_his_partner_does_not_move(server_factory: Any) -> None:
    # A long abandon time: the three who stay finish the game, and a bot plays for the leaver.
    server = server_factory("--grace", "0.3", "--abandon-after", "600")
    base = server.base

    async def go() -> None:
        tid, clients = await seat_four(base, "havana", names="efgh")
        leaver = clients[1]

        async def leave_after_the_first_hand() -> None:
            await leaver.play_game(seed=11, stop=_first_hand_ended)
            await leaver.do({"type": "leave"})

        await asyncio.gather(
            leave_after_the_first_hand(),
            *(c.play_game(seed=20 + i) for i, c in enumerate(clients) if c is not leaver),
        )
        await clients[0].wait_for(lambda c: bool(_frames_of(c, "rating")), 30)
        info = await get_json(base, f"/api/tables/{tid}")
        made, by_bot = info["decisions"]["made"], info["decisions"]["by_bot"]
        assert by_bot[1] * 4 > made[1] and by_bot[0] == by_bot[2] == by_bot[3] == 0, made
        winner = "AB".index(info["result"]["winner"])
        pollona = info["result"]["pollona"]
        rated = _frames_of(clients[0], "rating")[0]
        assert rated["rated"] is True
        by_seat = {s["seat"]: s for s in rated["seats"]}
        assert set(by_seat) == {0, 1, 2}  # his partner (seat 3) does not move
        normal = rate([Skill()] * 4, winner, pollona)
        for s in (0, 2):  # the opponents: the normal result
            assert by_seat[s]["after"] == round(normal[s].mu)
        lost = normal if winner == 0 else rate([Skill()] * 4, 0, False)
        assert by_seat[1]["after"] == round(lost[1].mu) and by_seat[1]["change"] < 0
        players = await get_json(base, f"/api/tables/{tid}/players")
        partner = await get_json(base, f"/api/profiles/{players['seats'][3]['profile']}")
        assert partner["ratings"] == {} or partner["ratings"]["havana"]["games"] == 0, partner
        assert partner["completion"] == {"finished": 1, "begun": 1, "rate": 1.0}
        gone = await get_json(base, f"/api/profiles/{players['seats'][1]['profile']}")
        assert gone["completion"] == {"finished": 0, "begun": 1, "rate": 0.0}
        assert gone["games"] == {"played": 1, "won": 0}  # he lost alone
        for c in clients:
            await c.close()

    asyncio.run(go())
    assert "Traceback" not in server.stop()


@pytest.mark.slow
def test_when_all_four_leave_after_the_start_the_game_is_not_rated(server_factory: Any) -> None:
    server = server_factory("--grace", "0.3", "--abandon-after", "600")
    base = server.base

    async def go() -> None:
        tid, clients = await seat_four(base, "havana", names="ijkl")
        watch_guest = await new_guest(base, "otto")
        watch = TableClient(base, watch_guest["token"], tid, role="spectator")
        await watch.connect()

        async def play_then_leave(c: TableClient, seed: int) -> None:
            await c.play_game(seed=seed, stop=_first_hand_ended)
            await c.do({"type": "leave"})

        await asyncio.gather(*(play_then_leave(c, 30 + i) for i, c in enumerate(clients)))
        await watch.wait_for(lambda c: bool(_frames_of(c, "rating")), 300)
        info = await get_json(base, f"/api/tables/{tid}")
        assert info["result"] is not None and not info["abandoned"]  # the bots finished it
        rating = _frames_of(watch, "rating")[0]
        assert rating["rated"] is False and rating["seats"] == [], rating
        players = await get_json(base, f"/api/tables/{tid}/players")
        for seat in players["seats"]:
            profile = await get_json(base, f"/api/profiles/{seat['profile']}")
            assert profile["ratings"] == {}, profile
            assert profile["completion"] == {"finished": 0, "begun": 1, "rate": 0.0}
        for c in [*clients, watch]:
            await c.close()

    asyncio.run(go())
    assert "Traceback" not in server.stop()


@pytest.mark.slow
def test_one_who_aborts_twice_waits_before_the_quick_match_takes_him_again(
    server_factory: Any,
) -> None:
    server = server_factory("--grace", "0.3")
    base = server.base

    async def abort_one(names: str) -> list[TableClient]:
        """A rated table whose seat 1 leaves at its start: aborted."""
        _, clients = await seat_four(base, "havana", names=names)
        await clients[0].wait_for(lambda c: _event(c, "started"), 30)
        await clients[1].do({"type": "leave"})
        await clients[0].wait_for(lambda c: _event(c, "aborted", seat=1), 30)
        await clients[0].wait_for(lambda c: bool(_frames_of(c, "rating")), 30)
        return clients

    async def queue(token: str) -> dict[str, Any]:
        q = await ClubSocket(base).open()
        await q.send({"type": "queue", "token": token, "variant": "havana"})
        said = await q.wait(lambda m: m.get("type") in ("queued", "error"))
        if said["type"] == "queued":
            await q.send({"type": "unqueue"})
            await q.wait(of("unqueued"))
        await q.close()
        return said

    async def go() -> None:
        first = await abort_one("mnop")
        leaver = first[1].token
        assert (await queue(leaver))["type"] == "queued"  # one is forgiven
        # He sits at another rated table and leaves it at the start too.
        others = [await new_guest(base, n) for n in ("u1", "u2", "u3")]
        t = await create_table(base, others[0]["token"], rules="havana", practice=False)
        tid = t["table"]
        clients = [TableClient(base, g["token"], tid) for g in others[:1]]
        clients.append(TableClient(base, leaver, tid))
        clients += [TableClient(base, g["token"], tid) for g in others[1:]]
        for s, c in enumerate(clients):
            await c.connect()
            if s:
                assert (await c.do({"type": "sit", "seat": s}))["type"] == "ack"
        await clients[0].wait_for(lambda c: _event(c, "started"), 30)
        await clients[1].do({"type": "leave"})
        await clients[0].wait_for(lambda c: _event(c, "aborted", seat=1), 30)
        await clients[0].wait_for(lambda c: bool(_frames_of(c, "rating")), 30)
        refused = await queue(leaver)
        assert refused["type"] == "error" and refused["code"] == "cooling_down", refused
        assert 50 < refused["until"] - time.time() <= 60  # one minute after the second
        # The ones who stayed are not kept out.
        assert (await queue(first[0].token))["type"] == "queued"
        for c in [*first, *clients]:
            await c.close()

    asyncio.run(go())
    assert "Traceback" not in server.stop()
