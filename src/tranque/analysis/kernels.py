# mypy: disable-error-code="no-any-return"
"""The analysis's numba kernels: the exact endgame with a transposition table, and playouts that
count the bonuses a hand can still give.

Positions are the bots' (``bots.kernels``: one int64 array, moves as ``tile * 16 + end``); the
rules stay theirs (``apply_move``). What the analysis adds:

- **Bonuses.** A value is every point the pairs will score over the rest of the hand, so the
  bonuses that the bots' kernels leave out are counted here: Miami's first pass of the game
  (``fp_points`` to the passer's opponents, while ``fp_pending``) and Barrio's unanswered double
  lead (``lead_points`` to the leader's pair, at the lead only: ``lead_bonus``).
- **The exact value** (``solve``): negamax with alpha-beta over a whole position, every seat
  playing to maximise its pair's points minus the other pair's. Play alternates between the pairs
  at every turn, passes included, so the four-seat game is a two-sided one. A transposition table
  (``new_table``) keeps what each search learnt, keyed by the full position (the four hands,
  the ends, the turn, the pending first pass), so a hand's later decisions, and the other options
  of the same decision, reuse the searches of the earlier ones. Entries are checked against the
  whole key: a collision of the hash can only evict an entry, never answer for another position.

Numba caches each function by its own file: after a change to ``bots/kernels.py`` clear the
``__pycache__`` of this folder too (numba does not see a change in a callee's file).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tranque.bots import kernels as K

INF = 1 << 20  # above any hand's value

# Transposition table entry flags.
TT_EMPTY, TT_EXACT, TT_LOWER, TT_UPPER = 0, 1, 2, 3
TT_KEY = 5  # four hands and the packed rest of the position
MAX_DEPTH = 170  # plies from any position to the end: 40 plays with at most 3 passes between


def new_table(bits: int = 18) -> tuple[np.ndarray, np.ndarray]:
    """An empty transposition table of ``2**bits`` entries: (keys, data)."""
    keys = np.zeros((1 << bits, TT_KEY), np.int64)
    data = np.zeros((1 << bits, 3), np.int64)  # flag, value, best move
    return keys, data


@njit(cache=True)
def lead_bonus(S: np.ndarray, mv: int, lead_points: int) -> int:
    """Barrio's bonus that the lead ``mv`` earns in ``S`` (before it), signed for pair A: a
    double led that the next seat cannot answer."""
    if lead_points == 0 or S[K.S_NMOVES] != 0 or mv < 0:
        return 0
    idx = mv >> 4
    if K.T_HI[idx] != K.T_LO[idx]:
        return 0
    seat = S[K.S_TURN]
    nxt = S[K.S_HANDS + ((seat + 1) & 3)] & ~(np.int64(1) << idx)
    if nxt & K.NUM_MASK[K.T_HI[idx]]:
        return 0
    return lead_points if (seat & 1) == 0 else -lead_points


@njit(cache=True)
def pass_bonus(S: np.ndarray, mv: int, fp_pending: bool, fp_points: int) -> int:
    """Miami's bonus that the move ``mv`` earns in ``S`` (before it), signed for pair A."""
    if mv >= 0 or not fp_pending:
        return 0
    # The passer's opponents score it.
    return fp_points if (S[K.S_TURN] & 1) == 1 else -fp_points


@njit(cache=True)
def finish_heuristic(
    S: np.ndarray,
    W: np.ndarray,
    fp_pending: bool,
    fp_points: int,
    moves: np.ndarray,
    scores: np.ndarray,
) -> int:
    """Play ``S`` to the end with the heuristic in every seat (each from its own tiles and what
    is public); the points for pair A, the first-pass bonus included."""
    bonus = 0
    while S[K.S_KIND] == K.KIND_ON:
        n = K.legal_moves(S, moves)
        if n == 1:
            mv = moves[0]
        else:
            K.heuristic_scores(S, moves, n, W, scores)
            mv = moves[K.first_best(scores, n)]
        if mv < 0 and fp_pending:
            bonus += pass_bonus(S, mv, fp_pending, fp_points)
            fp_pending = False
        K.apply_move(S, mv)
    return S[K.S_VALUE] + bonus


