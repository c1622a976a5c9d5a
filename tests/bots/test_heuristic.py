"""Heuristic bots: legal, deterministic, and they play what the teachings say."""

from __future__ import annotations

import numpy as np

from tranque.bots import kernels as K
from tranque.bots.base import make_bot
from tranque.bots.convert import sample_view
from tranque.bots.heuristic import GREEDY_WEIGHTS, HEURISTIC_WEIGHTS, hand_strength
from tranque.rules.game import GameState, LeadChoice, Phase, Setup
from tranque.rules.hand import Action, Deal, HandState
from tranque.rules.tiles import parse_tiles
from tranque.rules.variants import HAVANA
from tranque.rules.views import SeatView, seat_view


def _view(hands: list[str], moves: list[str], leader: int = 0) -> SeatView:
    deal = Deal.from_text(hands, rules=HAVANA)
    hand = HandState.start(HAVANA, deal, leader)
    for m in moves:
        hand = hand.apply(Action.parse(m))
    game = GameState(HAVANA, phase=Phase.PLAY, setup=Setup(1, leader=leader), hand=hand)
    return seat_view(game, hand.turn)


HANDS = [
    "99 98 97 96 95 94 93 92 91 90",
    "88 87 86 85 84 83 82 81 80 77",
    "76 75 74 73 72 71 70 66 65 64",
    "63 62 61 60 55 54 53 52 51 50",
]


def test_greedy_botar_la_gorda() -> None:
    view = _view(HANDS, [])
    assert make_bot("greedy").choose_action(view) == Action.parse("99")


def test_bots_always_legal_and_deterministic() -> None:
    for name in ("greedy", "heuristic"):
        for seed in range(30):
            view = sample_view(seed=seed, moves=seed % 17)
            if not view.legal:
                continue
            a = make_bot(name, 1).choose_action(view)
            assert a in view.legal
            assert make_bot(name, 2).choose_action(view) == a


def test_heuristic_closes_the_number_an_opponent_passed_on() -> None:
    # Seat 1 passed on 9|x ends; seat 0 may leave 9 open (9-5 on the 5) or open a 3.
    scores_w = HEURISTIC_WEIGHTS
    S = np.zeros(K.S_SIZE, np.int64)
    hands = np.zeros(4, np.int64)
    mine = parse_tiles("95 53 21 10")
    for t in mine:
        hands[0] |= t.bit
    S[:] = K.new_state(hands, 0, 4, 1, 0, HAVANA.tile_set.mask)
    S[K.S_LEFT], S[K.S_RIGHT] = 9, 5
    S[K.S_VOID + 1] = (1 << 9) | (1 << 5)
    moves = np.array([t.index * 16 + e for t, e in [(mine[0], 5), (mine[1], 5)]], np.int64)
    out = np.zeros(2)
    K.heuristic_scores(S, moves, 2, scores_w, out)
    # 95 on the 5 leaves 9|9 (seat 1 must pass); 53 on the 5 leaves 9|3.
    assert out[0] > out[1]


def test_salgo_and_redeal_from_own_hand() -> None:
    long_suit = tuple(parse_tiles("99 98 97 96 95 94 11 22 33 00"))
    scattered = tuple(parse_tiles("99 88 77 66 55 10 32 41 62 73"))
    assert hand_strength(long_suit) > hand_strength(scattered)
    bot = make_bot("heuristic")
    game = GameState(HAVANA)
    view = seat_view(game, 0)
    assert bot.choose_lead(view) in (LeadChoice.SALGO, LeadChoice.SAL_TU)
    assert isinstance(bot.ask_redeal(view), bool)


def test_heuristic_beats_greedy_in_kernel_duel() -> None:
    out = K.duel_heuristics(HEURISTIC_WEIGHTS, GREEDY_WEIGHTS, 4000, 3, 10, 9)
    assert out[3] > 0  # more points over 8,000 duplicate hands
    again = K.duel_heuristics(HEURISTIC_WEIGHTS, GREEDY_WEIGHTS, 4000, 3, 10, 9)
    assert (out == again).all()
