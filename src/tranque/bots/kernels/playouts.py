# mypy: disable-error-code="no-any-return"
"""Playouts on the fast path: a hand played to its end by random or heuristic moves, random
deals, and the playouts-per-second figure of ``tranque bench engine``."""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from tranque.bots.kernels.heuristic import first_best, heuristic_scores, softmax_pick
from tranque.bots.kernels.position import (
    KIND_ON,
    N_TILES,
    S_KIND,
    S_VALUE,
    T_HI,
    apply_move,
    legal_moves,
    new_state,
    rng_float,
    rng_seed,
)


@njit(cache=True)
def playout_random(S: np.ndarray, rng: np.ndarray, moves: np.ndarray) -> int:
    """Play to the end with uniformly random legal moves; returns points signed for pair A."""
    while S[S_KIND] == KIND_ON:
        n = legal_moves(S, moves)
        k = 0 if n == 1 else int(rng_float(rng) * n)
        apply_move(S, moves[k])
    return S[S_VALUE]


@njit(cache=True)
def playout_heuristic(
    S: np.ndarray,
    W: np.ndarray,
    temp: float,
    rng: np.ndarray,
    moves: np.ndarray,
    scores: np.ndarray,
) -> int:
    """Play to the end with the heuristic (softmax at ``temp``; greedy when ``temp`` <= 0)."""
    while S[S_KIND] == KIND_ON:
        n = legal_moves(S, moves)
        if n == 1:
            apply_move(S, moves[0])
            continue
        heuristic_scores(S, moves, n, W, scores)
        k = first_best(scores, n) if temp <= 0.0 else softmax_pick(scores, n, temp, rng)
        apply_move(S, moves[k])
    return S[S_VALUE]


@njit(cache=True)
def random_deal(rng: np.ndarray, tiles_each: int, max_pip: int, hands: np.ndarray) -> int:
    """Shuffle the set and deal four hands into ``hands``; returns the set's mask."""
    order = np.empty(N_TILES, np.int64)
    n = 0
    for i in range(N_TILES):
        if T_HI[i] <= max_pip:
            order[n] = i
            n += 1
    for i in range(n - 1, 0, -1):
        j = int(rng_float(rng) * (i + 1))
        t = order[i]
        order[i] = order[j]
        order[j] = t
    set_mask = 0
    for i in range(n):
        set_mask |= np.int64(1) << order[i]
    for s in range(4):
        h = 0
        for k in range(tiles_each):
            h |= np.int64(1) << order[s * tiles_each + k]
        hands[s] = h
    return set_mask


@njit(cache=True)
def random_hands(n: int, seed: int) -> int:
    """Deal and play ``n`` Havana hands at random; returns a checksum of the points."""
    rng = np.zeros(1, np.uint64)
    rng_seed(rng, seed, 0)
    hands = np.zeros(4, np.int64)
    moves = np.zeros(64, np.int64)
    total = 0
    for k in range(n):
        set_mask = random_deal(rng, 10, 9, hands)
        S = new_state(hands, k & 3, 10, 1, 0, set_mask)
        total += playout_random(S, rng, moves)
    return total


def random_playouts_per_second(seconds: float = 1.0) -> float:
    """Random complete Havana hands per second through the kernel, each with its own deal."""
    random_hands(10, 1)  # compile (or load from cache) outside the timing
    done = 0
    batch = 1000
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        random_hands(batch, done + 1)
        done += batch
        elapsed = time.perf_counter() - start
        if elapsed < seconds / 10:
            batch *= 2
    return done / elapsed
