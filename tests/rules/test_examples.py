"""The rule book's worked examples (docs/rules.md, section 10), as golden records replayed.

The records under tests/golden/ were found by tests/golden/build.py: complete, legal Havana hands
that end exactly in each example's position. The numbers asserted here are the rule book's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tranque.rules.game import GameState, Phase, Setup
from tranque.rules.hand import Action, EndKind, HandState
from tranque.rules.record import hand_record, replay_hand
from tranque.rules.tiles import format_tiles
from tranque.rules.variants import HAVANA

GOLDEN = Path(__file__).parent.parent / "golden"


def load(name: str) -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text())


def replayed(name: str) -> HandState:
    return replay_hand(load(name))


def test_example_1_pegarse_counts_both_rivals_not_the_partner() -> None:
    hand = replayed("ejemplo-1-pegarse")
    out = hand.outcome
    assert out is not None and out.kind is EndKind.PEGARSE
    assert out.winner == 3 and out.winning_pair == 1
    assert format_tiles(hand.hands[0]) == "98 52 00" and out.pips[0] == 24
    assert format_tiles(hand.hands[2]) == "76 41" and out.pips[2] == 18
    assert format_tiles(hand.hands[1]) == "99 33"  # the partner's 24 do not count
    assert out.points == 42


def test_example_2_tranque_single_lowest_wins_for_his_pair() -> None:
    hand = replayed("ejemplo-2-tranque")
    out = hand.outcome
    assert out is not None and out.kind is EndKind.TRANQUE
    assert sorted(hand.ends or ()) == [4, 7]
    assert out.pips == (14, 17, 17, 17)
    assert out.winner == 0 and out.winning_pair == 0
    assert out.points == 34
    assert out.closer == hand.seat_of_move(len(hand.moves) - 1)


def test_example_3_partners_sharing_the_lowest_win() -> None:
    out = replayed("ejemplo-3-companeros").outcome
    assert out is not None and out.kind is EndKind.TRANQUE
    assert (out.pips[0], out.pips[2]) == (8, 8) and sorted((out.pips[1], out.pips[3])) == [9, 13]
    assert out.winning_pair == 0 and out.points == 22
    # Of two partners sharing the lowest, the one first after the closer is the hand's winner.
    assert out.winner == next(
        s for s in ((out.closer + k) & 3 for k in (1, 2, 3, 4)) if s in (0, 2)
    )


def test_example_4_tied_tranque_scores_nothing_and_the_other_pair_leads() -> None:
    record = load("ejemplo-4-empate")
    hand = replay_hand(record)
    out = hand.outcome
    assert out is not None and out.kind is EndKind.TIED_TRANQUE
    assert out.pips == (8, 8, 18, 14)
    assert out.winning_pair is None and out.points == 0
    assert hand.leader & 1 == 1  # pair B led this hand
    # In a game: the tied hand adds nothing and pair A (which did not lead) leads the next one,
    # its first player after the tied hand's leader having priority.
    game = _game_from_hand(hand, scores=(30, 20))
    assert game.scores == (30, 20)
    assert game.setup.leading_pair == 0
    assert game.setup.priority == (hand.leader + 1) & 3


def test_example_5_viajera_wins_the_game_at_once() -> None:
    hand = replayed("ejemplo-5-viajera")
    out = hand.outcome
    assert out is not None and out.winning_pair == 0
    assert format_tiles(hand.hands[1]) == "99 98 88 97 87" and out.pips[1] == 82
    assert format_tiles(hand.hands[3]) == "77 96" and out.pips[3] == 29
    assert out.points == 111 and out.viajera
    game = _game_from_hand(hand, scores=(40, 30))
    assert game.phase is Phase.OVER and game.winner == 0
    assert game.scores == (151, 30)  # points above the target are kept
    assert not game.pollona


def test_example_6_pollona() -> None:
    hand = replayed("ejemplo-6-pollona")
    out = hand.outcome
    assert out is not None and out.winning_pair == 0 and out.points == 15
    game = _game_from_hand(hand, scores=(92, 0))
    assert game.phase is Phase.OVER and game.winner == 0
    assert game.scores == (107, 0)
    assert game.pollona


def test_example_7_the_legal_plays() -> None:
    hand = replayed("ejemplo-7-jugadas")
    assert sorted(hand.ends or ()) == [4, 9]
    assert format_tiles(hand.hands[hand.turn]) == "99 94 44 62 41"
    legal = sorted(str(a) for a in hand.legal_actions())
    assert legal == ["41@4", "44@4", "94@4", "94@9", "99@9"]
    assert Action.parse("pass") not in hand.legal_actions()
    # 94 on the 4 leaves a 9 open; on the 9 it leaves a 4; 41 on the 4 leaves the 1.
    ends_after = {str(a): sorted(hand.apply(a).ends or ()) for a in hand.legal_actions()}
    assert ends_after["94@4"] == [9, 9] and ends_after["94@9"] == [4, 4]
    assert ends_after["41@4"] == [1, 9]
    assert ends_after["99@9"] == [4, 9] and ends_after["44@4"] == [4, 9]


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("ejemplo-*.json")), ids=lambda p: p.stem)
def test_golden_records_round_trip(path: Path) -> None:
    record = json.loads(path.read_text())
    hand = replay_hand(record)
    again = hand_record(hand)
    assert again == {k: v for k, v in record.items() if k != "example"}


def _game_from_hand(hand: HandState, scores: tuple[int, int]) -> GameState:
    """A Havana game at ``scores`` whose current hand is replayed move by move through the game."""
    pair = hand.leader & 1
    game = GameState(
        HAVANA,
        scores=scores,
        setup=Setup(5, leading_pair=pair, priority=hand.leader),
    )
    game = game.deal(hand.deal)
    while game.phase is Phase.REDEAL:
        game = game.answer_redeal(game.redeal_eligible()[0], False)
    if game.phase is Phase.CHOOSE:
        game = game.choose_leader(None, None)
    assert game.hand is not None and game.hand.leader == hand.leader
    for action in hand.moves:
        game = game.play(action)
    return game
