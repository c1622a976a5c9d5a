"""Is the deal uniform? Chi-square tests over 55,000 keys, and proof that they can fail.

Keys come from fixed seeds and hand numbers 1..55,000, so the outcome is the same on every run: no
flaky statistics. Two checks: the tile at position 0 is uniform over the 55 tiles, and each seat's
number of doubles follows the exact hypergeometric law of 10 tiles drawn from 55 with 10 doubles.
The same checks, on two deliberately broken dealers, must reject them.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb

import pytest
from scipy.stats import chisquare

from tranque.fair.recipe import Stream, deal_key, deal_order, shuffle_label
from tranque.rules.tiles import DOUBLE_NINE, Tile
from tranque.rules.variants import HAVANA

N_KEYS = 55_000
ALPHA = 1e-3  # per check; the keys are fixed, so this is a threshold, not a flake rate
N_TILES = len(DOUBLE_NINE.tiles)
K = HAVANA.tiles_each
N_DOUBLES = len(DOUBLE_NINE.doubles)
MIN_EXPECTED = 5.0

Dealer = Callable[[bytes], list[Tile]]


def _key(i: int) -> bytes:
    return deal_key(bytes(range(32)), "stats", i + 1, [b"\x01" * 32, b"", b"\x03" * 32, b""])


def _fair(key: bytes) -> list[Tile]:
    return deal_order(key, HAVANA, 0)


def _sattolo(key: bytes) -> list[Tile]:
    """A classic bug: j = below(i) instead of below(i + 1). No tile can stay where it started."""
    order = list(DOUBLE_NINE.tiles)
    stream = Stream(key, shuffle_label(0))
    for i in range(len(order) - 1, 0, -1):
        j = stream.below(i)
        order[i], order[j] = order[j], order[i]
    return order


def _favours_seat_0(key: bytes) -> list[Tile]:
    """A cheating server: when seat 0 is dealt no double, it quietly deals attempt 1 instead."""
    order = deal_order(key, HAVANA, 0)
    if not any(t.is_double for t in order[:K]):
        order = deal_order(key, HAVANA, 1)
    return order


def _sample(dealer: Dealer, n: int) -> tuple[list[int], list[list[int]]]:
    """Counts of the tile at position 0, and of each seat's number of doubles."""
    first = [0] * N_TILES
    doubles = [[0] * (K + 1) for _ in range(4)]
    index = {t: i for i, t in enumerate(DOUBLE_NINE.tiles)}
    for i in range(n):
        order = dealer(_key(i))
        first[index[order[0]]] += 1
        for seat in range(4):
            doubles[seat][sum(1 for t in order[K * seat : K * seat + K] if t.is_double)] += 1
    return first, doubles


def hypergeometric() -> list[float]:
    """P(a 10-tile hand holds d doubles), d = 0..10: C(10,d)·C(45,10-d) / C(55,10), exactly."""
    total = comb(N_TILES, K)
    return [comb(N_DOUBLES, d) * comb(N_TILES - N_DOUBLES, K - d) / total for d in range(K + 1)]


def _merge_tail(observed: list[int], expected: list[float]) -> tuple[list[int], list[float]]:
    """Fold the upper bins into one until every expected count is at least MIN_EXPECTED.

    With 55,000 hands, 7 or more doubles is expected about 3 times: its bins are folded into "6 or
    more" so that the chi-square approximation holds.
    """
    obs, exp = list(observed), list(expected)
    while len(exp) > 2 and exp[-1] < MIN_EXPECTED:
        tail_exp, tail_obs = exp.pop(), obs.pop()
        exp[-1] += tail_exp
        obs[-1] += tail_obs
    return obs, exp


def first_tile_p(first: list[int]) -> float:
    n = sum(first)
    return float(chisquare(first, [n / N_TILES] * N_TILES).pvalue)


def doubles_p(counts: list[int]) -> float:
    n = sum(counts)
    obs, exp = _merge_tail(counts, [p * n for p in hypergeometric()])
    return float(chisquare(obs, exp).pvalue)


def test_hypergeometric_law() -> None:
    law = hypergeometric()
    assert abs(sum(law) - 1) < 1e-12
    assert abs(sum(d * p for d, p in enumerate(law)) - K * N_DOUBLES / N_TILES) < 1e-12
    _, exp = _merge_tail([0] * (K + 1), [p * N_KEYS for p in law])
    assert len(exp) == 7 and min(exp) >= MIN_EXPECTED  # bins 0..5 and "6 or more"
    assert abs(sum(exp) - N_KEYS) < 1e-6


@pytest.mark.slow
def test_the_deal_is_uniform() -> None:
    first, doubles = _sample(_fair, N_KEYS)
    assert sum(first) == N_KEYS
    p_first = first_tile_p(first)
    assert p_first > ALPHA, f"tile at position 0 is not uniform: p = {p_first:.2e}"
    for seat in range(4):
        p = doubles_p(doubles[seat])
        assert p > ALPHA, (
            f"seat {seat}'s doubles are not hypergeometric: p = {p:.2e}, {doubles[seat]}"
        )


def test_the_checks_catch_a_biased_shuffle() -> None:
    # Fewer hands than the real test: a check that rejects these with 11,000 rejects them with more.
    first, _ = _sample(_sattolo, 11_000)
    assert first[0] == 0  # the 00 tile never stays at position 0
    assert first_tile_p(first) < ALPHA


def test_the_checks_catch_a_server_that_favours_a_seat() -> None:
    _, doubles = _sample(_favours_seat_0, 11_000)
    assert doubles_p(doubles[0]) < ALPHA