# --------------------------------------------------------------------------------------------
# The exact value


@njit(cache=True)
def _slot(S: np.ndarray, fp: bool, mask: int) -> tuple[int, int]:
    """The table slot of a position and the packed rest of its key (ends, turn, first pass)."""
    # The two ends are interchangeable (the moves name a number, not a side): 4|9 is 9|4.
    lo = min(S[K.S_LEFT], S[K.S_RIGHT]) + 1
    hi = max(S[K.S_LEFT], S[K.S_RIGHT]) + 1
    packed = lo | (hi << 4) | (S[K.S_TURN] << 8) | (int(fp) << 10) | 2048
    h = packed * np.int64(-7046029254386353131)
    for s in range(4):
        h ^= S[K.S_HANDS + s] + np.int64(s + 1) * np.int64(-4658895280553007687)
        h *= np.int64(-4417276706812531889)
        h ^= h >> 29
    return h & mask, packed


@njit(cache=True)
def _matches(keys: np.ndarray, i: int, S: np.ndarray, packed: int) -> bool:
    return (
        keys[i, 4] == packed
        and keys[i, 0] == S[K.S_HANDS]
        and keys[i, 1] == S[K.S_HANDS + 1]
        and keys[i, 2] == S[K.S_HANDS + 2]
        and keys[i, 3] == S[K.S_HANDS + 3]
    )


@njit(cache=True)
def _order(S: np.ndarray, moves: np.ndarray, n: int, first: int) -> None:
    """Heavy tiles first (the table's best move, if it knows one, before them): a good move
    early makes the cuts."""
    for i in range(1, n):
        mv = moves[i]
        w = K.T_PIPS[mv >> 4] if mv >= 0 else -1
        if mv == first:
            w = 100
        j = i - 1
        while j >= 0:
            o = moves[j]
            wo = K.T_PIPS[o >> 4] if o >= 0 else -1
            if o == first:
                wo = 100
            if wo >= w:
                break
            moves[j + 1] = o
            j -= 1
        moves[j + 1] = mv
    if n > 0 and moves[0] != first:
        for i in range(1, n):
            if moves[i] == first:
                moves[i] = moves[0]
                moves[0] = first
                break


