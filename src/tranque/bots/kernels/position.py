# mypy: disable-error-code="no-any-return"
"""The fast path of the rules for search: numba kernels on int64 bitmasks.

A position is one flat ``int64`` array (see the ``S_*`` offsets below): the four hands as universal
tile bitmasks (``tiles.Tile.bit``), the open ends, the turn, what has been played, and what everyone
has *publicly* shown: the numbers each seat is known to lack (from its passes), the number each seat
last left open, tile counts. A move is an ``int64``: ``tile_index * 16 + end`` with ``end`` the open
number it goes on, ``LEAD_END`` (10) for the lead, and ``PASS`` (-1).

The semantics are exactly those of ``rules.hand.HandState``: pegarse, the blocked-table check after
every play (the lead included), the block winner (partners sharing the lowest total win; a lowest
total shared across the pairs is a tied block, scored per ``rules.tied_block``), capicúa, points for
the pair. ``tests/bots/test_kernels.py`` checks this against the checked path on many random hands.
Bonuses (Miami's first pass, Barrio's unanswered double lead) are not part of a hand's own outcome
and are not modelled here.

A position built from a ``SeatView`` (``view_state``) has zeros for the hands the seat cannot see;
the heuristic reads only the seat's own hand and public fields, so it works on both.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tranque.rules.tiles import ALL_TILES, NUMBER_MASK, PIPS

N_TILES = 55
PASS = -1
LEAD_END = 10

# Offsets in a position array.
S_HANDS = 0  # 4 hands
S_LEFT = 4
S_RIGHT = 5
S_TURN = 6
S_LEADER = 7
S_PLAYED = 8
S_VOID = 9  # 4 masks of numbers (bit n = number n) each seat is known to lack
S_LAST_OPEN = 13  # 4: the number each seat last left open (-1: none yet)
S_PIPS = 17  # 4: pips left in each hand (meaningless for hands a view cannot see)
S_KIND = 21  # 0 on, 1 pegarse, 2 tranque, 3 tied tranque
S_VALUE = 22  # points, signed for pair A (positive: pair A scores)
S_WINNER = 23  # winning seat, -1 for an unscored tie
S_NMOVES = 24
S_CAPICUA_MULT = 25
S_TIED_MODE = 26  # 0: nobody scores; 1: the leading pair wins it
S_SET_MASK = 27
S_COUNT = 28  # 4 tile counts (public)
S_PLAYED_BY = 32  # 4 masks of tiles each seat has played
S_CAPICUA = 36
S_CLOSER = 37
S_PLAYED_PIPS = 38
S_SET_PIPS = 39
S_SIZE = 40

KIND_ON, KIND_PEGARSE, KIND_TRANQUE, KIND_TIED = 0, 1, 2, 3

T_HI = np.array([t.high for t in ALL_TILES], np.int64)
T_LO = np.array([t.low for t in ALL_TILES], np.int64)
T_PIPS = np.array(PIPS, np.int64)
NUM_MASK = np.array(NUMBER_MASK, np.int64)
NUM_TILES = np.array([[t.index for t in ALL_TILES if t.has(n)] for n in range(10)], np.int64)

# Heuristic feature weights (see ``heuristic_scores``); index: meaning.
W_PIPS, W_DOUBLE, W_ACCOMP, W_MOBILITY, W_VARIETY = 0, 1, 2, 3, 4
W_PARTNER_KILL, W_NEXT_VOID, W_PREV_VOID, W_PARTNER_VOID, W_TRANQUE = 5, 6, 7, 8, 9
N_WEIGHTS = 10


# --------------------------------------------------------------------------------------------
# Small helpers


@njit(cache=True)
def popcount(m: int) -> int:
    c = 0
    while m:
        m &= m - 1
        c += 1
    return c


@njit(cache=True)
def mask_pips(m: int) -> int:
    total = 0
    for i in range(N_TILES):
        if (m >> i) & 1:
            total += T_PIPS[i]
    return total


@njit(cache=True)
def rng_next(rng: np.ndarray) -> np.uint64:
    """xorshift64*: one step of a generator held in a 1-element uint64 array."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(2685821657736338717)


