"""Invariants over random games of every variant.

Hypothesis draws the game itself, not a seed: a ``Script`` holds the deals (each a permutation of
the set) and every decision (an index into what may be chosen: a legal move, Salgo or Sal tú, a
redeal asked or not). A failure therefore shrinks to a small script: the first legal move almost
everywhere, deals close to the set's own order. Where the script runs out, the game goes on with
the first choice and the deals again from the start, so any prefix is a whole game and a pinned
``@example`` stays short.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tranque.rules.game import GameState, LeadChoice, Phase
from tranque.rules.hand import PASS, Deal, HandState
from tranque.rules.record import game_record, hand_record, replay_game, replay_hand
from tranque.rules.tiles import NUMBER_MASK, Tile, mask_of, pips_of, tiles_of
from tranque.rules.variants import PRESETS
from tranque.rules.views import public_view, seat_view

LEADS = (LeadChoice.SALGO, LeadChoice.SAL_TU, None)


@dataclass(frozen=True)
class Script:
    """A whole game, as Hypothesis draws it (see the module's docstring)."""

    preset: str
    deals: tuple[tuple[int, ...], ...]  # each a permutation of range(len(set)): who gets what
    picks: tuple[int, ...] = ()  # each decision in turn, an index (modulo the choices)


@st.composite
def scripts(draw: st.DrawFn) -> Script:
    preset = draw(st.sampled_from(sorted(PRESETS)))
    n = len(PRESETS[preset].tile_set.tiles)
    deals = draw(st.lists(st.permutations(range(n)), min_size=1, max_size=3))
    picks = draw(st.lists(st.integers(0, 23), max_size=300))
    return Script(preset, tuple(tuple(d) for d in deals), tuple(picks))


class Player:
    """Plays a script: each call takes the next deal or the next pick."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.rules = PRESETS[script.preset]
        self.dealt = 0
        self.picked = 0

    def pick(self, options: int) -> int:
        picks = self.script.picks
        k = picks[self.picked] % options if self.picked < len(picks) else 0
        self.picked += 1
        return k

    def order(self) -> list[Tile]:
        tiles = self.rules.tile_set.tiles
        d = self.script.deals[self.dealt % len(self.script.deals)]
        self.dealt += 1
        return [tiles[i] for i in d]

    def deal(self, game: GameState) -> GameState:
        order = self.order()
        k = self.rules.tiles_each
        hands = tuple(mask_of(order[k * s : k * s + k]) for s in range(4))
        deal = Deal((hands[0], hands[1], hands[2], hands[3]), mask_of(order[4 * k :]))
        draw = None
        if game.needs_first_draw():
            # A tile per pair, again while the sums are equal: consecutive pairs of the order.
            draw = []
            for a, b in zip(order[0::2], order[1::2], strict=False):
                draw.append((a, b))
                if a.pips != b.pips:
                    break
        coin = self.pick(2) if game.needs_coin() else None
        return game.deal(deal, draw=draw, coin=coin)


def play_game(script: Script, check: bool = True) -> GameState:
    p = Player(script)
    game = GameState.new(p.rules)
    while not game.is_over:
        if game.phase is Phase.DEAL:
            game = p.deal(game)
        elif game.phase is Phase.REDEAL:
            game = game.answer_redeal(game.redeal_eligible()[0], p.pick(2) == 1)
        elif game.phase is Phase.CHOOSE:
            game = game.choose_leader(LEADS[p.pick(3)], LEADS[p.pick(3)])
        else:
            if check:
                check_views(game)
            before = game.hand
            assert before is not None
            legal = game.legal_actions()
            game = game.play(legal[p.pick(len(legal))])
            if check:
                check_step(before, game)
    return game


def _doubles_first(preset: str) -> tuple[int, ...]:
    """The set with every double first: seat 0 holds the doubles and may ask for a redeal."""
    tiles = PRESETS[preset].tile_set.tiles
    return tuple(sorted(range(len(tiles)), key=lambda i: not tiles[i].is_double))


def _in_order(preset: str) -> tuple[int, ...]:
    return tuple(range(len(PRESETS[preset].tile_set.tiles)))


# Pinned cases, tried first on every run: each variant with the set in its own order and the first
# choice everywhere; seat 0 dealt all the doubles, asking for the redeal (Havana) and declining
# it (Miami); the last choice everywhere (Oriente, the set in reverse).
PINNED = [
    *(Script(name, (_in_order(name),)) for name in sorted(PRESETS)),
    Script("havana", (_doubles_first("havana"), _in_order("havana")), (1, 0, 0, 1)),
    Script("miami", (_doubles_first("miami"),), (0,)),
    Script("oriente", (tuple(reversed(_in_order("oriente"))),), (23,) * 400),
]


def pinned(test: Callable[[Script], None]) -> Callable[[Script], None]:
    """Every ``PINNED`` script as an ``@example`` of ``test``."""
    for script in PINNED:
        test = example(script)(test)
    return test


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


# Every view of every seat at every move: 3 to 20 s, by the machine's load.
@pytest.mark.slow
@settings(max_examples=40)
@pinned
@given(scripts())
def test_random_games_keep_every_invariant(script: Script) -> None:
    play_game(script)


@settings(max_examples=40)
@pinned
@given(scripts())
def test_records_round_trip_exactly(script: Script) -> None:
    game = play_game(script, check=False)
    record = game_record(game)
    text = json.dumps(record)
    again = replay_game(json.loads(text))
    assert game_record(again) == record
    assert again.scores == game.scores and again.winner == game.winner
    for played in game.played:
        single = hand_record(played.hand)
        assert hand_record(replay_hand(json.loads(json.dumps(single)))) == single
