"""A pair's rating through a real server: four accounts, two of them a registered pair sitting as
partners, play a whole game; the pair's page shows the game counted once and its rating moved
as ``club.pairs.rate_pair`` says (the opponents, no pair, as one player from their own
ratings); the table's frames carry no hidden tile, and nothing of the pair's proposal."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from frame_scanner import private_leaks, scan_all
from friends_client import Sock, account, call, kind, listen, ok, refused
from test_server_e2e import GUARDED, play_all

from tranque.client import TableClient, create_table, get_json
from tranque.club.pairs import composite, rate_pair
from tranque.club.ratings import Skill


@pytest.mark.slow
def test_a_pairs_rating_moves_once_for_a_game_played_as_partners(server_factory: Any) -> None:
    server = server_factory("--test-seed", "7061726573")
    base = server.base

    async def go() -> None:
        names = ["Amparo", "Berto", "Cuca", "Dalia"]
        tokens = [await account(base, n) for n in names]
        # Amparo (seat 0) and Cuca (seat 2) are the pair "Las-Primas".
        ok(call(base, "POST", "/api/pairs", tokens[0], {"name": "Las-Primas", "partner": "Cuca"}))
        ok(call(base, "POST", "/api/pairs/Las-Primas/accept", tokens[2]))
        table = await create_table(base, tokens[0], rules="havana", practice=False)
        tid = table["table"]
        clients = []
        for s, token in enumerate(tokens):
            c = TableClient(base, token, tid)
            await c.connect()
            if s:
                assert (await c.do({"type": "sit", "seat": s}))["type"] == "ack"
            clients.append(c)
        await play_all(clients, seed=11, timeout=600)
        record = await get_json(base, f"/api/tables/{tid}/record")
        scan_all(clients, record, at_least=GUARDED)
        for c in clients:  # the pair's proposal was its partners' business, never a table's
            assert private_leaks(c.frames, ["Las-Primas", "pair_proposal"]) == []
        info = await get_json(base, f"/api/tables/{tid}")
        result = info["result"]
        winner = "AB".index(result["winner"])
        assert sum(result["points"]) > 0
        expected = rate_pair(Skill(), composite(Skill(), Skill()), winner, result["pollona"])[0]
        page = await get_json(base, "/api/pairs/Las-Primas")
        havana = page["ratings"]["havana"]
        assert havana["games"] == 1 and havana["rating"] == expected.rating
        assert havana["mu"] == round(expected.mu, 3)
        assert page["record"]["games"] == 1
        assert page["record"]["won"] == int(winner == 0)
        assert page["record"]["points_for"] == result["points"][0]
        assert page["record"]["points_against"] == result["points"][1]
        assert [g["page"] for g in page["recent"]] == [f"/g/{tid}"]
        # Once: the players' route and the profiles still say one game, the board nothing yet.
        assert (await get_json(base, "/api/profiles/Cuca"))["pairs"] == [
            {"name": "Las-Primas", "partner": "Amparo"}
        ]
        assert (await get_json(base, "/api/pairs?preset=havana"))["pairs"] == []
        for c in clients:
            await c.close()
        again = await get_json(base, "/api/pairs/Las-Primas")
        assert again["ratings"] == page["ratings"] and again["record"]["games"] == 1
        await quick_match_as_a_pair(base, tokens, havana["rating"])

    asyncio.run(go())


async def quick_match_as_a_pair(base: str, tokens: list[str], pair_rating: int) -> None:
    """The pair enters the quick match as a unit: Cuca starts it, Amparo's bell invites her to
    the party, both queue with it at the pair's rating (not their own), and the table that
    forms with two others seats them as partners."""
    amparo, berto, cuca, dalia = tokens
    bell = await listen(base, amparo)
    socks = [bell]
    try:
        refused(call(base, "POST", "/api/pairs/Las-Primas/party", berto), 404, "not_your_pair")
        party = ok(call(base, "POST", "/api/pairs/Las-Primas/party", cuca))["party"]
        note = await bell.wait(kind("notice", kind="invite", party=party))
        assert note["notice"]["pair"] == "Las-Primas" and note["notice"]["from"] == "Cuca"
        # Somebody else with the pair's party id is refused: it is the two partners'.
        forged = await Sock(base).open(
            {"type": "queue", "token": berto, "variant": "havana", "party": party}, "queued"
        )
        socks.append(forged)
        await forged.wait(kind("error", code="not_your_pair"))
        own = (await get_json(base, "/api/profiles/Cuca"))["ratings"]["havana"]["rating"]
        assert own != pair_rating  # so the ticket's rating says which one the queue used
        queued = []
        for token in (cuca, amparo, berto, dalia):
            party_of = party if token in (cuca, amparo) else None
            msg = {"type": "queue", "token": token, "variant": "havana", "party": party_of}
            sock = await Sock(base).open(msg, "queued")
            socks.append(sock)
            queued.append(sock)
            assert (await sock.wait(kind("queued")))["party"] == party_of
        # Their tickets carry the pair's rating (a later frame, queue_count, may follow).
        assert (await queued[0].wait(kind("queued")))["rating"] == pair_rating
        assert (await queued[1].wait(kind("queued")))["rating"] == pair_rating
        seats = [(await s.wait(kind("matched"), 30))["seat"] for s in queued]
        assert len({(await s.wait(kind("matched")))["table"] for s in queued}) == 1
        assert abs(seats[0] - seats[1]) == 2, seats  # the pair sits as partners
    finally:
        for s in socks:
            await s.close()