@njit(cache=True)
def rng_float(rng: np.ndarray) -> float:
    return float(rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def rng_seed(rng: np.ndarray, seed: int, stream: int) -> None:
    """Seed deterministically from two integers (splitmix64 finaliser)."""
    z = np.uint64(seed & 0x7FFFFFFFFFFFFFFF) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(
        stream & 0x7FFFFFFFFFFFFFFF
    )
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(0x2545F4914F6CDD1D)
    rng[0] = z


# --------------------------------------------------------------------------------------------
# Positions and moves


@njit(cache=True)
def new_state(
    hands: np.ndarray,
    leader: int,
    tiles_each: int,
    capicua_mult: int,
    tied_mode: int,
    set_mask: int,
) -> np.ndarray:
    """A position before the lead. ``hands`` may hold zeros for hands a seat cannot see."""
    S = np.zeros(S_SIZE, np.int64)
    for s in range(4):
        S[S_HANDS + s] = hands[s]
        S[S_PIPS + s] = mask_pips(hands[s])
        S[S_COUNT + s] = tiles_each
        S[S_LAST_OPEN + s] = -1
    S[S_LEFT] = -1
    S[S_RIGHT] = -1
    S[S_TURN] = leader
    S[S_LEADER] = leader
    S[S_WINNER] = -1
    S[S_CAPICUA_MULT] = capicua_mult
    S[S_TIED_MODE] = tied_mode
    S[S_SET_MASK] = set_mask
    S[S_SET_PIPS] = mask_pips(set_mask)
    S[S_CLOSER] = -1
    return S


@njit(cache=True)
def legal_moves(S: np.ndarray, out: np.ndarray) -> int:
    """Fill ``out`` with the legal moves of the seat to play (``[PASS]`` if none); return count.

    Same order as ``HandState.legal_actions``: the left end's tiles first, by universal index.
    """
    hand = S[S_TURN]
    hand = S[S_HANDS + hand]
    left = S[S_LEFT]
    n = 0
    if left < 0:
        for i in range(N_TILES):
            if (hand >> i) & 1:
                out[n] = i * 16 + LEAD_END
                n += 1
        return n
    right = S[S_RIGHT]
    for j in range(10):
        i = NUM_TILES[left, j]
        if (hand >> i) & 1:
            out[n] = i * 16 + left
            n += 1
    if right != left:
        for j in range(10):
            i = NUM_TILES[right, j]
            if (hand >> i) & 1:
                out[n] = i * 16 + right
                n += 1
    if n == 0:
        out[0] = PASS
        n = 1
    return n


@njit(cache=True)
def _first_after(closer: int, seats_mask: int) -> int:
    for step in range(1, 5):
        s = (closer + step) & 3
        if (seats_mask >> s) & 1:
            return s
    return -1


@njit(cache=True)
def apply_move(S: np.ndarray, mv: int) -> None:
    """Apply a legal move in place and settle the hand if it ends (pegarse or tranque)."""
    seat = S[S_TURN]
    S[S_NMOVES] += 1
    S[S_TURN] = (seat + 1) & 3
    left = S[S_LEFT]
    right = S[S_RIGHT]
    if mv < 0:
        if left >= 0:
            S[S_VOID + seat] |= (1 << left) | (1 << right)
        return
    idx = mv >> 4
    end = mv & 15
    bit = np.int64(1) << idx
    S[S_HANDS + seat] &= ~bit
    S[S_PLAYED] |= bit
    S[S_PLAYED_BY + seat] |= bit
    S[S_COUNT + seat] -= 1
    S[S_PIPS + seat] -= T_PIPS[idx]
    S[S_PLAYED_PIPS] += T_PIPS[idx]
    hi = T_HI[idx]
    lo = T_LO[idx]
    capicua = 0
    if left < 0:
        left = hi
        right = lo
        opened = hi
    elif end == left:
        if left != right and hi != lo and (hi == right or lo == right):
            capicua = 1
        left = lo if hi == left else hi
        opened = left
    else:
        if left != right and hi != lo and (hi == left or lo == left):
            capicua = 1
        right = lo if hi == right else hi
        opened = right
    S[S_LEFT] = left
    S[S_RIGHT] = right
    S[S_LAST_OPEN + seat] = opened
    open_mask = NUM_MASK[left] | NUM_MASK[right]
    if S[S_COUNT + seat] == 0:
        points = S[S_PIPS + ((seat + 1) & 3)] + S[S_PIPS + ((seat + 3) & 3)]
        if capicua:
            points *= S[S_CAPICUA_MULT]
        S[S_KIND] = KIND_PEGARSE
        S[S_WINNER] = seat
        S[S_VALUE] = points if (seat & 1) == 0 else -points
        S[S_CAPICUA] = capicua
        S[S_CLOSER] = seat
    elif (S[0] | S[1] | S[2] | S[3]) & open_mask == 0:
        S[S_CLOSER] = seat
        lowest = S[S_PIPS]
        for s in range(1, 4):
            if S[S_PIPS + s] < lowest:
                lowest = S[S_PIPS + s]
        holders = 0
        for s in range(4):
            if S[S_PIPS + s] == lowest:
                holders |= 1 << s
        in_a = (holders & 0b0101) != 0
        in_b = (holders & 0b1010) != 0
        if in_a != in_b:
            pair = 0 if in_a else 1
            winner = _first_after(seat, holders)
            points = S[S_PIPS + (pair ^ 1)] + S[S_PIPS + (pair ^ 1) + 2]
            S[S_KIND] = KIND_TRANQUE
            S[S_WINNER] = winner
            S[S_VALUE] = points if pair == 0 else -points
        else:
            S[S_KIND] = KIND_TIED
            if S[S_TIED_MODE] == 0:
                S[S_WINNER] = -1
                S[S_VALUE] = 0
            else:
                pair = S[S_LEADER] & 1
                a = S[S_PIPS + pair]
                b = S[S_PIPS + pair + 2]
                best = a if a < b else b
                mine = 0
                if a == best:
                    mine |= 1 << pair
                if b == best:
                    mine |= 1 << (pair + 2)
                S[S_WINNER] = _first_after(seat, mine)
                points = S[S_PIPS + (pair ^ 1)] + S[S_PIPS + (pair ^ 1) + 2]
                S[S_VALUE] = points if pair == 0 else -points


@njit(cache=True)
def replay_moves(S: np.ndarray, moves: np.ndarray, n: int) -> None:
    for k in range(n):
        apply_move(S, moves[k])
