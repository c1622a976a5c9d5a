# mypy: disable-error-code="no-any-return"
"""The heuristic on the fast path: what Cuban players teach, as a score per move (the
weights ``W_*`` of ``kernels.position``), the best move and a softmax pick among them."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from tranque.bots.kernels.position import (
    LEAD_END,
    NUM_MASK,
    S_COUNT,
    S_HANDS,
    S_LAST_OPEN,
    S_LEFT,
    S_PIPS,
    S_PLAYED,
    S_PLAYED_PIPS,
    S_RIGHT,
    S_SET_MASK,
    S_SET_PIPS,
    S_TURN,
    S_VOID,
    T_HI,
    T_LO,
    T_PIPS,
    W_ACCOMP,
    W_DOUBLE,
    W_MOBILITY,
    W_NEXT_VOID,
    W_PARTNER_KILL,
    W_PARTNER_VOID,
    W_PIPS,
    W_PREV_VOID,
    W_TRANQUE,
    W_VARIETY,
    legal_moves,
    popcount,
    rng_float,
)


@njit(cache=True)
def heuristic_scores(
    S: np.ndarray, moves: np.ndarray, n: int, W: np.ndarray, out: np.ndarray
) -> None:
    """Score each legal move of the seat to play, from what that seat may know.

    Reads the seat's own hand and public fields only (played tiles, ends, passes, counts, the
    numbers each seat left open); never another hand. Features, each with its weight in ``W``:
    botar la gorda (pips of the tile), doubles first, la más acompañada (own tiles of the number
    left open), mobility (own tiles that fit the new ends), variety (numbers still held), do not
    kill the partner's number, close the numbers the opponents passed on (and not the partner's),
    and, for a play that may block the table, whether its pip count wins that tranque.
    """
    seat = S[S_TURN]
    H = S[S_HANDS + seat]
    unseen = S[S_SET_MASK] & ~S[S_PLAYED] & ~H
    n_unseen = popcount(unseen)
    nxt = (seat + 1) & 3
    partner = (seat + 2) & 3
    prev = (seat + 3) & 3
    c_next = S[S_COUNT + nxt]
    c_partner = S[S_COUNT + partner]
    c_prev = S[S_COUNT + prev]
    n_sleep = n_unseen - c_next - c_partner - c_prev
    min_other = c_next
    if c_partner < min_other:
        min_other = c_partner
    if c_prev < min_other:
        min_other = c_prev
    unseen_pips = S[S_SET_PIPS] - S[S_PLAYED_PIPS] - S[S_PIPS + seat]
    avg_unseen = unseen_pips / n_unseen if n_unseen > 0 else 0.0
    pnum = S[S_LAST_OPEN + partner]
    left = S[S_LEFT]
    right = S[S_RIGHT]
    v_next = S[S_VOID + nxt]
    v_prev = S[S_VOID + prev]
    v_partner = S[S_VOID + partner]
    for i in range(n):
        mv = moves[i]
        if mv < 0:
            out[i] = 0.0
            continue
        idx = mv >> 4
        end = mv & 15
        hi = T_HI[idx]
        lo = T_LO[idx]
        H2 = H & ~(np.int64(1) << idx)
        if end == LEAD_END:
            nl = hi
            nr = lo
            opened = hi
        elif end == left:
            nl = lo if hi == end else hi
            nr = right
            opened = nl
        else:
            nl = left
            nr = lo if hi == end else hi
            opened = nr
        s = W[W_PIPS] * T_PIPS[idx]
        if hi == lo:
            s += W[W_DOUBLE]
        if H2 == 0:
            out[i] = s + 1000.0
            continue
        acc = popcount(H2 & NUM_MASK[opened])
        if end == LEAD_END and lo != hi:
            acc = max(acc, popcount(H2 & NUM_MASK[lo]))
        s += W[W_ACCOMP] * acc
        fit_mask = NUM_MASK[nl] | NUM_MASK[nr]
        s += W[W_MOBILITY] * popcount(H2 & fit_mask)
        variety = 0
        for k in range(10):
            if H2 & NUM_MASK[k]:
                variety += 1
        s += W[W_VARIETY] * variety
        if end != LEAD_END and end == pnum and hi != lo and nl != pnum and nr != pnum:
            s -= W[W_PARTNER_KILL]
        both = (1 << nl) | (1 << nr)
        if v_next & both == both:
            s += W[W_NEXT_VOID]
        if v_prev & both == both:
            s += W[W_PREV_VOID]
        if v_partner & both == both:
            s -= W[W_PARTNER_VOID]
        if H2 & fit_mask == 0:
            # No tile of mine fits the new ends: the table blocks unless someone else holds one.
            k = popcount(unseen & fit_mask)
            p_block = 1.0
            for j in range(k):
                if n_unseen - j <= 0:
                    break
                p_block *= max(0.0, (n_sleep - j) / (n_unseen - j))
            if p_block > 0.0:
                margin = avg_unseen * min_other - (S[S_PIPS + seat] - T_PIPS[idx])
                x = margin / 10.0
                if x > 1.0:
                    x = 1.0
                elif x < -1.0:
                    x = -1.0
                s += W[W_TRANQUE] * p_block * x
        out[i] = s


@njit(cache=True)
def first_best(scores: np.ndarray, n: int) -> int:
    """The index of the highest of the first ``n`` scores, the first one on ties: the heuristic's
    move wherever it plays (its own choice, its playouts, the model of the other players)."""
    best = 0
    for i in range(1, n):
        if scores[i] > scores[best]:
            best = i
    return best


@njit(cache=True)
def heuristic_choice(S: np.ndarray, W: np.ndarray, moves: np.ndarray, scores: np.ndarray) -> int:
    """The heuristic's move (highest score, first on ties)."""
    n = legal_moves(S, moves)
    if n == 1:
        return moves[0]
    heuristic_scores(S, moves, n, W, scores)
    return moves[first_best(scores, n)]


@njit(cache=True)
def softmax_pick(scores: np.ndarray, n: int, temp: float, rng: np.ndarray) -> int:
    top = scores[0]
    for i in range(1, n):
        if scores[i] > top:
            top = scores[i]
    total = 0.0
    for i in range(n):
        total += math.exp((scores[i] - top) / temp)
    r = rng_float(rng) * total
    for i in range(n):
        r -= math.exp((scores[i] - top) / temp)
        if r <= 0.0:
            return i
    return n - 1
