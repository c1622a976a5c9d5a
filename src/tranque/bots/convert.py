"""Between the rules' values (Action, SeatView) and the kernels' integers."""

from __future__ import annotations

import numpy as np

from tranque.bots import kernels as K
from tranque.rules.dealing import random_deal
from tranque.rules.game import GameState
from tranque.rules.hand import PASS, Action, HandState
from tranque.rules.tiles import ALL_TILES, mask_of
from tranque.rules.variants import Rules, TiedBlock
from tranque.rules.views import SeatView, seat_view


def action_code(action: Action) -> int:
    if action.tile is None:
        return K.PASS
    end = K.LEAD_END if action.end is None else action.end
    return action.tile.index * 16 + end


def code_action(code: int) -> Action:
    if code < 0:
        return PASS
    tile = ALL_TILES[code >> 4]
    end = code & 15
    return Action.lead(tile) if end == K.LEAD_END else Action.play(tile, end)


def tied_mode(rules: Rules) -> int:
    return 0 if rules.tied_block is TiedBlock.NOBODY_SCORES else 1


def view_state(view: SeatView) -> tuple[np.ndarray, np.ndarray]:
    """The kernel position a seat sees (other hands zero), and the hand's moves as codes.

    Built only from the seat's own tiles and the public moves: the seat's dealt hand is its
    current tiles plus the tiles it has played.
    """
    public = view.public
    rules = public.rules
    seat = view.seat
    mine = mask_of(view.tiles)
    codes = np.array([action_code(a) for _, a in public.moves], np.int64)
    for s, action in public.moves:
        if s == seat and action.tile is not None:
            mine |= action.tile.bit
    hands = np.zeros(4, np.int64)
    hands[seat] = mine
    leader = public.leader if public.leader is not None else seat
    S = K.new_state(
        hands,
        leader,
        rules.tiles_each,
        rules.capicua_multiplier,
        tied_mode(rules),
        rules.tile_set.mask,
    )
    K.replay_moves(S, codes, len(codes))
    S[K.S_KIND] = K.KIND_ON  # other hands are unknown here, so the kernel's settling is moot
    return S, codes


def sample_view(rules: Rules | None = None, seed: int = 0, moves: int = 0) -> SeatView:
    """The view of the seat to play in a random hand after ``moves`` random moves (warm-ups)."""
    import random

    rules = rules or Rules()
    rng = random.Random(seed)
    hand = HandState.start(rules, random_deal(rules, rng), 0)
    for _ in range(moves):
        if hand.is_over:
            break
        hand = hand.apply(rng.choice(hand.legal_actions()))
    game = GameState.for_hand(hand)
    return seat_view(game, hand.turn)
