# mypy: disable-error-code="no-any-return"
"""Inference and search for the strong bot on the fast path: the worlds (the hidden hands)
consistent with what a seat has seen, sampled directly or by MCMC weighted by how likely each
seat's plays were, and the matrix of each move's value over them."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from tranque.bots.kernels.endgame import hand_tiles_left, solve_exact
from tranque.bots.kernels.heuristic import first_best, heuristic_scores
from tranque.bots.kernels.playouts import playout_heuristic
from tranque.bots.kernels.position import (
    KIND_ON,
    N_TILES,
    S_CAPICUA_MULT,
    S_COUNT,
    S_HANDS,
    S_KIND,
    S_LEADER,
    S_PIPS,
    S_PLAYED,
    S_PLAYED_BY,
    S_SET_MASK,
    S_SIZE,
    S_TIED_MODE,
    S_TURN,
    S_VALUE,
    S_VOID,
    S_WINNER,
    T_HI,
    T_LO,
    apply_move,
    legal_moves,
    mask_pips,
    new_state,
    popcount,
    rng_float,
    rng_seed,
)


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
