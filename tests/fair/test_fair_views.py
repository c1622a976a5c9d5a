"""No seed, key or shuffle state is in any view before the hand ends.

Games are dealt with the recipe; at every step of every hand (redeal window, lead choice, each
move) every seat's view and the public view are serialized and searched for the hand's secrets:
the server seed, each client seed, the key, the shuffled order and the sleepers.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fair_games import play_fair_game

from tranque.fair.recipe import deal_order
from tranque.fair.seeds import HandFairness
from tranque.rules.game import GameState
from tranque.rules.tiles import format_tiles
from tranque.rules.variants import HAVANA, MIAMI, ORIENTE, Rules
from tranque.rules.views import public_view, seat_view


def _secrets(game: GameState, fair: HandFairness) -> list[str]:
    attempt = len(game.setup.redeals)
    order = deal_order(fair.key, game.rules, attempt)
    out = [fair.server_seed.hex(), fair.key.hex(), format_tiles(order)]
    out += [s.hex() for s in fair.client_seeds if s]
    k = 4 * game.rules.tiles_each
    if order[k:]:
        out.append(format_tiles(order[k:]))  # sleepers in dealt order
    return out


def leaks(view: dict[str, Any], fair: HandFairness, secrets: list[str]) -> list[str]:
    """What a view shows that it must not before the hand ends."""
    found = [k for k in ("sleepers", "dealt_hands", "final_hands") if view.get(k) is not None]
    text = json.dumps(view)
    found += [s for s in secrets if s in text]
    if str(fair.server_seed) in text:  # the raw bytes in another spelling
        found.append("server seed bytes")
    return found


@pytest.mark.parametrize("rules", [HAVANA, MIAMI, ORIENTE], ids=lambda r: r.name)
def test_no_secret_in_a_view_before_the_hand_ends(rules: Rules) -> None:
    steps = 0

    def check(game: GameState, fair: HandFairness) -> None:
        nonlocal steps
        hand = game.hand
        if hand is not None and hand.is_over:
            return
        steps += 1
        secrets = _secrets(game, fair)
        views = [public_view(game).to_json()] + [seat_view(game, s).to_json() for s in range(4)]
        for view in views:
            assert not leaks(view, fair, secrets), leaks(view, fair, secrets)
        deal = game.pending_deal or (hand.deal if hand is not None else None)
        if deal is not None:
            # A seat sees its own tiles and nobody else's.
            for seat in range(4):
                mine = seat_view(game, seat).to_json()["tiles"].split()
                others = {str(t) for s in range(4) if s != seat for t in _tiles(deal.hands[s])}
                assert not others & set(mine)

    record, game, fairness = play_fair_game(rules, "mesa-v", 15, max_hands=3, on_step=check, seed=7)
    assert steps > 10  # the redeal window, the choice and every move of each hand
    # And once a hand is over, its view shows what was hidden.
    over = public_view(game).to_json()
    if game.hand is not None and game.hand.is_over:
        assert over["dealt_hands"] is not None
        if rules.sleepers:
            assert over["sleepers"]
    assert record["hands"][0]["fairness"]["server_seed"] == fairness[0].server_seed.hex()


def _tiles(mask: int) -> list[str]:
    return format_tiles(mask).split()


def test_public_commitments_are_all_a_seat_sees_of_the_fairness() -> None:
    _, _, fairness = play_fair_game(HAVANA, "mesa-v", 1, max_hands=1)
    public = json.dumps(fairness[0].public_commitments())
    f = fairness[0]
    for secret in [f.server_seed, f.key, *[s for s in f.client_seeds if s]]:
        assert secret.hex() not in public


def test_the_leak_check_can_fail() -> None:
    """Leaks planted in a view are found (so the test above is not vacuous)."""
    caught: list[list[str]] = []

    def plant(game: GameState, fair: HandFairness) -> None:
        if caught or game.hand is None:
            return
        secrets = _secrets(game, fair)
        view = public_view(game).to_json()
        caught.append(leaks({**view, "debug": fair.key.hex()}, fair, secrets))
        caught.append(leaks({**view, "sleepers": secrets[-1]}, fair, secrets))
        caught.append(leaks({**view, "shuffle": secrets[2]}, fair, secrets))

    play_fair_game(HAVANA, "mesa-v", 1, max_hands=1, on_step=plant)
    assert len(caught) == 3 and all(caught), caught
