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

import math
import time

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


# --------------------------------------------------------------------------------------------
# The heuristic: what Cuban players teach, as a score per move


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


# --------------------------------------------------------------------------------------------
# Playouts


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


# --------------------------------------------------------------------------------------------
# Exact endgame: minimax with alpha-beta on a fully determinised position


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


# --------------------------------------------------------------------------------------------
# Inference and search for the strong bot


@njit(cache=True)
def sample_worlds(
    Sv: np.ndarray, me: int, n: int, rng: np.ndarray, out_hands: np.ndarray, out_logq: np.ndarray
) -> int:
    """Deal the tiles ``me`` cannot see to the other three seats and the sleepers, ``n`` times.

    Every world respects what is public: tile counts, the tiles played, and each pass (a seat
    that passed holds no tile of the numbers it passed on). Tiles with fewer possible owners go
    first; each goes to an owner in proportion to its free places. ``out_logq`` is the log of
    each world's proposal probability, for importance weights. Returns the number dealt.
    """
    unseen = Sv[S_SET_MASK] & ~Sv[S_PLAYED] & ~Sv[S_HANDS + me]
    tiles = np.empty(N_TILES, np.int64)
    allowed = np.empty(N_TILES, np.int64)
    nt = 0
    for i in range(N_TILES):
        if (unseen >> i) & 1:
            tiles[nt] = i
            nt += 1
    owners = np.empty(3, np.int64)
    caps0 = np.zeros(4, np.int64)  # three other seats, then the sleepers
    placed = 0
    for k in range(3):
        owners[k] = (me + 1 + k) & 3
        caps0[k] = Sv[S_COUNT + owners[k]]
        placed += caps0[k]
    caps0[3] = nt - placed
    if caps0[3] < 0:
        return 0
    order = np.empty(N_TILES, np.int64)
    keys = np.empty(N_TILES, np.int64)
    caps = np.zeros(4, np.int64)
    made = 0
    attempts = 0
    while made < n and attempts < 50 * n + 100:
        attempts += 1
        # Random order, then most constrained first (stable over the shuffle).
        for j in range(nt):
            order[j] = tiles[j]
        for j in range(nt - 1, 0, -1):
            r = int(rng_float(rng) * (j + 1))
            t = order[j]
            order[j] = order[r]
            order[r] = t
        for j in range(nt):
            i = order[j]
            a = 8  # the sleepers take anything
            for k in range(3):
                v = Sv[S_VOID + owners[k]]
                if not ((v >> T_HI[i]) & 1) and not ((v >> T_LO[i]) & 1):
                    a |= 1 << k
            allowed[i] = a
            keys[j] = popcount(a)
        # insertion sort by number of owners
        for j in range(1, nt):
            kj = keys[j]
            oj = order[j]
            m = j - 1
            while m >= 0 and keys[m] > kj:
                keys[m + 1] = keys[m]
                order[m + 1] = order[m]
                m -= 1
            keys[m + 1] = kj
            order[m + 1] = oj
        for k in range(4):
            caps[k] = caps0[k]
        h0 = 0
        h1 = 0
        h2 = 0
        logq = 0.0
        ok = True
        for j in range(nt):
            i = order[j]
            a = allowed[i]
            total = 0
            for k in range(4):
                if (a >> k) & 1:
                    total += caps[k]
            if total == 0:
                ok = False
                break
            x = rng_float(rng) * total
            pick = 3
            for k in range(4):
                if (a >> k) & 1 and caps[k] > 0:
                    x -= caps[k]
                    if x < 0.0:
                        pick = k
                        break
            if not ((a >> pick) & 1) or caps[pick] == 0:
                for k in range(4):
                    if (a >> k) & 1 and caps[k] > 0:
                        pick = k
            logq += math.log(caps[pick] / total)
            caps[pick] -= 1
            bit = np.int64(1) << i
            if pick == 0:
                h0 |= bit
            elif pick == 1:
                h1 |= bit
            elif pick == 2:
                h2 |= bit
        if not ok:
            continue
        for s in range(4):
            out_hands[made, s] = 0
        out_hands[made, me] = Sv[S_HANDS + me]
        out_hands[made, owners[0]] = h0
        out_hands[made, owners[1]] = h1
        out_hands[made, owners[2]] = h2
        out_logq[made] = logq
        made += 1
    return made


@njit(cache=True)
def _utility(v: int, me: int, my_score: int, opp_score: int, target: int, game_w: float) -> float:
    d = v if (me & 1) == 0 else -v
    u = float(d)
    if target > 0:
        if d > 0 and my_score + d >= target:
            u += game_w
        elif d < 0 and opp_score - d >= target:
            u -= game_w
    return u


