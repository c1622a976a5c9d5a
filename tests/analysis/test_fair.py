"""Fair analysis: the shape of its JSON, what it rates, and that it sees only what the seat saw."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.random_play import random_game

from tranque.analysis import analyze_record
from tranque.analysis.engine import BLUNDER, AnalysisError, FairBudget, analyze, tag_of
from tranque.bots.base import make_bot
from tranque.rules.dealing import random_deal
from tranque.rules.errors import RulesError
from tranque.rules.game import GameState, MatchState
from tranque.rules.hand import Action, Deal, EndKind, HandState
from tranque.rules.record import game_record, hand_record, match_record
from tranque.rules.tiles import tiles_of
from tranque.rules.variants import HAVANA, Rules
from tranque.rules.views import seat_view

# A small budget keeps these tests fast; the default's figures are in docs/analysis.md.
QUICK = FairBudget(chains=6, burn=150, thin=5, per_chain=6)


def heuristic_hand(rules: Rules, seed: int, moves: int | None = None) -> HandState:
    """A hand the heuristic plays in every seat (to the end, or ``moves`` moves)."""
    rng = random.Random(seed)
    hand = HandState.start(rules, random_deal(rules, rng), seed % 4)
    bot = make_bot("heuristic")
    while not hand.is_over and (moves is None or len(hand.moves) < moves):
        hand = hand.apply(bot.choose_action(seat_view(GameState.for_hand(hand), hand.turn)))
    return hand


def positions(hand: HandState) -> list[HandState]:
    state = HandState.start(hand.rules, hand.deal, hand.leader, first_pass_pending=False)
    out = []
    for action in hand.moves:
        out.append(state)
        state = state.apply(action)
    return out


def check_plays(hand: HandState, plays: list[dict[str, Any]], seats: set[int]) -> None:
    """Every real choice of ``seats`` is rated and nothing else; each rating is well formed."""
    before = positions(hand)
    choices = [k for k, s in enumerate(before) if s.turn in seats and len(s.legal_actions()) >= 2]
    assert [p["index"] for p in plays] == choices
    for play in plays:
        state = before[play["index"]]
        assert play["seat"] == state.turn
        assert play["played"] == str(hand.moves[play["index"]])
        moves = [o["move"] for o in play["options"]]
        assert sorted(moves) == sorted(str(a) for a in state.legal_actions())
        value = {o["move"]: o["value"] for o in play["options"]}
        assert value[play["best"]] == max(value.values())
        assert play["loss"] == round(value[play["best"]] - value[play["played"]], 2)
        assert play["loss"] >= 0
        assert play["tag"] == tag_of(play["loss"], play["loss_se"])
        if play["loss"] == 0:
            assert play["tag"] is None and play["best"] == play["played"]
        assert all(o["se"] >= 0 for o in play["options"])
        assert [o["value"] for o in play["options"]] == sorted(value.values(), reverse=True)


@settings(max_examples=12)
@given(
    st.sampled_from([HAVANA, Rules(tiles_each=4), Rules(max_pip=6, tiles_each=7)]),
    st.integers(0, 10**6),
    st.sets(st.integers(0, 3), min_size=1),
)
def test_every_real_choice_is_rated_and_well_formed(
    rules: Rules, seed: int, seats: set[int]
) -> None:
    hand = heuristic_hand(rules, seed)
    result = analyze(hand_record(hand), seats=sorted(seats), budget=QUICK)
    assert set(result) == {"format", "mode", "hands"}
    assert result["format"] == "tranque-analysis/1" and result["mode"] == "fair"
    assert [h["number"] for h in result["hands"]] == [1]
    check_plays(hand, result["hands"][0]["plays"], seats)


def test_the_default_budget_gives_stable_values() -> None:
    """The entry point with its own budget: standard errors of about a point or less."""
    hand = heuristic_hand(HAVANA, 3)
    plays = analyze_record(hand_record(hand), seats=[2])["hands"][0]["plays"]
    check_plays(hand, plays, {2})
    errors = [o["se"] for p in plays for o in p["options"]]
    assert len(plays) >= 4 and max(errors) < 1.5


def test_the_values_depend_on_the_seed_and_only_on_it() -> None:
    record = hand_record(heuristic_hand(HAVANA, 11))
    one = analyze(record, seats=[1], budget=QUICK, seed=5)
    assert analyze(record, seats=[1], budget=QUICK, seed=5) == one
    other = analyze(record, seats=[1], budget=QUICK, seed=6)
    assert other != one  # the seed does choose the worlds


# --------------------------------------------------------------------------------------------
# No hindsight in fair mode


def swap_unseen(hand: HandState, seat: int, k: int, rng: random.Random) -> HandState | None:
    """Moves 0..k of ``hand`` on another deal: a tile of one other seat and a tile of another,
    both still in their hands at move ``k``, trade places. ``seat`` sees the same tiles and the
    same public moves; the new deal must explain every one of them (each pass forced, each play
    legal), else None."""
    at_k = positions(hand)[k]
    a, b = rng.sample([s for s in range(4) if s != seat], 2)
    if not at_k.hands[a] or not at_k.hands[b]:
        return None
    x = rng.choice(tiles_of(at_k.hands[a]))
    y = rng.choice(tiles_of(at_k.hands[b]))
    dealt = list(hand.deal.hands)
    dealt[a] ^= x.bit | y.bit
    dealt[b] ^= x.bit | y.bit
    deal = Deal((dealt[0], dealt[1], dealt[2], dealt[3]), hand.deal.sleepers)
    state = HandState.start(hand.rules, deal, hand.leader, first_pass_pending=False)
    try:
        for action in hand.moves[: k + 1]:
            state = state.apply(action)
    except RulesError:
        return None
    return state


def test_a_hidden_tile_swapped_between_unseen_hands_changes_nothing() -> None:
    """The fair values of a seat's decisions are the same, seed for seed, whichever of two
    deals it cannot tell apart was the true one; hindsight, which may see, differs."""
    rng = random.Random(4)
    cases = hindsight_differs = 0
    for n in range(60):
        hand = heuristic_hand(HAVANA, 100 + n)
        seat = n % 4
        choices = [
            k
            for k, s in enumerate(positions(hand))
            if s.turn == seat and len(s.legal_actions()) > 1
        ]
        late = [k for k in choices if k >= 12]
        if not late:
            continue
        k = rng.choice(late)
        swapped = swap_unseen(hand, seat, k, rng)
        if swapped is None:
            continue
        true = hand_record(_first_moves(hand, k + 1))
        other = hand_record(swapped)
        assert true["hands"] != other["hands"] and true["moves"] == other["moves"]
        fair = analyze(true, seats=[seat], budget=QUICK, seed=n)
        assert fair["hands"][0]["plays"]
        assert analyze(other, seats=[seat], budget=QUICK, seed=n) == fair
        seen = analyze(true, seats=[seat], mode="hindsight")
        hindsight_differs += analyze(other, seats=[seat], mode="hindsight") != seen
        cases += 1
        if cases == 10:
            break
    assert cases == 10
    assert hindsight_differs >= 5  # the swaps matter to anyone who can see them


def _first_moves(hand: HandState, n: int) -> HandState:
    state = HandState.start(hand.rules, hand.deal, hand.leader, first_pass_pending=False)
    for action in hand.moves[:n]:
        state = state.apply(action)
    return state


# --------------------------------------------------------------------------------------------
# A blunder that gives away a won tranque

# Double-six, seven tiles each, no sleepers. At move 21 seat 2 holds 21 and 00, the ends show
# 2|1, and every other tile with a 1 is on the table: 21 on the 2 leaves 1|1, which nobody can
# answer, a tranque that seat 2's 0 pips win for pair A (32 points). 21 on the 1 leaves 2|2
# instead, and pair B plays on and wins.
DOUBLE_SIX = Rules(max_pip=6, tiles_each=7)
WON_TRANQUE_MOVES = [
    "43", "30@3", "50@0", "44@4", "40@4", "65@5", "64@6", "41@4", "60@0", "61@6", "51@1",
    "53@5", "63@3", "62@6", "22@2", "32@2", "pass", "11@1", "31@3", "10@1", "20@0", "21@1",
]  # fmt: skip
WON_TRANQUE = {
    "format": "tranque-hand/1",
    "rules": DOUBLE_SIX.to_json(),
    "hands": [
        "66 44 53 33 32 41 10",
        "54 63 43 42 60 40 20",
        "65 62 61 21 11 30 00",
        "55 64 52 22 51 31 50",
    ],
    "sleepers": "",
    "leader": 1,
    "moves": WON_TRANQUE_MOVES,
}


@pytest.mark.parametrize("mode", ["fair", "hindsight"])
def test_giving_away_a_won_tranque_is_a_blunder(mode: str) -> None:
    before = HandState.start(
        DOUBLE_SIX,
        Deal.from_text(WON_TRANQUE["hands"], "", rules=DOUBLE_SIX),
        1,
        first_pass_pending=False,
    )
    for text in WON_TRANQUE["moves"][:-1]:
        before = before.apply(Action.parse(text))
    won = before.apply(Action.parse("21@2")).outcome
    assert won is not None and won.kind is EndKind.TRANQUE and won.winning_pair == 0
    result = analyze_record(WON_TRANQUE, seats=[2], mode=mode)
    last = result["hands"][0]["plays"][-1]
    assert (last["index"], last["played"], last["best"]) == (21, "21@1", "21@2")
    assert last["loss"] >= BLUNDER and last["tag"] == "blunder"
    # Playing the tranque is no blunder at all.
    kept = dict(WON_TRANQUE, moves=[*WON_TRANQUE["moves"][:-1], "21@2"])
    last = analyze_record(kept, seats=[2], mode=mode)["hands"][0]["plays"][-1]
    assert (last["loss"], last["tag"]) == (0.0, None)


# --------------------------------------------------------------------------------------------
# Games, matches, and what is asked of them


SHORT = Rules(tiles_each=4)


def test_a_game_record_rates_each_hand_and_keeps_one_when_asked() -> None:
    game = random_game(SHORT, random.Random(2))
    assert len(game.played) >= 2
    record = game_record(game)
    every = analyze(record, seats=[0], budget=QUICK)
    assert [h["number"] for h in every["hands"]] == [p.setup.number for p in game.played]
    for played, rated in zip(game.played, every["hands"], strict=True):
        check_plays(played.hand, rated["plays"], {0})
    second = analyze(record, seats=[0], budget=QUICK, hand=2)
    assert second["hands"] == [every["hands"][1]]
    with pytest.raises(AnalysisError, match="no hand 99"):
        analyze(record, budget=QUICK, hand=99)


def test_a_match_record_has_games_each_with_hands() -> None:
    rules = Rules(tiles_each=4, target=60, games_to_win_match=2)
    for seed in range(20):  # a match of two games or more (a pollona alone wins one)
        rng = random.Random(seed)
        match = MatchState(rules)
        while match.winner is None:
            match = match.add_game(random_game(rules, rng))
        if len(match.games) >= 2:
            break
    result = analyze(match_record(match), mode="hindsight", hand=1)
    assert set(result) == {"format", "mode", "games"}
    assert len(result["games"]) == len(match.games) >= 2
    for game, rated in zip(match.games, result["games"], strict=True):
        assert [h["number"] for h in rated["hands"]] == [1]
        assert [p["index"] for p in rated["hands"][0]["plays"]] == [
            k for k, s in enumerate(positions(game.played[0].hand)) if len(s.legal_actions()) >= 2
        ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seats": [4]}, "a seat is 0, 1, 2 or 3"),
        ({"seats": [True]}, "a seat is 0, 1, 2 or 3"),
        ({"seats": []}, "no seat"),
        ({"mode": "psychic"}, "mode must be"),
        ({"hand": 2}, "no hand 2: a hand record has 1 hand"),
        ({"hand": 0}, "a hand number is 1 or more"),
    ],
)
def test_bad_requests_are_typed_errors(kwargs: dict[str, Any], message: str) -> None:
    record = hand_record(heuristic_hand(Rules(tiles_each=3), 1))
    with pytest.raises(AnalysisError, match=message):
        analyze_record(record, **kwargs)


def test_a_bad_record_is_a_rules_error() -> None:
    record = hand_record(heuristic_hand(Rules(tiles_each=3), 1))
    with pytest.raises(RulesError, match="not a tranque record"):
        analyze_record({"format": "tranque-chess/1"})
    with pytest.raises(RulesError, match="move 1"):
        analyze_record(dict(record, moves=[record["moves"][0], "99@9"]))


def test_an_unanswerable_double_lead_is_worth_its_bonus_in_every_world() -> None:
    """Barrio's 20 points: seat 0 holds every six, so its 66 lead cannot be answered whatever
    the others hold. On the same worlds (the seed and the view are the same), that option's
    value is the plain rules' plus 20, and no other option's changes."""
    plain = Rules(max_pip=6, tiles_each=7)
    barrio_like = Rules(max_pip=6, tiles_each=7, unanswered_double_lead_points=20)
    rest = [t for t in plain.tile_set.tiles if not t.has(6)]
    random.Random(3).shuffle(rest)
    hands = [
        "66 65 64 63 62 61 60",
        *(" ".join(map(str, rest[7 * i : 7 * i + 7])) for i in range(3)),
    ]
    values = []
    for rules in (plain, barrio_like):
        record = {"format": "tranque-hand/1", "rules": rules.to_json(), "hands": hands,
                  "sleepers": "", "leader": 0, "moves": ["65"]}  # fmt: skip
        play = analyze(record, seats=[0], budget=QUICK)["hands"][0]["plays"][0]
        values.append({o["move"]: o["value"] for o in play["options"]})
    assert len(values[0]) == 7
    assert values[1] == pytest.approx({m: v + 20 if m == "66" else v for m, v in values[0].items()})
