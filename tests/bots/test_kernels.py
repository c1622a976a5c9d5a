"""The numba fast path agrees with the checked path (HandState.apply) on many random hands."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tranque.bots import kernels as K
from tranque.bots.convert import action_code, code_action
from tranque.rules.dealing import random_deal
from tranque.rules.hand import HandState
from tranque.rules.variants import BARRIO, HAVANA, ORIENTE, Rules

KIND = {"pegarse": K.KIND_PEGARSE, "tranque": K.KIND_TRANQUE, "tied_tranque": K.KIND_TIED}


def _state(rules: Rules, hand: HandState) -> np.ndarray:
    return K.new_state(
        np.array(hand.hands, np.int64),
        hand.leader,
        rules.tiles_each,
        rules.capicua_multiplier,
        0 if rules.tied_block.value == "nobody_scores" else 1,
        rules.tile_set.mask,
    )


@pytest.mark.parametrize("rules", [HAVANA, ORIENTE, BARRIO], ids=["havana", "oriente", "barrio"])
def test_kernel_agrees_with_checked_path(rules: Rules) -> None:
    rng = random.Random(4)
    buf = np.zeros(64, np.int64)
    kinds = set()
    for n in range(400):
        hand = HandState.start(rules, random_deal(rules, rng), leader=n % 4)
        S = _state(rules, hand)
        while not hand.is_over:
            legal = hand.legal_actions()
            k = K.legal_moves(S, buf)
            assert [code_action(int(c)) for c in buf[:k]] == legal
            assert int(S[K.S_TURN]) == hand.turn
            action = rng.choice(legal)
            hand = hand.apply(action)
            K.apply_move(S, action_code(action))
            for s in range(4):
                assert int(S[K.S_HANDS + s]) == hand.hands[s]
                assert int(S[K.S_PIPS + s]) == hand.pips(s)
                assert int(S[K.S_COUNT + s]) == hand.tile_count(s)
            assert (int(S[K.S_LEFT]), int(S[K.S_RIGHT])) == (hand.left, hand.right)
            assert (int(S[K.S_KIND]) != K.KIND_ON) == hand.is_over
        out = hand.outcome
        assert out is not None
        kinds.add(out.kind.value)
        assert int(S[K.S_KIND]) == KIND[out.kind.value]
        signed = (
            0
            if out.winning_pair is None
            else (out.points if out.winning_pair == 0 else -out.points)
        )
        assert int(S[K.S_VALUE]) == signed
        assert int(S[K.S_WINNER]) == (-1 if out.winner is None else out.winner)
        assert int(S[K.S_CLOSER]) == out.closer
        assert bool(S[K.S_CAPICUA]) == out.capicua
    assert kinds >= {"pegarse", "tranque"}


def minimax(hand: HandState) -> int:
    """The perfect-information value for pair A, by plain minimax on the checked path."""
    o = hand.outcome
    if o is not None:
        return 0 if o.winning_pair is None else (o.points if o.winning_pair == 0 else -o.points)
    values = [minimax(hand.apply(a)) for a in hand.legal_actions()]
    return max(values) if hand.turn % 2 == 0 else min(values)


def test_exact_solver_matches_brute_force() -> None:
    """Alpha-beta gives the same minimax value as a plain minimax on the checked path."""
    rules = Rules(tiles_each=3)
    rng = random.Random(7)
    for n in range(40):
        hand = HandState.start(rules, random_deal(rules, rng), leader=n % 4)
        assert K.solve_exact(_state(rules, hand)) == minimax(hand)


def test_random_hands_plays_each_hand_of_its_own_deal_to_the_end() -> None:
    """The benchmark's loop (``random_playouts_per_second`` times it) deals and finishes every
    hand it counts: the same steps taken one by one give each hand an outcome and the same sum."""
    rng = np.zeros(1, np.uint64)
    K.rng_seed(rng, 5, 0)
    hands = np.zeros(4, np.int64)
    moves = np.zeros(64, np.int64)
    total, deals, kinds = 0, set(), set()
    for k in range(300):
        set_mask = K.random_deal(rng, 10, 9, hands)
        assert set_mask == HAVANA.tile_set.mask
        deals.add(tuple(int(h) for h in hands))
        S = K.new_state(hands, k & 3, 10, 1, 0, set_mask)
        total += int(K.playout_random(S, rng, moves))
        assert int(S[K.S_KIND]) != K.KIND_ON
        kinds.add(int(S[K.S_KIND]))
    assert len(deals) == 300 and kinds >= {K.KIND_PEGARSE, K.KIND_TRANQUE}
    assert K.random_hands(300, 5) == total
    assert K.random_hands(300, 6) != total  # another seed, other deals
    assert K.random_playouts_per_second(0.05) > 0