@njit(cache=True)
def decision_points(
    Sv: np.ndarray,
    me: int,
    codes: np.ndarray,
    ncodes: int,
    tiles_each: int,
    snaps: np.ndarray,
    pt_seat: np.ndarray,
    pt_future: np.ndarray,
    pt_move: np.ndarray,
) -> int:
    """The public position before each tile played by another seat, that seat, the tiles it
    played from then on (its hidden hand at that moment is its current one plus these), and the
    move. Returns the number of points."""
    init = np.zeros(4, np.int64)
    init[me] = Sv[S_HANDS + me] | Sv[S_PLAYED_BY + me]
    S = new_state(
        init, Sv[S_LEADER], tiles_each, Sv[S_CAPICUA_MULT], Sv[S_TIED_MODE], Sv[S_SET_MASK]
    )
    n = 0
    for k in range(ncodes):
        mv = codes[k]
        seat = S[S_TURN]
        if seat != me and mv >= 0:
            snaps[n, :] = S
            pt_seat[n] = seat
            pt_future[n] = Sv[S_PLAYED_BY + seat] & ~S[S_PLAYED_BY + seat]
            pt_move[n] = mv
            n += 1
        apply_move(S, mv)
    return n


@njit(cache=True)
def seat_loglik(
    seat: int,
    hidden: int,
    snaps: np.ndarray,
    pt_seat: np.ndarray,
    pt_future: np.ndarray,
    pt_move: np.ndarray,
    npts: int,
    W: np.ndarray,
    log_best: float,
    eps: float,
    tmp: np.ndarray,
    moves: np.ndarray,
    scores: np.ndarray,
) -> float:
    """Log-likelihood of ``seat``'s plays if its hidden hand now is ``hidden``."""
    total = 0.0
    for p in range(npts):
        if pt_seat[p] != seat:
            continue
        hand = hidden | pt_future[p]
        tmp[:] = snaps[p]
        tmp[S_HANDS + seat] = hand
        tmp[S_PIPS + seat] = mask_pips(hand)
        n = legal_moves(tmp, moves)
        if n == 1:
            continue
        heuristic_scores(tmp, moves, n, W, scores)
        if moves[first_best(scores, n)] == pt_move[p]:
            total += log_best
        else:
            total += math.log(eps / (n - 1))
    return total


