"""Worlds in which a seat's partner's tiles are known: for the partner edge of the screen and
for the colluding pair that tests it.

The seat's own tiles and its partner's true tiles are fixed; the opponents' tiles are dealt at
random among the tiles nobody has seen, each opponent's known voids respected (a seat that
passed holds no tile of either open number then: public facts); what is left sleeps.
"""

from __future__ import annotations

import random

import numpy as np

from tranque.rules.hand import HandState
from tranque.rules.tiles import NUMBER_MASK, iter_bits


def voids(hand: HandState) -> list[int]:
    """Per seat, the tiles it cannot hold: every tile of a number it passed on (public facts)."""
    out = [0, 0, 0, 0]
    state = HandState.start(hand.rules, hand.deal, hand.leader, first_pass_pending=False)
    for action in hand.moves:
        if action.is_pass and state.left >= 0:
            out[state.turn] |= NUMBER_MASK[state.left] | NUMBER_MASK[state.right]
        state = state.apply(action)
    return out


def deal_opponents(
    unknown: list[int],
    opps: tuple[int, int],
    counts: list[int],
    void: list[int],
    rng: random.Random,
) -> tuple[int, int]:
    """The opponents' hands from the unknown tiles: the more constrained one first, each from
    the tiles it may hold; when the voids leave too few, they are ignored (a rare edge)."""
    for _ in range(20):
        pool = unknown[:]
        rng.shuffle(pool)
        hands = [0, 0]
        order = sorted((0, 1), key=lambda i: -void[opps[i]].bit_count())
        ok = True
        for i in order:
            allowed = [t for t in pool if not t & void[opps[i]]]
            if len(allowed) < counts[i]:
                ok = False
                break
            for t in allowed[: counts[i]]:
                hands[i] |= t
                pool.remove(t)
        if ok:
            return hands[0], hands[1]
    pool = unknown[:]
    rng.shuffle(pool)
    first = sum(pool[: counts[0]])
    second = sum(pool[counts[0] : counts[0] + counts[1]])
    return first, second


def partner_worlds(hand: HandState, me: int, n: int, rng: random.Random) -> np.ndarray:
    """``n`` worlds (rows: the four seats' current tiles) with ``me``'s and its partner's true
    tiles and the opponents' dealt at random, voids respected."""
    partner = me ^ 2
    seen = hand.hands[me] | hand.hands[partner]
    for action in hand.moves:
        if action.tile is not None:
            seen |= action.tile.bit
    unknown = [1 << b for b in iter_bits(hand.rules.tile_set.mask & ~seen)]
    opps = (me ^ 1, me ^ 3)
    void = voids(hand)
    counts = [hand.tile_count(s) for s in opps]
    out = np.zeros((n, 4), np.int64)
    for j in range(n):
        out[j, me] = hand.hands[me]
        out[j, partner] = hand.hands[partner]
        got = deal_opponents(unknown, opps, counts, void, rng)
        for s, mask in zip(opps, got, strict=True):
            out[j, s] = mask
    return out
