"""Perft for dominoes: the number of distinct legal move sequences from fixed deals to a depth.

The counts are checked in (tests/golden/perft.json), so any change to legality fails here. A naive,
independent enumerator written from the rule book (lists of tile pairs, no bitmasks) agrees with
the engine at the shallower depths, so the golden numbers are not merely self-consistent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tranque.rules.hand import Deal, HandState
from tranque.rules.variants import PRESETS

GOLDEN = json.loads((Path(__file__).parent.parent / "golden" / "perft.json").read_text())


def perft(hand: HandState, depth: int) -> int:
    if depth == 0 or hand.is_over:
        return 1
    return sum(perft(hand.apply(a), depth - 1) for a in hand.legal_actions())


def naive_perft(
    hands: list[list[tuple[int, int]]], turn: int, ends: tuple[int, int] | None, depth: int
) -> int:
    """Straight from the rule book: lead anything; else a tile with an open number, on either
    end it fits (one move if both ends show the same number); pass only if nothing fits; the
    hand ends when someone is out or nobody holds a tile for either end."""
    if depth == 0:
        return 1
    hand = hands[turn]
    moves: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for tile in hand:
        a, b = tile
        if ends is None:
            moves.append((tile, (a, b)))
            continue
        left, right = ends
        if left in tile:
            moves.append((tile, (b if a == left else a, right)))
        if right in tile and right != left:
            moves.append((tile, (left, b if a == right else a)))
    if not moves:
        return naive_perft(hands, (turn + 1) % 4, ends, depth - 1)
    total = 0
    for tile, new_ends in moves:
        rest = [t for t in hand if t != tile]
        nxt = [rest if s == turn else hands[s] for s in range(4)]
        out = not rest
        blocked = not any(new_ends[0] in t or new_ends[1] in t for h in nxt for t in h)
        total += (
            1
            if out or blocked or depth == 1
            else naive_perft(nxt, (turn + 1) % 4, new_ends, depth - 1)
        )
    return total


def start(case: dict) -> HandState:  # type: ignore[type-arg]
    rules = PRESETS[case["rules"]]
    return HandState.start(rules, Deal.from_text(case["hands"], rules=rules), case["leader"])


@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: c["name"])
def test_perft_matches_golden_counts(case: dict) -> None:  # type: ignore[type-arg]
    hand = start(case)
    for depth, count in enumerate(case["counts"], start=1):
        assert perft(hand, depth) == count, f"depth {depth}"


@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: c["name"])
def test_perft_agrees_with_a_naive_enumerator(case: dict) -> None:  # type: ignore[type-arg]
    hand = start(case)
    hands = [[(int(t[0]), int(t[1])) for t in h.split()] for h in case["hands"]]
    for depth in range(1, 6):
        assert naive_perft(hands, case["leader"], None, depth) == perft(hand, depth)
