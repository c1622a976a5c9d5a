"""Heuristic bots: legal, deterministic, and they play what the teachings say."""

from __future__ import annotations

from tranque.bots import kernels as K
from tranque.bots.base import make_bot
from tranque.bots.convert import sample_view
from tranque.bots.heuristic import (
    GREEDY_WEIGHTS,
    HEURISTIC_WEIGHTS,
    HeuristicBot,
    hand_strength,
)
from tranque.rules.game import GameState, LeadChoice, Phase, Setup
from tranque.rules.hand import Action, Deal, HandState
from tranque.rules.tiles import ALL_TILES, parse_tiles
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
    # Seat 0 leads 95 and seat 1 passes on 9|5; seats 2 and 3 make the ends 9|2. Seat 0 may
    # play 52 on the 2 (9|5 again: seat 1 must pass) or the heavier 82 (9|8). Botar la gorda
    # alone plays 82: only the teaching "close the number they passed on" makes it 52.
    hands = [
        "95 52 82 77 76 66 64 44 41 11",
        "88 87 86 84 83 81 80 33 31 30",
        "53 99 98 97 96 94 93 92 91 90",
        "32 22 21 20 75 74 73 72 71 70",
    ]
    view = _view(hands, ["95", "pass", "53@5", "32@3"])
    closes, heavier = Action.parse("52@2"), Action.parse("82@2")
    assert view.seat == 0 and view.legal == (closes, heavier)
    assert make_bot("heuristic").choose_action(view) == closes
    assert make_bot("greedy").choose_action(view) == heavier
    # The same bot with that one teaching taken out plays the heavier tile.
    untaught = HeuristicBot()
    untaught.weights = HEURISTIC_WEIGHTS.copy()
    untaught.weights[K.W_NEXT_VOID] = 0.0
    assert untaught.choose_action(view) == heavier


def _choosing_view(tiles: str, phase: Phase) -> SeatView:
    """Seat 0's view with ``tiles`` in hand while its pair chooses who leads, or in the redeal
    window; the other hands share the rest of the set."""
    rest = [t for t in ALL_TILES if t not in set(parse_tiles(tiles))]
    hands = [tiles, *(" ".join(str(t) for t in rest[k * 10 : k * 10 + 10]) for k in range(3))]
    deal = Deal.from_text(hands, rules=HAVANA)
    setup = Setup(2, leading_pair=0, priority=0)
    return seat_view(GameState(HAVANA, phase=phase, setup=setup, pending_deal=deal), 0)


LONG_SUIT = "99 98 97 96 95 94 11 22 30 00"  # six nines to dictate with
SCATTERED = "99 88 77 66 98 76 54 43 32 21"  # four doubles, no number more than twice
FIVE_DOUBLES_SCATTERED = "99 88 77 66 55 10 32 41 62 73"
FIVE_DOUBLES_AND_SIX_NINES = "99 98 97 96 95 94 88 77 66 55"


def test_salgo_with_a_hand_that_dictates_sal_tu_without() -> None:
    assert hand_strength(tuple(parse_tiles(LONG_SUIT))) > hand_strength(
        tuple(parse_tiles(SCATTERED))
    )
    bot = make_bot("heuristic")
    assert bot.choose_lead(_choosing_view(LONG_SUIT, Phase.CHOOSE)) is LeadChoice.SALGO
    assert bot.choose_lead(_choosing_view(SCATTERED, Phase.CHOOSE)) is LeadChoice.SAL_TU


def test_redeal_asked_for_five_scattered_doubles_not_with_a_long_number() -> None:
    bot = make_bot("heuristic")
    poor = _choosing_view(FIVE_DOUBLES_SCATTERED, Phase.REDEAL)
    rich = _choosing_view(FIVE_DOUBLES_AND_SIX_NINES, Phase.REDEAL)
    assert poor.redeal_eligible and rich.redeal_eligible
    assert bot.ask_redeal(poor) is True
    assert bot.ask_redeal(rich) is False


def test_heuristic_beats_greedy_in_kernel_duel() -> None:
    out = K.duel_heuristics(HEURISTIC_WEIGHTS, GREEDY_WEIGHTS, 4000, 3, 10, 9)
    assert out[3] > 0  # more points over 8,000 duplicate hands
    again = K.duel_heuristics(HEURISTIC_WEIGHTS, GREEDY_WEIGHTS, 4000, 3, 10, 9)
    assert (out == again).all()
