"""Deal a game's hands with the recipe: the bridge between a hand's key and ``GameState.deal``.

The game counts redeals itself, so the attempt to deal is always the number of deals thrown in so
far; the first hand also gets its draw or coin from the same key.
"""

from __future__ import annotations

from tranque.fair.recipe import coin, deal_for, first_hand_draw
from tranque.rules.game import GameState


def deal_fair(game: GameState, key: bytes) -> GameState:
    """Deal the game's next deal (first or redeal) from ``key``, with the draw or coin if due."""
    rules = game.rules
    attempt = len(game.setup.redeals)
    draw = first_hand_draw(key, rules) if game.needs_first_draw() else None
    flip = coin(key) if game.needs_coin() else None
    return game.deal(deal_for(key, rules, attempt), draw=draw, coin=flip)
