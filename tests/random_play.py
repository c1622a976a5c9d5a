"""A whole game of random legal moves, for the tests that need finished games to keep, list
and analyse (no redeal asked, the leading pair silent)."""

from __future__ import annotations

import random

from tranque.rules.dealing import deal_next
from tranque.rules.game import GameState, Phase
from tranque.rules.variants import Rules


def random_game(rules: Rules, rng: random.Random) -> GameState:
    game = GameState.new(rules)
    while not game.is_over:
        game = deal_next(game, rng)
        while game.phase is Phase.REDEAL:
            game = game.answer_redeal(game.redeal_eligible()[0], False)
        if game.phase is Phase.CHOOSE:
            game = game.choose_leader(None, None)
        while game.phase is Phase.PLAY:
            game = game.play(rng.choice(game.legal_actions()))
    return game