@njit(cache=True)
def mcmc_worlds(
    Sv: np.ndarray,
    me: int,
    codes: np.ndarray,
    ncodes: int,
    tiles_each: int,
    W: np.ndarray,
    eps: float,
    n_chains: int,
    burn: int,
    thin: int,
    per_chain: int,
    seed: int,
    out_hands: np.ndarray,
) -> int:
    """Sample worlds from the posterior given the other seats' plays (heuristic model, ``eps``).

    ``n_chains`` independent chains, each started from a world consistent with counts, played
    tiles and passes (``sample_worlds``); a step proposes to swap two hidden tiles between two
    places (hands or sleepers) that may hold them (passes respected) and accepts by the
    likelihood ratio (Metropolis). After ``burn`` steps, a world every ``thin`` steps,
    ``per_chain`` per chain. Returns the number of worlds written to ``out_hands``.
    """
    rng = np.zeros(1, np.uint64)
    rng_seed(rng, seed, 3)
    maxp = ncodes + 1
    snaps = np.zeros((maxp, S_SIZE), np.int64)
    pt_seat = np.zeros(maxp, np.int64)
    pt_future = np.zeros(maxp, np.int64)
    pt_move = np.zeros(maxp, np.int64)
    npts = decision_points(Sv, me, codes, ncodes, tiles_each, snaps, pt_seat, pt_future, pt_move)
    tmp = np.zeros(S_SIZE, np.int64)
    moves = np.zeros(64, np.int64)
    scores = np.zeros(64, np.float64)
    log_best = math.log(1.0 - eps)
    unseen = Sv[S_SET_MASK] & ~Sv[S_PLAYED] & ~Sv[S_HANDS + me]
    tiles = np.empty(N_TILES, np.int64)
    nt = 0
    for i in range(N_TILES):
        if (unseen >> i) & 1:
            tiles[nt] = i
            nt += 1
    owners = np.empty(3, np.int64)
    for k in range(3):
        owners[k] = (me + 1 + k) & 3
    # ok[t, k]: place k (0-2 the owners, 3 the sleepers) may hold tile t (its passes allow it)
    ok = np.ones((N_TILES, 4), np.bool_)
    for t in range(nt):
        i = tiles[t]
        for k in range(3):
            v = Sv[S_VOID + owners[k]]
            if ((v >> T_HI[i]) & 1) or ((v >> T_LO[i]) & 1):
                ok[t, k] = False
    one = np.zeros((1, 4), np.int64)
    logq = np.zeros(1, np.float64)
    loc = np.zeros(N_TILES, np.int64)
    hid = np.zeros(4, np.int64)
    ll = np.zeros(4, np.float64)
    place = np.zeros(2, np.int64)
    new_hid = np.zeros(2, np.int64)
    new_ll = np.zeros(2, np.float64)
    # Everything but the seat and its hand that the likelihood of a seat's plays depends on.
    model = (snaps, pt_seat, pt_future, pt_move, npts, W, log_best, eps, tmp, moves, scores)
    made = 0
    for _c in range(n_chains):
        if sample_worlds(Sv, me, 1, rng, one, logq) == 0:
            return made
        for k in range(3):
            hid[k] = one[0, owners[k]]
        hid[3] = 0
        for t in range(nt):
            bit = np.int64(1) << tiles[t]
            loc[t] = 3
            for k in range(3):
                if hid[k] & bit:
                    loc[t] = k
            if loc[t] == 3:
                hid[3] |= bit
        for k in range(3):
            ll[k] = seat_loglik(owners[k], hid[k], *model)
        steps = burn + thin * per_chain
        for step in range(1, steps + 1):
            if nt >= 2:
                a = int(rng_float(rng) * nt)
                b = int(rng_float(rng) * nt)
                la = loc[a]
                lb = loc[b]
                if la != lb and ok[a, lb] and ok[b, la]:
                    ba = np.int64(1) << tiles[a]
                    bb = np.int64(1) << tiles[b]
                    # The two places after the swap; a seat's likelihood changes, not the
                    # sleepers' (place 3, which made no plays).
                    place[0], place[1] = la, lb
                    new_hid[0] = (hid[la] & ~ba) | bb
                    new_hid[1] = (hid[lb] & ~bb) | ba
                    delta = 0.0
                    for j in range(2):
                        if place[j] < 3:
                            new_ll[j] = seat_loglik(owners[place[j]], new_hid[j], *model)
                            delta += new_ll[j] - ll[place[j]]
                    if delta >= 0.0 or rng_float(rng) < math.exp(delta):
                        loc[a] = lb
                        loc[b] = la
                        for j in range(2):
                            hid[place[j]] = new_hid[j]
                            if place[j] < 3:
                                ll[place[j]] = new_ll[j]
            if step > burn and (step - burn) % thin == 0 and made < out_hands.shape[0]:
                for s in range(4):
                    out_hands[made, s] = 0
                out_hands[made, me] = Sv[S_HANDS + me]
                for k in range(3):
                    out_hands[made, owners[k]] = hid[k]
                made += 1
    return made


@njit(cache=True)
def evaluate_matrix(
    Sv: np.ndarray,
    me: int,
    worlds: np.ndarray,
    n_worlds: int,
    cands: np.ndarray,
    n_cands: int,
    W: np.ndarray,
    endgame_tiles: int,
    my_score: int,
    opp_score: int,
    target: int,
    game_w: float,
    out: np.ndarray,
) -> None:
    """``out[j, a]``: utility for ``me``'s pair of candidate ``a`` in world ``j``, the rest of the
    hand played by the heuristic in every seat (each from its own tiles and what is public), or
    solved exactly once at most ``endgame_tiles`` tiles are left in hands."""
    base = np.zeros(S_SIZE, np.int64)
    S = np.zeros(S_SIZE, np.int64)
    rng = np.zeros(1, np.uint64)
    moves = np.zeros(64, np.int64)
    scores = np.zeros(64, np.float64)
    for j in range(n_worlds):
        base[:] = Sv
        for s in range(4):
            base[S_HANDS + s] = worlds[j, s]
            base[S_PIPS + s] = mask_pips(worlds[j, s])
        base[S_KIND] = KIND_ON
        base[S_VALUE] = 0
        base[S_WINNER] = -1
        for a in range(n_cands):
            S[:] = base
            apply_move(S, cands[a])
            if S[S_KIND] != KIND_ON:
                v = S[S_VALUE]
            elif hand_tiles_left(S) <= endgame_tiles:
                v = solve_exact(S)
            else:
                v = playout_heuristic(S, W, 0.0, rng, moves, scores)
            out[j, a] = _utility(v, me, my_score, opp_score, target, game_w)
