"""One hand: legal moves, every kind of illegal move, the ends, and how a hand ends."""

from __future__ import annotations

import pytest

from tranque.rules.errors import (
    HandOverError,
    NotYourTurnError,
    PassNotAllowedError,
    TileDoesNotFitError,
    TileNotInHandError,
    WrongEndError,
)
from tranque.rules.hand import PASS, Action, Deal, EndKind, HandState
from tranque.rules.variants import BARRIO, HAVANA, MIAMI, Rules, TiedBlock

TINY = Rules(tiles_each=3)


def start(hands: list[str], leader: int = 0, rules: Rules = TINY) -> HandState:
    return HandState.start(rules, Deal.from_text(hands, rules=rules), leader)


def play(hand: HandState, *moves: str) -> HandState:
    for m in moves:
        hand = hand.apply(Action.parse(m))
    return hand


def test_lead_may_be_any_tile_and_a_double_opens_two_ends_only() -> None:
    hand = start(["55 94 00", "51 11 22", "53 33 44", "98 88 66"])
    assert sorted(str(a) for a in hand.legal_actions()) == ["00", "55", "94"]
    hand = play(hand, "55")
    assert hand.ends == (5, 5)
    # A tile fitting both ends, which show the same number, is one move, not two.
    assert [str(a) for a in hand.legal_actions()] == ["51@5"]
    hand = play(hand, "51@5")
    assert sorted(hand.ends or ()) == [1, 5]
    # No extra move after a double: turn goes to the next seat.
    assert hand.turn == 2


def test_every_illegal_move_raises_its_own_error_and_changes_nothing() -> None:
    hand = play(start(["55 94 00", "51 11 22", "53 33 44", "98 88 66"]), "55")
    before = hand
    cases = [
        (Action.parse("51"), WrongEndError),  # it fits: no end named after the lead
        (Action.parse("22"), TileDoesNotFitError),  # fits no end: naming one would not help
        (Action.parse("22@2"), TileDoesNotFitError),
        (Action.parse("94@9"), TileNotInHandError),
        (PASS, PassNotAllowedError),
    ]
    for action, error in cases:
        with pytest.raises(error):
            hand.apply(action)
        assert hand == before
    with pytest.raises(NotYourTurnError, match="seat 2 cannot play"):
        hand.apply(Action.parse("53@5"), seat=2)
    with pytest.raises(WrongEndError, match="no open end shows 1"):
        hand.apply(Action.parse("51@1"))


def test_wrong_end_when_both_differ() -> None:
    hand = play(start(["94 00 01", "41 11 22", "53 33 44", "98 88 66"]), "94")
    # 41 fits the 4 only; naming the 1 is not an open end.
    with pytest.raises(WrongEndError):
        hand.apply(Action.parse("41@1"))
    assert [str(a) for a in hand.legal_actions()] == ["41@4"]


def test_forced_pass_is_the_only_action_and_is_recorded() -> None:
    hand = play(start(["99 94 00", "51 11 22", "93 33 44", "98 88 66"]), "99")
    assert hand.legal_actions() == [PASS]
    hand = play(hand, "pass")
    assert hand.turn == 2 and hand.moves[-1] is PASS


def test_pegarse_ends_the_hand_at_once_and_scores_both_rivals() -> None:
    hand = start(["99 86", "97 11", "96 33", "76 55"], rules=Rules(tiles_each=2))
    hand = play(hand, "99", "97@9", "96@9", "76@7")
    assert hand.outcome is None and hand.ends == (6, 6)
    hand = play(hand, "86@6")
    out = hand.outcome
    assert out is not None and out.kind is EndKind.PEGARSE
    assert out.winner == 0 and out.winning_pair == 0 and out.closer == 0
    assert out.pips == (0, 2, 6, 10)
    assert out.points == 2 + 10  # the partner's 33 does not count
    assert not out.capicua


def test_tranque_is_detected_right_after_the_play_that_blocks() -> None:
    # After 00 on the lead, nobody holds a 0: blocked at once, even after the lead.
    hand = start(["00 99 98", "11 12 13", "22 23 24", "33 34 35"])
    hand = play(hand, "00")
    out = hand.outcome
    assert out is not None and out.kind is EndKind.TRANQUE
    assert out.closer == 0
    assert hand.legal_actions() == []
    with pytest.raises(HandOverError):
        hand.apply(PASS)


def test_last_tile_that_also_blocks_is_pegarse() -> None:
    rules = Rules(tiles_each=1)
    hand = HandState.start(rules, Deal.from_text(["00", "11", "22", "33"], rules=rules), 0)
    hand = play(hand, "00")
    assert hand.outcome is not None and hand.outcome.kind is EndKind.PEGARSE


def test_tied_block_rules() -> None:
    # After the 00 lead nobody holds a 0; seats hold 5, 5, 15, 18: lowest in both pairs.
    hands = ["00 41", "11 21", "33 63", "44 55"]
    out = play(start(hands, rules=Rules(tiles_each=2)), "00").outcome
    assert out is not None and out.kind is EndKind.TIED_TRANQUE
    assert out.pips == (5, 5, 15, 18)
    assert out.winning_pair is None and out.winner is None and out.points == 0
    leading = Rules(tiles_each=2, tied_block=TiedBlock.LEADING_PAIR_WINS)
    out = play(start(hands, rules=leading), "00").outcome
    assert out is not None and out.kind is EndKind.TIED_TRANQUE
    assert out.winning_pair == 0 and out.winner == 0 and out.points == 5 + 18


@pytest.mark.parametrize("multiplier", [1, 2])
def test_capicua_going_out_on_both_ends(multiplier: int) -> None:
    rules = Rules(tiles_each=2, capicua_multiplier=multiplier)
    hand = play(start(["53 50", "31 88", "10 77", "66 22"], rules=rules), "53", "31@3", "10@1")
    assert sorted(hand.ends or ()) == [0, 5]
    hand = play(hand, "pass", "50@5")
    out = hand.outcome
    assert out is not None and out.kind is EndKind.PEGARSE and out.capicua
    assert out.points == (16 + 16) * multiplier


def test_a_double_going_out_is_not_capicua() -> None:
    rules = Rules(tiles_each=2, capicua_multiplier=2)
    hand = play(start(["55 33", "53 88", "10 77", "66 22"], rules=rules), "55", "53@5")
    hand = play(hand, "pass", "pass", "33@3")  # ends were 3|5: the double fits one end only
    out = hand.outcome
    assert out is not None and out.kind is EndKind.PEGARSE and not out.capicua
    assert out.points == 16 + 16


def test_barrio_unanswered_double_lead_and_miami_first_pass_bonuses() -> None:
    hands = ["99 10", "21 32", "43 54", "65 76"]
    barrio = play(start(hands, rules=Rules(tiles_each=2, unanswered_double_lead_points=20)), "99")
    # 99 blocks the table at once: still an unanswered double lead.
    assert [(b.kind.value, b.pair, b.points) for b in barrio.bonuses] == [
        ("unanswered_double_lead", 0, 20)
    ]
    hands = ["99 90", "21 32", "93 54", "65 76"]
    miami = Rules(tiles_each=2, first_pass_points=2)
    hand = play(start(hands, rules=miami), "99", "pass", "93@9", "pass")
    assert [(b.kind.value, b.pair, b.points) for b in hand.bonuses] == [("first_pass", 0, 2)]
    assert not hand.first_pass_pending
    assert HAVANA.first_pass_points == 0 and MIAMI.first_pass_points == 2
    assert BARRIO.unanswered_double_lead_points == 20
