# mypy: disable-error-code="no-any-return"
"""The exact endgame on the fast path: minimax with alpha-beta on a fully determinised
position, and duels of two heuristics on the same deals."""

from __future__ import annotations

import numpy as np
from numba import njit

from tranque.bots.kernels.heuristic import heuristic_choice
from tranque.bots.kernels.playouts import random_deal
from tranque.bots.kernels.position import (
    KIND_ON,
    S_COUNT,
    S_KIND,
    S_SIZE,
    S_TURN,
    S_VALUE,
    apply_move,
    legal_moves,
    new_state,
    rng_seed,
)


@njit(cache=True)
def _enter(stack: np.ndarray, moves: np.ndarray, meta: np.ndarray, d: int, a: int, b: int) -> None:
    S = stack[d]
    meta[d, 0] = legal_moves(S, moves[d])  # children
    meta[d, 1] = 0  # next child
    meta[d, 2] = 1 if (S[S_TURN] & 1) == 0 else 0  # pair A to play: maximise
    meta[d, 3] = -100000 if meta[d, 2] else 100000  # best so far
    meta[d, 4] = a
    meta[d, 5] = b


@njit(cache=True)
def _back_up(meta: np.ndarray, d: int, v: int) -> None:
    if meta[d, 2]:
        if v > meta[d, 3]:
            meta[d, 3] = v
        if meta[d, 3] > meta[d, 4]:
            meta[d, 4] = meta[d, 3]
    else:
        if v < meta[d, 3]:
            meta[d, 3] = v
        if meta[d, 3] < meta[d, 5]:
            meta[d, 5] = meta[d, 3]


@njit(cache=True)
def solve_exact(S: np.ndarray) -> int:
    """The perfect-information minimax value (points signed for pair A) of a full position.

    Alpha-beta, iterative (numba's cache does not keep recursive functions safely).
    """
    if S[S_KIND] != KIND_ON:
        return S[S_VALUE]
    stack = np.zeros((160, S_SIZE), np.int64)
    moves = np.zeros((160, 24), np.int64)
    meta = np.zeros((160, 6), np.int64)
    stack[0, :] = S
    _enter(stack, moves, meta, 0, -100000, 100000)
    d = 0
    while True:
        if meta[d, 1] < meta[d, 0] and meta[d, 4] < meta[d, 5]:
            child = stack[d + 1]
            child[:] = stack[d]
            apply_move(child, moves[d, meta[d, 1]])
            meta[d, 1] += 1
            if child[S_KIND] != KIND_ON:
                _back_up(meta, d, child[S_VALUE])
            else:
                _enter(stack, moves, meta, d + 1, meta[d, 4], meta[d, 5])
                d += 1
        else:
            v = meta[d, 3]
            if d == 0:
                return v
            d -= 1
            _back_up(meta, d, v)


@njit(cache=True)
def hand_tiles_left(S: np.ndarray) -> int:
    return S[S_COUNT] + S[S_COUNT + 1] + S[S_COUNT + 2] + S[S_COUNT + 3]


@njit(cache=True)
def duel_heuristics(
    wa: np.ndarray, wb: np.ndarray, n_deals: int, seed: int, tiles_each: int, max_pip: int
) -> np.ndarray:
    """Duplicate Havana hands between two weightings (A greedy in seats 0 and 2, then swapped).

    Returns [A hands won, B hands won, tied, A points - B points]: a quick tuning tool.
    """
    rng = np.zeros(1, np.uint64)
    rng_seed(rng, seed, 1)
    hands = np.zeros(4, np.int64)
    moves = np.zeros(64, np.int64)
    scores = np.zeros(64, np.float64)
    out = np.zeros(4, np.int64)
    for d in range(n_deals):
        set_mask = random_deal(rng, tiles_each, max_pip, hands)
        for orient in range(2):
            S = new_state(hands, d & 3, tiles_each, 1, 0, set_mask)
            while S[S_KIND] == KIND_ON:
                seat_is_a = ((S[S_TURN] & 1) == 0) == (orient == 0)
                mv = heuristic_choice(S, wa if seat_is_a else wb, moves, scores)
                apply_move(S, mv)
            v = S[S_VALUE] if orient == 0 else -S[S_VALUE]
            if v > 0:
                out[0] += 1
            elif v < 0:
                out[1] += 1
            else:
                out[2] += 1
            out[3] += v
    return out