@njit(cache=True)
def solve(
    S: np.ndarray,
    fp_pending: bool,
    fp_points: int,
    keys: np.ndarray,
    data: np.ndarray,
) -> int:
    """The exact value of ``S`` for the pair to play: its points minus the other pair's over the
    rest of the hand, every seat playing perfectly with all hands face up.

    Iterative negamax with alpha-beta and the transposition table ``keys``/``data`` (numba's
    cache does not keep recursive functions safely). ``S`` must not be over.
    """
    mask = keys.shape[0] - 1
    stack = np.zeros((MAX_DEPTH, K.S_SIZE), np.int64)
    moves = np.zeros((MAX_DEPTH, 24), np.int64)
    # Per ply: children, next child, the window (and as it came, before the table narrowed it),
    # best, best move, the reward of the edge to the child being searched, first pass pending,
    # table slot, packed key.
    n_ch = np.zeros(MAX_DEPTH, np.int64)
    nxt = np.zeros(MAX_DEPTH, np.int64)
    alpha = np.zeros(MAX_DEPTH, np.int64)
    beta = np.zeros(MAX_DEPTH, np.int64)
    alpha0 = np.zeros(MAX_DEPTH, np.int64)
    beta0 = np.zeros(MAX_DEPTH, np.int64)
    best = np.zeros(MAX_DEPTH, np.int64)
    best_mv = np.zeros(MAX_DEPTH, np.int64)
    reward = np.zeros(MAX_DEPTH, np.int64)
    fp = np.zeros(MAX_DEPTH, np.bool_)
    slot = np.zeros(MAX_DEPTH, np.int64)
    packed = np.zeros(MAX_DEPTH, np.int64)
    stack[0, :] = S
    fp[0] = fp_pending
    d = 0
    a = -INF
    b = INF
    entering = True
    v = 0
    while True:
        if entering:
            # Open ply d with window (a, b): answer from the table if it can, else list moves.
            entering = False
            P = stack[d]
            i, pk = _slot(P, fp[d], mask)
            slot[d] = i
            packed[d] = pk
            alpha0[d] = a
            beta0[d] = b
            first = -2
            answered = False
            if data[i, 0] != TT_EMPTY and _matches(keys, i, P, pk):
                tv = data[i, 1]
                flag = data[i, 0]
                first = data[i, 2]
                if flag == TT_EXACT:
                    answered = True
                elif flag == TT_LOWER and tv > a:
                    a = tv
                elif flag == TT_UPPER and tv < b:
                    b = tv
                if not answered and a >= b:
                    answered = True
                v = tv
            if not answered:
                # What the rest can be worth: at most the other pair's pips (capicúa
                # doubling them), at least minus our own; a window outside that is settled.
                mult = P[K.S_CAPICUA_MULT]
                me = P[K.S_TURN] & 1
                extra = fp_points if fp[d] else 0
                hi = mult * (P[K.S_PIPS + (me ^ 1)] + P[K.S_PIPS + (me ^ 1) + 2]) + extra
                lo = -mult * (P[K.S_PIPS + me] + P[K.S_PIPS + me + 2]) - extra
                if hi <= a:
                    answered = True
                    v = hi
                elif lo >= b:
                    answered = True
                    v = lo
            if not answered:
                n_ch[d] = K.legal_moves(P, moves[d])
                _order(P, moves[d], n_ch[d], first)
                nxt[d] = 0
                alpha[d] = a
                beta[d] = b
                best[d] = -INF
                best_mv[d] = -2
                continue
            # Answered: fall through to return v to the parent.
        elif nxt[d] < n_ch[d] and alpha[d] < beta[d]:
            mv = moves[d, nxt[d]]
            nxt[d] += 1
            P = stack[d]
            sign = 1 if (P[K.S_TURN] & 1) == 0 else -1
            r = sign * pass_bonus(P, mv, fp[d], fp_points)
            child = stack[d + 1]
            child[:] = P
            K.apply_move(child, mv)
            if child[K.S_KIND] != K.KIND_ON:
                cv = r + sign * child[K.S_VALUE]
                if cv > best[d]:
                    best[d] = cv
                    best_mv[d] = mv
                    if cv > alpha[d]:
                        alpha[d] = cv
                continue
            reward[d] = r
            fp[d + 1] = fp[d] and mv >= 0
            # The mover's value is r - (the child's value): the child's window is reflected.
            a = r - beta[d]
            b = r - alpha[d]
            d += 1
            entering = True
            continue
        else:
            # Ply d is done: remember what it learnt. Against the window as it came: where the
            # table's bounds narrowed it, a result on a bound is the exact value.
            v = best[d]
            i = slot[d]
            flag = TT_EXACT
            if v <= alpha0[d]:
                flag = TT_UPPER
            elif v >= beta0[d]:
                flag = TT_LOWER
            P = stack[d]
            for s in range(4):
                keys[i, s] = P[K.S_HANDS + s]
            keys[i, 4] = packed[d]
            data[i, 0] = flag
            data[i, 1] = v
            data[i, 2] = best_mv[d]
        # Return v to ply d - 1.
        if d == 0:
            return v
        d -= 1
        cv = reward[d] - v
        if cv > best[d]:
            best[d] = cv
            best_mv[d] = moves[d, nxt[d] - 1]
            if cv > alpha[d]:
                alpha[d] = cv


