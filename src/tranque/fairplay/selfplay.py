"""Games between bots, honest or colluding, written as records with ``players``.

The screen's calibration and its measured recall both come from here: a whole game to the
target under the checked rules (redeals, Salgo / Sal tú, every play), each seat played by a
bot of the registry from its own ``SeatView`` or by a colluder (``colluders``) that this
harness lets see more. The record is the server's ``tranque-game/1`` with ``players``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tranque.arena.match import MAX_HANDS_PER_GAME, derive_seed
from tranque.bots.base import Bot, make_bot
from tranque.fairplay.colluders import COLLUDERS
from tranque.rules.dealing import deal_next
from tranque.rules.game import GameState, LeadChoice, Phase
from tranque.rules.hand import HandState
from tranque.rules.record import game_record
from tranque.rules.variants import HAVANA, Rules
from tranque.rules.views import seat_view

# A seat's player: a registry bot ("facil", "heuristic", "strong") or "collude:partner" /
# "collude:all" (the strong bot shown its partner's tiles, or every hand).
COLLUDE = "collude:"


def play_record(
    seats: Sequence[str],
    players: Sequence[str | None],
    seed: int,
    rules: Rules = HAVANA,
) -> dict[str, object]:
    """One game to the target, seat ``s`` played by ``seats[s]``; its record, with ``players``."""
    game = GameState.new(rules)
    current: list[HandState | None] = [None]

    def peek() -> HandState:
        hand = current[0]
        assert hand is not None
        return hand

    bots: list[Bot] = []
    for s, name in enumerate(seats):
        bot_seed = derive_seed(seed, "fairplay", s)
        if name.startswith(COLLUDE):
            bots.append(COLLUDERS[name.removeprefix(COLLUDE)](bot_seed, peek))
        else:
            bots.append(make_bot(name, bot_seed))
    rng = random.Random(derive_seed(seed, "fairplay-deals"))
    for _ in range(MAX_HANDS_PER_GAME):
        if game.is_over:
            break
        game = deal_next(game, rng)
        while game.phase is Phase.REDEAL:
            seat = game.redeal_eligible()[0]
            game = game.answer_redeal(seat, bots[seat].ask_redeal(seat_view(game, seat)))
        if game.phase is Phase.DEAL:
            continue
        if game.phase is Phase.CHOOSE:
            chooser = game.choosing_seats()
            assert chooser is not None
            first, second = (bots[s].choose_lead(seat_view(game, s)) for s in chooser)
            assert isinstance(first, LeadChoice) and isinstance(second, LeadChoice)
            game = game.choose_leader(first, second)
        while game.phase is Phase.PLAY:
            hand = game.hand
            assert hand is not None
            current[0] = hand
            view = seat_view(game, hand.turn)
            game = game.play(bots[hand.turn].choose_action(view), hand.turn)
    else:
        raise RuntimeError(f"a game did not end within {MAX_HANDS_PER_GAME} hands")
    record = game_record(game)
    record["players"] = list(players)
    return record
