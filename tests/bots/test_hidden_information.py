"""A bot decides from its SeatView only: two deals that look the same to a seat get the same
decision with the same seed, whatever the other hands and the sleepers hold."""

from __future__ import annotations

import inspect
import random

import pytest

from tranque.bots.base import Bot, bot_names, make_bot
from tranque.rules.dealing import random_deal
from tranque.rules.game import GameState, Phase, Setup
from tranque.rules.hand import Deal, HandState
from tranque.rules.tiles import iter_bits
from tranque.rules.variants import HAVANA
from tranque.rules.views import SeatView, seat_view

FAST = [n for n in bot_names() if n != "strong-slow"]


def _reshuffle_hidden(hand: HandState, seat: int, rng: random.Random) -> HandState:
    """The same hand from ``seat``'s eyes: its tiles, every move, every pass the same; the
    other seats' unplayed tiles and the sleepers dealt again consistently with the passes."""
    passed: dict[int, set[int]] = {s: set() for s in range(4)}
    probe = HandState.start(hand.rules, hand.deal, hand.leader)
    for action in hand.moves:
        if action.is_pass and probe.ends is not None:
            passed[probe.turn] |= set(probe.ends)
        probe = probe.apply(action)
    others = [s for s in range(4) if s != seat]
    pool = [i for s in others for i in iter_bits(hand.hands[s])] + list(iter_bits(hand.sleepers))
    from tranque.rules.tiles import ALL_TILES

    for _ in range(10000):
        rng.shuffle(pool)
        new: dict[int, int] = {}
        k = 0
        ok = True
        for s in others:
            n = hand.hands[s].bit_count()
            chunk = pool[k : k + n]
            k += n
            if any(ALL_TILES[i].high in passed[s] or ALL_TILES[i].low in passed[s] for i in chunk):
                ok = False
                break
            new[s] = sum(1 << i for i in chunk)
        if ok:
            break
    else:
        pytest.skip("no consistent reshuffle found")
    hands = list(hand.hands)
    for s in others:
        hands[s] = new[s]
    sleepers = sum(1 << i for i in pool[k:])
    # Rebuild the dealt hands: current + played tiles.
    dealt = list(hands)
    for kk, action in enumerate(hand.moves):
        if action.tile is not None:
            dealt[hand.seat_of_move(kk)] |= action.tile.bit
    start = HandState.start(
        hand.rules, Deal((dealt[0], dealt[1], dealt[2], dealt[3]), sleepers), hand.leader
    )
    for action in hand.moves:
        start = start.apply(action)
    return start


def _views(seed: int) -> tuple[SeatView, SeatView, bool]:
    rng = random.Random(seed)
    hand = HandState.start(HAVANA, random_deal(HAVANA, rng), seed % 4)
    for _ in range(rng.randrange(4, 24)):
        if hand.is_over or len(hand.legal_actions()) == 0:
            break
        hand = hand.apply(rng.choice(hand.legal_actions()))
    if hand.is_over:
        return _views(seed + 1000)
    seat = hand.turn
    other = _reshuffle_hidden(hand, seat, rng)
    g1 = GameState(HAVANA, phase=Phase.PLAY, setup=Setup(1, leader=hand.leader), hand=hand)
    g2 = GameState(HAVANA, phase=Phase.PLAY, setup=Setup(1, leader=hand.leader), hand=other)
    v1, v2 = seat_view(g1, seat), seat_view(g2, seat)
    changed = other.hands != hand.hands or other.sleepers != hand.sleepers
    return v1, v2, changed


@pytest.mark.parametrize("name", FAST)
def test_same_view_same_decision(name: str) -> None:
    changed_any = False
    for seed in range(12):
        v1, v2, changed = _views(seed)
        changed_any |= changed
        assert v1 == v2  # the reshuffle is invisible to the seat
        a1 = make_bot(name, 42).choose_action(v1)
        a2 = make_bot(name, 42).choose_action(v2)
        assert a1 == a2
    assert changed_any  # the hidden tiles really did differ


@pytest.mark.parametrize("name", FAST)
def test_bot_api_takes_only_a_seat_view(name: str) -> None:
    bot: Bot = make_bot(name, 0)
    for method in ("choose_action", "choose_lead", "ask_redeal"):
        params = list(inspect.signature(getattr(bot, method)).parameters)
        assert params == ["view"]
