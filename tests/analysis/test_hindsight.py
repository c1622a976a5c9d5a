"""Hindsight's exact values against a brute-force enumeration on the checked path.

The enumeration below is written for these tests and shares nothing with the analysis: it plays
every legal action through ``HandState.apply`` to the end of the hand and backs up the minimax of
pair A's points (the hand's outcome and every bonus scored on the way, from ``HandState.bonuses``).
Hypothesis draws the endgames themselves: the rules, the deal as a permutation of the set, the
leader and the moves played before, so a failure shrinks to a small hand.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tranque.analysis import analyze_record
from tranque.analysis.engine import EXACT_TILES, HandToRate, rate_hand
from tranque.rules.dealing import random_deal
from tranque.rules.hand import Deal, HandState
from tranque.rules.record import hand_record
from tranque.rules.tiles import mask_of
from tranque.rules.variants import HAVANA, Rules, TiedBlock

SMALL = (
    Rules(tiles_each=2),
    Rules(tiles_each=3),
    Rules(tiles_each=3, capicua_multiplier=2),
    Rules(max_pip=6, tiles_each=3, tied_block=TiedBlock.LEADING_PAIR_WINS),
    Rules(max_pip=6, tiles_each=2, capicua_multiplier=2, unanswered_double_lead_points=20),
    Rules(tiles_each=2, unanswered_double_lead_points=20),
)


def rest_for_pair_a(state: HandState) -> int:
    """Pair A's points minus pair B's from ``state`` to the end, all hands open, every seat
    playing best for its pair: plain minimax over every legal action."""
    outcome = state.outcome
    if outcome is not None:
        if outcome.winning_pair is None:
            return 0
        return outcome.points if outcome.winning_pair == 0 else -outcome.points
    values = [_gained(state, child) + rest_for_pair_a(child) for child in _children(state)]
    return max(values) if state.turn % 2 == 0 else min(values)


def _children(state: HandState) -> list[HandState]:
    return [state.apply(action) for action in state.legal_actions()]


def _gained(before: HandState, after: HandState) -> int:
    """The bonuses scored by the one move from ``before`` to ``after``, signed for pair A."""
    new = after.bonuses[len(before.bonuses) :]
    return sum(b.points if b.pair == 0 else -b.points for b in new)


def option_values(state: HandState) -> dict[str, int]:
    """Each legal action's value for the mover's pair, by brute force."""
    sign = 1 if state.turn % 2 == 0 else -1
    return {
        str(action): sign * (_gained(state, child) + rest_for_pair_a(child))
        for action, child in zip(state.legal_actions(), _children(state), strict=True)
    }


@st.composite
def small_hands(
    draw: st.DrawFn, rules_choices: Sequence[Rules] = SMALL, first_pass_pending: bool = False
) -> HandState:
    """A whole small hand: rules, a permutation of the set, the leader, then moves by index."""
    rules = draw(st.sampled_from(rules_choices))
    tiles = draw(st.permutations(rules.tile_set.tiles))
    k = rules.tiles_each
    deal = Deal(
        (mask_of(tiles[:k]), mask_of(tiles[k : 2 * k]), mask_of(tiles[2 * k : 3 * k]),
         mask_of(tiles[3 * k : 4 * k])),
        mask_of(tiles[4 * k :]),
    )  # fmt: skip
    leader = draw(st.integers(0, 3))
    hand = HandState.start(rules, deal, leader, first_pass_pending=first_pass_pending)
    picks = draw(st.lists(st.integers(0, 30), max_size=40))
    for pick in picks:
        if hand.is_over:
            break
        legal = hand.legal_actions()
        hand = hand.apply(legal[pick % len(legal)])
    while not hand.is_over:
        hand = hand.apply(hand.legal_actions()[0])
    return hand


def _positions(hand: HandState) -> list[HandState]:
    """The state before each move of ``hand``."""
    state = HandState.start(
        hand.rules, hand.deal, hand.leader, first_pass_pending=_pending_at_start(hand)
    )
    out = []
    for action in hand.moves:
        out.append(state)
        state = state.apply(action)
    return out


def _pending_at_start(hand: HandState) -> bool:
    return hand.first_pass_pending or any(b.kind.value == "first_pass" for b in hand.bonuses)


def _tiles_in_hands(state: HandState) -> int:
    return sum(h.bit_count() for h in state.hands)


@settings(max_examples=150)
@given(small_hands())
def test_exact_values_are_the_brute_force_minimax(hand: HandState) -> None:
    """Every option of every real choice, through ``analyze_record`` and its JSON."""
    result = analyze_record(hand_record(hand), mode="hindsight")
    assert result["format"] == "tranque-analysis/1" and result["mode"] == "hindsight"
    positions = _positions(hand)
    plays = result["hands"][0]["plays"]
    expected = [k for k, state in enumerate(positions) if len(state.legal_actions()) >= 2]
    assert [p["index"] for p in plays] == expected
    for play in plays:
        state = positions[play["index"]]
        assert _tiles_in_hands(state) <= 12 and play["exact"] is True
        got = {o["move"]: o["value"] for o in play["options"]}
        assert got == option_values(state)


def _havana_endgame(seed: int) -> HandState:
    """A Havana hand (ten tiles each) played at random to its end."""
    rng = random.Random(seed)
    hand = HandState.start(HAVANA, random_deal(HAVANA, rng), seed % 4)
    while not hand.is_over:
        hand = hand.apply(rng.choice(hand.legal_actions()))
    return hand


@settings(max_examples=15)
@given(st.integers(0, 10**6))
def test_havana_endgames_at_eight_tiles_or_fewer_are_exact(seed: int) -> None:
    """In a full Havana hand, every decision with at most 8 tiles in the four hands is exact and
    equals the enumeration; decisions above the exact horizon are marked as estimates."""
    hand = _havana_endgame(seed)
    positions = _positions(hand)
    plays = analyze_record(hand_record(hand), mode="hindsight")["hands"][0]["plays"]
    for play in plays:
        state = positions[play["index"]]
        tiles = _tiles_in_hands(state)
        assert play["exact"] is (tiles <= EXACT_TILES)
        if tiles <= 8:
            got = {o["move"]: o["value"] for o in play["options"]}
            assert got == option_values(state)
    assert plays and not plays[0]["exact"]  # the lead holds 40 tiles: an estimate


MIAMI_SMALL = (Rules(tiles_each=2, first_pass_points=2), Rules(tiles_each=3, first_pass_points=5))


@settings(max_examples=80)
@given(small_hands(MIAMI_SMALL, first_pass_pending=True))
def test_a_first_pass_still_to_come_is_counted(hand: HandState) -> None:
    """Miami's first pass of the game: pending at the start of the hand (a game record's hand
    knows it), its points go to the passer's opponents, in the exact values too."""
    positions = _positions(hand)
    rated = rate_hand(
        HandToRate(0, 1, hand.rules, hand.deal, hand.leader, _pending_at_start(hand), hand.moves),
        (0, 1, 2, 3),
        "hindsight",
    )
    for rating in rated:
        state = positions[rating.index]
        brute = option_values(state)
        assert rating.exact
        assert dict(zip(map(str, rating.options), rating.values, strict=True)) == brute


def test_the_first_pass_bonus_shows_in_some_values() -> None:
    """The test above is not vacuous: on these hands the pending bonus changes some values."""
    rules = Rules(tiles_each=3, first_pass_points=5)
    differs = 0
    for seed in range(40):
        rng = random.Random(seed)
        hand = HandState.start(rules, random_deal(rules, rng), seed % 4, first_pass_pending=True)
        first = option_values(hand)
        plain = option_values(hand._replace(first_pass_pending=False))
        differs += first != plain
    assert differs > 5
