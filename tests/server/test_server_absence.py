"""People who never come to their table, and tables whose people have all gone, through a real
server: the one who never came is away and a bot plays for him (``--arrival-window``); a table
whose people have all been away ``--abandon-after`` seconds ends, unrated, every chip back, and
leaves the lobby. Every wait is for an event (a frame), never a sleep."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from club_client import ClubSocket, of
from test_server_chips import chips_of, ledger_check

from tranque.client import TableClient, create_table, get_history, get_json, new_guest
from tranque.ledger import stakes as chips


def _frames_of(client: TableClient, kind: str) -> list[dict[str, Any]]:
    return [m for m in map(json.loads, client.frames) if m.get("type") == kind]


def _event(client: TableClient, kind: str, **fields: Any) -> bool:
    return any(
        e["type"] == kind and all(e.get(k) == v for k, v in fields.items()) for e in client.events
    )


@pytest.mark.slow
def test_one_who_never_comes_is_away_a_bot_plays_for_him_and_the_table_nobody_came_to_ends(
    server_factory: Any,
) -> None:
    # Bots slow enough that the game is still on when the table is found abandoned.
    server = server_factory("--arrival-window", "2", "--abandon-after", "2", "--bot-delay", "0.3")
    base = server.base

    async def go() -> None:
        ana, bea, eve = [await new_guest(base, n) for n in ("ana", "bea", "eve")]
        # Ana comes to her table; Bea never comes to hers. Each starts at once (three bots).
        t_ana = (await create_table(base, ana["token"], practice=True, seat=0))["table"]
        here = TableClient(base, ana["token"], t_ana)
        await here.connect()
        t_bea = (await create_table(base, bea["token"], practice=True, seat=0))["table"]
        watch = TableClient(base, eve["token"], t_bea, role="spectator")
        await watch.connect()  # a spectator is nobody's arrival
        await watch.wait_for(lambda c: _event(c, "takeover", seat=0), 30)
        away = [e for e in watch.events if e["type"] == "away"]
        assert len(away) == 1 and away[0]["seat"] == 0, away
        assert away[0]["absent"] is True and away[0]["left"] is False
        # A bot plays for her at once (she had the arrival window), marked as a bot.
        taken = next(e for e in watch.events if e["type"] == "takeover")
        assert taken["bot"] and away[0]["grace"] is not None
        # Nobody is left at her table: it ends, with no result.
        await watch.wait_for(lambda c: _event(c, "abandoned"), 30)
        await watch.wait_for(lambda c: bool(_frames_of(c, "rating")), 30)
        info = await get_json(base, f"/api/tables/{t_bea}")
        assert info["over"] and info["abandoned"] and info["result"] is None
        assert info["seats"][0]["away"] and info["seats"][0]["taken_over"]
        history = [e["type"] for e in await get_history(base, t_bea)]
        assert history.index("away") < history.index("takeover") < history.index("abandoned")
        # Ana's window ended before Bea's: she was there, so nothing of the kind at her table.
        mine = await get_json(base, f"/api/tables/{t_ana}")
        assert not mine["over"] and not mine["seats"][0]["away"], mine["seats"]
        assert not any(e["type"] in ("away", "takeover") for e in here.events)
        assert "away" not in [e["type"] for e in await get_history(base, t_ana)]
        await here.close()
        await watch.close()

    asyncio.run(go())
    assert "Traceback" not in server.stop()


@pytest.mark.slow
def test_a_chip_table_whose_people_all_left_ends_unrated_with_the_chips_back_and_leaves_the_lobby(
    server_factory: Any,
) -> None:
    server = server_factory("--fill-time", "0", "--abandon-after", "1")
    base = server.base

    async def go() -> None:
        pepe, eve = await new_guest(base, "pepe"), await new_guest(base, "eve")
        assert (await chips_of(base, pepe["token"]))["balance"] == chips.OPENING_GRANT
        # A quick match at a stake: Pepe and three bots of the house, a public table.
        q = await ClubSocket(base).open()
        await q.send({"type": "queue", "token": pepe["token"], "variant": "havana", "stake": 100})
        tid = (await q.wait(of("matched")))["table"]
        await q.close()
        assert tid in [t["table"] for t in await _lobby(base)]
        staked = await chips_of(base, pepe["token"])
        assert (staked["balance"], staked["in_escrow"]) == (chips.OPENING_GRANT - 200, 200)
        me = TableClient(base, pepe["token"], tid)
        await me.connect()
        watch = TableClient(base, eve["token"], tid, role="spectator")
        await watch.connect()
        await me.do({"type": "leave"})  # he leaves the table during the game
        await watch.wait_for(lambda c: _event(c, "abandoned"), 30)
        await watch.wait_for(lambda c: bool(_frames_of(c, "rating")), 30)
        assert _event(watch, "away", seat=me.state["seat"], left=True, absent=False)
        assert _event(me, "abandoned")  # still connected, he is told too
        rating = _frames_of(watch, "rating")[0]
        assert rating["rated"] is False and rating["seats"] == []
        info = await get_json(base, f"/api/tables/{tid}")
        assert info["over"] and info["abandoned"] and info["result"] is None
        assert info["chips"]["payout"] is None
        # Every chip back, once: his escrow (and the house's for the bots) is void.
        after = await chips_of(base, pepe["token"])
        assert (after["balance"], after["in_escrow"]) == (chips.OPENING_GRANT, 0)
        moves = (await chips_of(base, pepe["token"], "/api/chips/history?limit=5"))["movements"]
        assert [(m["kind"], m["amount"]) for m in moves] == [
            ("void", 200), ("escrow", -200), ("grant", chips.OPENING_GRANT),
        ]  # fmt: skip
        # Out of the lobby; unrated, and not one of his games.
        assert tid not in [t["table"] for t in await _lobby(base)]
        profile = await get_json(base, f"/api/profiles/~{pepe['guest']}")
        assert profile["games"]["played"] == 0 and profile["ratings"] == {}
        # Nothing more is taken at it.
        refused = await me.command({"type": "rematch", "accept": True})
        assert refused["type"] == "error" and refused["code"] == "abandoned", refused
        await me.close()
        await watch.close()

    asyncio.run(go())
    check = ledger_check(server.url)
    assert check.returncode == 0, check.stdout
    assert "Traceback" not in server.stop()


async def _lobby(base: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.get("/api/lobby")
        assert r.status_code == 200, r.text
        return list(r.json()["tables"])
