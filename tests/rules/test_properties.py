"""Invariants over random games of every variant (Hypothesis chooses the seeds)."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tranque.rules.dealing import deal_next
from tranque.rules.game import GameState, LeadChoice, Phase
from tranque.rules.hand import PASS, HandState
from tranque.rules.record import game_record, hand_record, replay_game, replay_hand
from tranque.rules.tiles import NUMBER_MASK, pips_of, tiles_of
from tranque.rules.variants import PRESETS
from tranque.rules.views import public_view, seat_view

presets = st.sampled_from(sorted(PRESETS))


def play_game(name: str, seed: int, check: bool = True) -> GameState:
    rules = PRESETS[name]
    rng = random.Random(seed)
    game = GameState.new(rules)
    while not game.is_over:
        if game.phase is Phase.DEAL:
            game = deal_next(game, rng)
        elif game.phase is Phase.REDEAL:
            game = game.answer_redeal(game.redeal_eligible()[0], rng.random() < 0.3)
        elif game.phase is Phase.CHOOSE:
            choice = [LeadChoice.SALGO, LeadChoice.SAL_TU, None]
            game = game.choose_leader(rng.choice(choice), rng.choice(choice))
        else:
            if check:
                check_views(game)
            before = game.hand
            assert before is not None
            game = game.play(rng.choice(game.legal_actions()))
            if check:
                check_step(before, game)
    return game


def check_views(game: GameState) -> None:
    """Every tile a view carries is the seat's own or already on the table."""
    hand = game.hand
    assert hand is not None and not hand.is_over
    played = {a.tile for a in hand.moves if a.tile is not None}
    for seat in [None, 0, 1, 2, 3]:
        public = public_view(game) if seat is None else seat_view(game, seat).public
        assert public.final_hands is None and public.dealt_hands is None
        assert public.sleepers is None
        assert {p.tile for p in public.chain} == played
        assert {a.tile for _, a in public.moves if a.tile is not None} == played
        if seat is not None:
            view = seat_view(game, seat)
            assert set(view.tiles) == set(tiles_of(hand.hands[seat]))
            assert {a.tile for a in view.legal if a.tile is not None} <= set(view.tiles)
            data = view.to_json()
            assert set(data) - set(public.to_json()) == {
                "seat",
                "tiles",
                "legal",
                "redeal_eligible",
                "choosing",
            }


def check_step(before: HandState, game: GameState) -> None:
    after = game.hand  # a finished hand stays in place until the next deal
    assert after is not None and after.moves[: len(before.moves)] == before.moves
    action = after.moves[len(before.moves)]
    seat = before.turn
    rules = before.rules
    # The set is conserved: hands + chain + sleepers, no duplicates.
    played = 0
    for a in after.moves:
        if a.tile is not None:
            assert not played & a.tile.bit
            played |= a.tile.bit
    masks = [*after.hands, after.sleepers, played]
    union = 0
    for m in masks:
        assert not union & m
        union |= m
    assert union == rules.tile_set.mask
    # A pass only when no play fits.
    if action is PASS:
        ends = before.ends
        assert ends is not None
        assert not before.hands[seat] & (NUMBER_MASK[ends[0]] | NUMBER_MASK[ends[1]])
    # The hand ends exactly at pegarse or when nobody can play.
    ends = after.ends
    assert ends is not None
    blocked = not any(
        after.hands[s] & (NUMBER_MASK[ends[0]] | NUMBER_MASK[ends[1]]) for s in range(4)
    )
    out_ = any(h == 0 for h in after.hands)
    assert after.is_over == (blocked or out_)
    if after.outcome is not None:
        out = after.outcome
        assert out.pips == tuple(pips_of(h) for h in after.hands)
        if out.winning_pair is not None:
            losers = out.winning_pair ^ 1
            base = out.pips[losers] + out.pips[losers + 2]
            assert out.points in (base, base * rules.capicua_multiplier)
        else:
            assert out.points == 0


@settings(max_examples=40, deadline=None)
@given(presets, st.integers(0, 2**32))
def test_random_games_keep_every_invariant(name: str, seed: int) -> None:
    play_game(name, seed)


@settings(max_examples=40, deadline=None)
@given(presets, st.integers(0, 2**32))
def test_records_round_trip_exactly(name: str, seed: int) -> None:
    game = play_game(name, seed, check=False)
    record = game_record(game)
    text = json.dumps(record)
    again = replay_game(json.loads(text))
    assert game_record(again) == record
    assert again.scores == game.scores and again.winner == game.winner
    for played in game.played:
        single = hand_record(played.hand)
        assert hand_record(replay_hand(json.loads(json.dumps(single)))) == single