@njit(cache=True)
def option_values(
    S: np.ndarray,
    cands: np.ndarray,
    n_cands: int,
    fp_pending: bool,
    fp_points: int,
    lead_points: int,
    keys: np.ndarray,
    data: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[a]``: the exact value of candidate ``a`` of the seat to play in the full position
    ``S``, for its pair (its bonuses included)."""
    sign = 1 if (S[K.S_TURN] & 1) == 0 else -1
    child = np.zeros(K.S_SIZE, np.int64)
    for a in range(n_cands):
        mv = cands[a]
        r = sign * (pass_bonus(S, mv, fp_pending, fp_points) + lead_bonus(S, mv, lead_points))
        child[:] = S
        K.apply_move(child, mv)
        if child[K.S_KIND] != K.KIND_ON:
            out[a] = r + sign * child[K.S_VALUE]
        else:
            out[a] = r - solve(child, fp_pending and mv >= 0, fp_points, keys, data)


@njit(cache=True)
def estimate_values(
    S: np.ndarray,
    cands: np.ndarray,
    n_cands: int,
    fp_pending: bool,
    fp_points: int,
    lead_points: int,
    exact_tiles: int,
    W: np.ndarray,
    keys: np.ndarray,
    data: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[a]``: an estimate of candidate ``a``'s value in the full position ``S`` for the
    mover's pair: the heuristic plays every seat until at most ``exact_tiles`` tiles are left
    in the hands, then the rest is solved exactly."""
    me = S[K.S_TURN]
    sign = 1 if (me & 1) == 0 else -1
    child = np.zeros(K.S_SIZE, np.int64)
    moves = np.zeros(64, np.int64)
    scores = np.zeros(64, np.float64)
    for a in range(n_cands):
        mv = cands[a]
        total = pass_bonus(S, mv, fp_pending, fp_points) + lead_bonus(S, mv, lead_points)
        fp = fp_pending and mv >= 0
        child[:] = S
        K.apply_move(child, mv)
        while child[K.S_KIND] == K.KIND_ON and K.hand_tiles_left(child) > exact_tiles:
            n = K.legal_moves(child, moves)
            if n == 1:
                m = moves[0]
            else:
                K.heuristic_scores(child, moves, n, W, scores)
                m = moves[K.first_best(scores, n)]
            if m < 0 and fp:
                total += pass_bonus(child, m, fp, fp_points)
                fp = False
            K.apply_move(child, m)
        if child[K.S_KIND] != K.KIND_ON:
            out[a] = sign * (total + child[K.S_VALUE])
        else:
            mover = 1 if (child[K.S_TURN] & 1) == (me & 1) else -1
            out[a] = sign * total + mover * solve(child, fp, fp_points, keys, data)


@njit(cache=True)
def fair_matrix(
    Sv: np.ndarray,
    me: int,
    worlds: np.ndarray,
    n_worlds: int,
    cands: np.ndarray,
    n_cands: int,
    W: np.ndarray,
    fp_pending: bool,
    fp_points: int,
    lead_points: int,
    out: np.ndarray,
) -> None:
    """``out[j, a]``: the points for ``me``'s pair of candidate ``a`` in posterior world ``j``
    (bonuses included), the rest of the hand played by the heuristic in every seat: the strong
    bot's evaluation (``bots.kernels.evaluate_matrix``) in points, nothing else."""
    base = np.zeros(K.S_SIZE, np.int64)
    S = np.zeros(K.S_SIZE, np.int64)
    moves = np.zeros(64, np.int64)
    scores = np.zeros(64, np.float64)
    sign = 1 if (me & 1) == 0 else -1
    for j in range(n_worlds):
        base[:] = Sv
        for s in range(4):
            base[K.S_HANDS + s] = worlds[j, s]
            base[K.S_PIPS + s] = K.mask_pips(worlds[j, s])
        base[K.S_KIND] = K.KIND_ON
        base[K.S_VALUE] = 0
        base[K.S_WINNER] = -1
        for a in range(n_cands):
            mv = cands[a]
            S[:] = base
            bonus = pass_bonus(S, mv, fp_pending, fp_points) + lead_bonus(S, mv, lead_points)
            K.apply_move(S, mv)
            v = finish_heuristic(S, W, fp_pending and mv >= 0, fp_points, moves, scores)
            out[j, a] = sign * (v + bonus)
