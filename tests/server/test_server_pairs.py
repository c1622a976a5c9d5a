"""Pairs through HTTP and sockets on one node: a proposal in the partner's bell, accepted,
declined, dissolved; typed refusals (a taken or look-alike name, a guest, a block, a second pair
with the same partner); the pair's page and the leaderboard; a person's profile lists his pairs.
Nothing private of a pair's partners (their proposals, blocks, privacy, friends) reaches anybody
else (``frame_scanner.private_leaks``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from frame_scanner import private_leaks
from friends_client import account, call, kind, listen, ok, refused

from tranque.client import new_guest
from tranque.club.pairs import MAX_PAIRS

pytestmark = pytest.mark.slow


def test_a_pair_is_proposed_answered_and_dissolved(server: Any) -> None:
    base = server.base

    async def go() -> None:
        amparo, berto = await account(base, "Amparo"), await account(base, "Berto")
        cuca = await account(base, "Cuca")
        on_a, on_b, on_c = (
            await listen(base, amparo),
            await listen(base, berto),
            await listen(base, cuca),
        )
        try:
            # Proposed by account name: the partner's bell says it, with the pair's name.
            got = ok(call(base, "POST", "/api/pairs", amparo, {"name": "Los-Primos",
                                                               "partner": "berto"}))  # fmt: skip
            assert got == {"state": "proposed", "pair": "Los-Primos"}
            note = await on_b.wait(kind("notice", kind="pair_proposal", pair="Los-Primos"))
            assert note["notice"]["from"] == "Amparo"
            assert ok(call(base, "GET", "/api/me/pairs", berto)) == {
                "pairs": [], "incoming": [{"name": "Los-Primos", "partner": "Amparo"}],
                "outgoing": [],
            }  # fmt: skip
            # Not formed yet: nobody can find it, not even its proposer's profile shows it.
            refused(call(base, "GET", "/api/pairs/Los-Primos"), 404, "no_pair")
            assert ok(call(base, "GET", "/api/profiles/Amparo"))["pairs"] == []
            # The proposer cannot answer his own proposal; a stranger cannot either.
            refused(call(base, "POST", "/api/pairs/Los-Primos/accept", amparo), 409,
                    "own_proposal")  # fmt: skip
            refused(call(base, "POST", "/api/pairs/Los-Primos/accept", cuca), 404, "no_proposal")
            ok(call(base, "POST", "/api/pairs/los-primos/accept", berto))
            await on_a.wait(kind("notice", kind="pair_formed", pair="Los-Primos"))
            page = ok(call(base, "GET", "/api/pairs/LOS-PRIMOS"))
            assert page["name"] == "Los-Primos"
            assert sorted(page["partners"]) == ["Amparo", "Berto"]
            assert page["record"]["games"] == 0 and page["ratings"] == {} and page["recent"] == []
            profile = ok(call(base, "GET", "/api/profiles/Berto"))
            assert profile["pairs"] == [{"name": "Los-Primos", "partner": "Amparo"}]
            # A second pair with the same partner: refused, whatever its name.
            refused(call(base, "POST", "/api/pairs", berto, {"name": "Otra", "partner": "Amparo"}),
                    409, "pair_exists")  # fmt: skip
            # Another pair with another partner is fine; declined, it is gone.
            ok(call(base, "POST", "/api/pairs", cuca, {"name": "Cuca-y-Berto", "partner": "Berto"}))
            await on_b.wait(kind("notice", kind="pair_proposal", pair="Cuca-y-Berto"))
            ok(call(base, "POST", "/api/pairs/Cuca-y-Berto/decline", berto))
            await on_c.wait(kind("notice", kind="pair_declined", pair="Cuca-y-Berto"))
            refused(call(base, "POST", "/api/pairs/Cuca-y-Berto/accept", berto), 404,
                    "no_proposal")  # fmt: skip
            # Dissolved by either partner: the other is told, the page and the profile forget it.
            ok(call(base, "DELETE", "/api/pairs/Los-Primos", berto))
            await on_a.wait(kind("notice", kind="pair_dissolved", pair="Los-Primos"))
            refused(call(base, "GET", "/api/pairs/Los-Primos"), 404, "no_pair")
            refused(call(base, "DELETE", "/api/pairs/Los-Primos", amparo), 404, "not_your_pair")
            assert ok(call(base, "GET", "/api/profiles/Amparo"))["pairs"] == []
            # Cuca heard nothing of Amparo and Berto's pair.
            assert private_leaks(on_c.frames, ["Los-Primos", "Amparo"]) == []
        finally:
            for s in (on_a, on_b, on_c):
                await s.close()

    asyncio.run(go())


def test_bad_proposals_are_refused_with_a_code(server: Any) -> None:
    base = server.base

    async def go() -> None:
        amparo, berto = await account(base, "Amparo"), await account(base, "Berto")
        cuca, dalia = await account(base, "Cuca"), await account(base, "Dalia")
        guest = (await new_guest(base, "visita"))["token"]
        pair = {"name": "Dos-Gatos", "partner": "Berto"}
        refused(call(base, "POST", "/api/pairs", guest, pair), 403, "account_needed")
        refused(call(base, "POST", "/api/pairs", None, pair), 401, "unauthenticated")
        refused(call(base, "GET", "/api/me/pairs", guest), 403, "account_needed")
        refused(call(base, "POST", "/api/pairs/Dos-Gatos/accept", guest), 403, "account_needed")
        to_self = {"name": "Yo-Solo", "partner": "amparo"}
        refused(call(base, "POST", "/api/pairs", amparo, to_self), 400, "self_pair")
        nobody = {"name": "Dos-Gatos", "partner": "Nadie"}
        refused(call(base, "POST", "/api/pairs", amparo, nobody), 404, "unknown_account")
        for bad in ("a", "x" * 30, "no spaces", "__"):
            refused(call(base, "POST", "/api/pairs", amparo, {"name": bad, "partner": "Berto"}),
                    400, "bad_name")  # fmt: skip
        refused(call(base, "POST", "/api/pairs", amparo, {"name": "Rosa", "partner": "Berto"}),
                400, "reserved_name")  # fmt: skip
        refused(call(base, "POST", "/api/pairs", amparo, {"nombre": "x", "partner": "B"}), 400,
                "unknown_field")  # fmt: skip
        refused(call(base, "POST", "/api/pairs", amparo, [1]), 400, "bad_request")
        r = call(base, "POST", "/api/pairs", amparo)
        assert r.status_code == 400, r.text
        ok(call(base, "POST", "/api/pairs", amparo, pair))
        # The name is taken: the same, another case, a look-alike (Cyrillic о, a zero).
        for same in ("Dos-Gatos", "DOS-GATOS", "D\u043es-Gatos", "D0s-Gatos"):
            refused(call(base, "POST", "/api/pairs", cuca, {"name": same, "partner": "Dalia"}),
                    409, "name_taken")  # fmt: skip
        # A block, either way: no proposal, and no acceptance of one made before it.
        ok(call(base, "POST", "/api/blocks", dalia, {"person": "Cuca"}))
        refused(call(base, "POST", "/api/pairs", cuca, {"name": "Tres", "partner": "Dalia"}),
                403, "blocked")  # fmt: skip
        refused(call(base, "POST", "/api/pairs", dalia, {"name": "Tres", "partner": "Cuca"}),
                403, "blocked")  # fmt: skip
        ok(call(base, "POST", "/api/pairs", cuca, {"name": "Cuatro", "partner": "Berto"}))
        ok(call(base, "POST", "/api/blocks", berto, {"person": "Cuca"}))
        refused(call(base, "POST", "/api/pairs/Cuatro/accept", berto), 403, "blocked")
        ok(call(base, "POST", "/api/pairs/Cuatro/decline", berto))
        # The public reads: unknown preset, bad limit, unknown pair.
        refused(call(base, "GET", "/api/pairs?preset=nope"), 404, "no_preset")
        refused(call(base, "GET", "/api/pairs?limit=0"), 400, "bad_limit")
        refused(call(base, "GET", "/api/pairs?limit=x"), 400, "bad_limit")
        refused(call(base, "GET", "/api/pairs/Nadie"), 404, "no_pair")
        refused(call(base, "GET", "/api/pairs/" + "x" * 300), 404, "no_pair")
        board = ok(call(base, "GET", "/api/pairs?preset=miami"))
        assert board == {"preset": "miami", "min_games": 10, "pairs": []}
        # The pages themselves are the app's page, not a 404.
        for path in ("/pairs", "/pair/Dos-Gatos"):
            assert call(base, "GET", path).status_code == 200
        # What the public reads say carries no guest id and no token.
        seen = json.dumps([ok(call(base, "GET", "/api/profiles/Berto")), board])
        assert not any(t in seen for t in (amparo, berto, cuca, dalia))

    asyncio.run(go())


def test_a_proposal_follows_the_partners_privacy_and_the_cap_on_pairs(server: Any) -> None:
    """A proposal is an invitation: ``invites: nobody`` refuses every one, ``friends`` a
    stranger's but not a friend's. A person is in ``MAX_PAIRS`` pairs (formed or proposed) at
    most: one more is refused ``too_many_pairs``, for him as proposer and as partner."""
    base = server.base

    async def go() -> None:
        eva, fito = await account(base, "Eva"), await account(base, "Fito")
        gil = await account(base, "Gil")
        ok(call(base, "PUT", "/api/privacy", fito, {"invites": "nobody"}))
        refused(call(base, "POST", "/api/pairs", eva, {"name": "Eva-Fito", "partner": "Fito"}),
                403, "invites_refused")  # fmt: skip
        ok(call(base, "PUT", "/api/privacy", fito, {"invites": "friends"}))
        refused(call(base, "POST", "/api/pairs", eva, {"name": "Eva-Fito", "partner": "Fito"}),
                403, "invites_refused")  # fmt: skip
        ok(call(base, "POST", "/api/friends", eva, {"name": "Fito"}))
        ok(call(base, "POST", "/api/friends/Eva/accept", fito))
        ok(call(base, "POST", "/api/pairs", eva, {"name": "Eva-Fito", "partner": "Fito"}))
        # Eva proposes to MAX_PAIRS - 1 more people: her MAX_PAIRS-th; one more is refused.
        socios = [await account(base, f"Socio{i}") for i in range(MAX_PAIRS - 1)]
        for i in range(MAX_PAIRS - 1):
            ok(call(base, "POST", "/api/pairs", eva, {"name": f"Eva-{i}", "partner": f"Socio{i}"}))
        refused(call(base, "POST", "/api/pairs", eva, {"name": "Eva-Gil", "partner": "Gil"}),
                409, "too_many_pairs")  # fmt: skip
        refused(call(base, "POST", "/api/pairs", gil, {"name": "Gil-Eva", "partner": "Eva"}),
                409, "too_many_pairs")  # fmt: skip
        # One declined, there is room again.
        ok(call(base, "POST", "/api/pairs/Eva-0/decline", socios[0]))
        ok(call(base, "POST", "/api/pairs", gil, {"name": "Gil-Eva", "partner": "Eva"}))

    asyncio.run(go())
