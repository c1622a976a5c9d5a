"""Records dealt with the recipe, for verify and the commands to chew on (a helper, not tests).

``play_fair_game`` plays a whole game the way a table would: for each hand it draws (fixed) seeds,
settles them, deals from the key with ``deal_fair``, takes redeals, choices and random legal moves,
and writes the game record with each hand's fairness section.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tranque.fair.dealer import deal_fair
from tranque.fair.recipe import client_commit
from tranque.fair.seeds import HandFairness, SeatKind, hand_fairness
from tranque.rules.game import GameState, LeadChoice, Phase
from tranque.rules.record import game_record
from tranque.rules.variants import Rules

SERVER_SEED = bytes(range(32))
SEEDS = [bytes(range(32, 64)), bytes(range(64, 96)), None, bytes(range(96, 128))]
KINDS = [SeatKind.PERSON, SeatKind.PERSON, SeatKind.BOT, SeatKind.PERSON]


def _commit(seed: bytes | None) -> str | None:
    return None if seed is None else client_commit(seed)


def play_fair_game(
    rules: Rules,
    table_id: str,
    first_hand: int,
    *,
    seed: int = 1,
    max_hands: int | None = None,
    ask_redeal: bool = True,
    on_step: Callable[[GameState, HandFairness], None] | None = None,
) -> tuple[dict[str, Any], GameState, list[HandFairness]]:
    """Play a game (or its first ``max_hands`` hands): the record, final state, fairness."""
    rng = random.Random(seed)
    game = GameState.new(rules)
    fairness: dict[int, HandFairness] = {}
    table_hand = first_hand
    while not game.is_over and (max_hands is None or len(game.played) < max_hands):
        assert game.phase is Phase.DEAL
        # The server's seed would be fresh each hand; fixed here so the records are stable.
        server_seed = bytes((b + table_hand) & 0xFF for b in SERVER_SEED)
        if table_hand == first_hand:
            server_seed = SERVER_SEED
        f = hand_fairness(
            table_id, table_hand, server_seed, KINDS, [_commit(s) for s in SEEDS], SEEDS
        )
        number = game.hand_number
        game = deal_fair(game, f.key)
        while game.phase in (Phase.REDEAL, Phase.DEAL, Phase.CHOOSE):
            if on_step is not None:
                on_step(game, f)
            if game.phase is Phase.DEAL:
                game = deal_fair(game, f.key)
            elif game.phase is Phase.REDEAL:
                game = game.answer_redeal(game.redeal_eligible()[0], ask_redeal)
            else:
                game = game.choose_leader(
                    rng.choice([LeadChoice.SALGO, LeadChoice.SAL_TU, None]),
                    rng.choice([LeadChoice.SALGO, LeadChoice.SAL_TU, None]),
                )
        while game.phase is Phase.PLAY and game.hand is not None and not game.hand.is_over:
            if on_step is not None:
                on_step(game, f)
            game = game.play(rng.choice(game.legal_actions()))
        redeals = len(game.played[-1].setup.redeals)
        fairness[number] = f.with_attempts(redeals + 1)
        table_hand += 1
    record = game_record(game, fairness={n: f.to_json() for n, f in fairness.items()})
    return record, game, list(fairness.values())
