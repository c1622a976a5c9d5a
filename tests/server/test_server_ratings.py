"""Ratings through a real server: a game four people began is rated once, with the leaver
taking his pair's result; the players' route shows each person's change; a game with bots is
not rated. The frames and the new answers carry no hidden tile and nobody's token."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from frame_scanner import scan, scan_all
from test_server_e2e import GUARDED, seat_four

from tranque.client import TableClient, create_table, get_json, new_guest, random_legal
from tranque.club.ratings import Skill, rate


@pytest.mark.slow
def test_four_people_are_rated_once_and_the_leaver_takes_the_result(server_factory: Any) -> None:
    # Pinned deals and plays: the first hand must not end the game (a hand can pass 100), or
    # there would be nothing left to leave. A deal is made from the server's seed and every
    # player's: both are pinned (with the players' left random, one deal in a few hundred
    # ended the game at once, and the leave came too late: `game_over`).
    server = server_factory("--grace", "0.5", "--test-seed", "6c6561766572")
    base = server.base

    async def go() -> None:
        tid, clients = await seat_four(base, "havana", names="wxyz", seed_secret=b"leaver")
        tokens = [c.token for c in clients]
        leaver = clients[3]
        # Seat 3 leaves once the first hand has ended (a leave before it would abort the game:
        # test_server_abort); a bot finishes the game for him.
        first_ended = lambda c: any(e["type"] == "played" and e.get("hand_end") for e in c.events)  # noqa: E731

        async def leave_late() -> None:
            await leaver.play_game(random_legal, stop=first_ended, seed=3)
            reply = await leaver.do({"type": "leave"})
            assert reply["type"] == "ack", reply

        await asyncio.gather(
            leave_late(),
            *(c.play_game(random_legal, timeout=900, seed=s) for s, c in enumerate(clients[:3])),
        )
        record = await get_json(base, f"/api/tables/{tid}/record")
        scan_all(clients[:3], record, at_least=GUARDED)
        scan(leaver.frames, 3, record)
        info = await get_json(base, f"/api/tables/{tid}")
        assert info["seats"][3]["taken_over"] and info["seats"][3]["kind"] == "person"
        result = info["result"]
        winner = "AB".index(result["winner"])
        players = await get_json(base, f"/api/tables/{tid}/players")
        text = json.dumps(players)
        assert not any(t in text for t in tokens)
        assert players["preset"] == "havana"
        assert info["decisions"]["by_bot"][3] * 4 > info["decisions"]["made"][3], info
        # He left for more than a quarter of his decisions: he loses alone (club.leavers), his
        # partner does not move, the others as for the result.
        expected = rate([Skill()] * 4, winner, result["pollona"])
        lost = expected if winner == 0 else rate([Skill()] * 4, 0, False)
        assert players["seats"][3]["change"]["after"] == round(lost[3].mu)
        assert players["seats"][1]["change"] is None, players["seats"][1]
        for s in (0, 2):
            seat = players["seats"][s]
            assert seat["change"]["before"] == 1500
            assert seat["change"]["after"] == round(expected[s].mu), seat
            assert seat["rating"]["games"] == 1 and seat["rating"]["provisional"]
        # The three still there were told it over the socket, the leaver's seat's too.
        for c in clients[:3]:
            await c.wait_for(lambda c: '"type":"rating"' in "".join(c.frames[-5:]), 30)
            told = [json.loads(f) for f in c.frames if f.startswith('{"type":"rating"')]
            assert len(told) == 1 and told[0]["rated"], told
            changes = {x["seat"]: x for x in told[0]["seats"]}
            assert set(changes) == {0, 2, 3}
            assert changes[3]["after"] == players["seats"][3]["change"]["after"]
        profile = await get_json(base, f"/api/profiles/{players['seats'][3]['profile']}")
        assert profile["ratings"]["havana"]["games"] == 1
        assert profile["recent"][0]["rated"] and profile["games"]["played"] == 1
        board = await get_json(base, "/api/leaderboards/havana")
        assert board["players"] == []  # everyone is provisional after one game
        for c in clients:
            await c.close()

    asyncio.run(go())


def test_a_game_with_a_bot_is_not_rated(server: Any) -> None:
    base = server.base

    async def go() -> None:
        g = await new_guest(base, "solo")
        t = await create_table(base, g["token"], rules="oriente", practice=True)
        c = TableClient(base, g["token"], t["table"])
        await c.connect()
        await c.play_game(random_legal, timeout=300)
        await c.close()
        players = await get_json(base, f"/api/tables/{t['table']}/players")
        assert [s["kind"] for s in players["seats"]] == ["person", "bot", "bot", "bot"]
        me = players["seats"][0]
        assert me["change"] is None and me["rating"]["games"] == 0
        assert "rating" not in players["seats"][1] and "profile" not in players["seats"][1]
        profile = await get_json(base, f"/api/profiles/{me['profile']}")
        assert profile["ratings"] == {} and profile["recent"][0]["rated"] is False
        assert g["token"] not in json.dumps(players)

    asyncio.run(go())
