"""``tranque bench analysis``: how long a hand's analysis takes, and how stable fair values are.

Hands the heuristic played under Havana rules (each deal from the seed), analysed fair one seat
at a time (the issue's bound: 3 s a seat) and in hindsight all four seats at once (1.5 s a hand).
Everything runs on this process's one thread; both wall and CPU seconds are given, since a shared
machine stretches the first and hardly the second. Compare figures as ratios within one run.
With ``--estimates K``, K hindsight decisions just above the exact horizon are also solved
exactly, to say how far the estimates are from the truth there.
"""

from __future__ import annotations

import platform
import random
import statistics
import time
from typing import Any

import numpy as np

from tranque.analysis import engine as E
from tranque.bots import kernels as K
from tranque.bots.base import make_bot
from tranque.rules.dealing import random_deal
from tranque.rules.game import GameState
from tranque.rules.hand import HandState
from tranque.rules.variants import HAVANA
from tranque.rules.views import seat_view

FAIR_BOUND_S = 3.0
HINDSIGHT_BOUND_S = 1.5


def heuristic_hands(n: int, seed: int) -> list[E.HandToRate]:
    """``n`` complete Havana hands, the heuristic in every seat, deal ``i`` led by seat i mod 4."""
    bot = make_bot("heuristic")
    out = []
    for i in range(n):
        hand = HandState.start(
            HAVANA, random_deal(HAVANA, random.Random(seed * 100_003 + i)), i % 4
        )
        while not hand.is_over:
            hand = hand.apply(bot.choose_action(seat_view(GameState.for_hand(hand), hand.turn)))
        out.append(E.hand_to_rate(0, 1, hand))
    return out


def _timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def bench_analysis(n_hands: int, seed: int, estimates: int = 0) -> dict[str, Any]:
    hands = heuristic_hands(n_hands, seed)
    _, load_s, _ = _timed(lambda: _warm_up(hands[0]))
    fair_wall, fair_cpu, per_decision, ses, loss_ses, decisions = [], [], [], [], [], []
    for hand in hands:
        for seat in range(4):
            ratings, wall, cpu = _timed(lambda h=hand, s=seat: E.rate_hand(h, (s,), "fair", seed))
            fair_wall.append(wall)
            fair_cpu.append(cpu)
            decisions.append(len(ratings))
            per_decision += [cpu / len(ratings)] * len(ratings)
            for r in ratings:
                assert r.se is not None and r.loss_se is not None
                ses += r.se
                if r.loss_se > 0:
                    loss_ses.append(r.loss_se)
    hs_wall, hs_cpu, exact, hs_decisions = [], [], 0, 0
    for hand in hands:
        ratings, wall, cpu = _timed(lambda h=hand: E.rate_hand(h, (0, 1, 2, 3), "hindsight"))
        hs_wall.append(wall)
        hs_cpu.append(cpu)
        hs_decisions += len(ratings)
        exact += sum(1 for r in ratings if r.exact)
    budget = E.FAIR
    figures: dict[str, Any] = {
        "python": platform.python_version(),
        "hands": n_hands,
        "kernels_load_s": round(load_s, 2),
        "fair_worlds_per_decision": budget.chains * budget.per_chain,
        "fair_decisions_per_seat_hand": round(statistics.mean(decisions), 1),
        "fair_s_per_seat_hand_median": round(statistics.median(fair_wall), 3),
        "fair_s_per_seat_hand_max": round(max(fair_wall), 3),
        "fair_cpu_s_per_seat_hand_max": round(max(fair_cpu), 3),
        "fair_ms_per_decision_median": round(1000 * statistics.median(per_decision), 1),
        "fair_value_se_median": round(statistics.median(ses), 2),
        "fair_value_se_p90": round(float(np.percentile(ses, 90)), 2),
        "fair_loss_se_median": round(statistics.median(loss_ses), 2) if loss_ses else 0.0,
        "fair_bound_s": FAIR_BOUND_S,
        "fair_within_bound": max(fair_cpu) <= FAIR_BOUND_S,
        "hindsight_exact_tiles": E.EXACT_TILES,
        "hindsight_decisions_per_hand": round(hs_decisions / n_hands, 1),
        "hindsight_exact_share": round(exact / max(1, hs_decisions), 3),
        "hindsight_s_per_hand_median": round(statistics.median(hs_wall), 3),
        "hindsight_s_per_hand_max": round(max(hs_wall), 3),
        "hindsight_cpu_s_per_hand_max": round(max(hs_cpu), 3),
        "hindsight_bound_s": HINDSIGHT_BOUND_S,
        "hindsight_within_bound": max(hs_cpu) <= HINDSIGHT_BOUND_S,
    }
    if estimates:
        figures.update(estimate_error(hands, estimates))
    return figures


def _warm_up(hand: E.HandToRate) -> None:
    """Load (or compile) every kernel before anything is timed."""
    small = E.FairBudget(chains=2, burn=10, thin=1, per_chain=2)
    E.rate_hand(hand, (hand.leader,), "fair", 0, small)
    E.rate_hand(hand, (0, 1, 2, 3), "hindsight")


def estimate_error(hands: list[E.HandToRate], k: int) -> dict[str, Any]:
    """How far hindsight's estimates are from the exact values, a few plays before the
    horizon: decisions with ``EXACT_TILES`` + 1 to + 4 tiles in hands, solved both ways."""
    errors: list[float] = []
    loss_errors: list[float] = []
    same_best = seen = 0
    for hand in hands:
        estimating = E.HindsightHand(hand)
        solving = E.HindsightHand(hand, exact_tiles=E.EXACT_TILES + 4)
        for index, state in E.decisions(hand, (0, 1, 2, 3)):
            estimating.advance_to(index, hand)
            left = K.hand_tiles_left(estimating.S)
            if not E.EXACT_TILES < left <= E.EXACT_TILES + 4:
                continue
            solving.advance_to(index, hand)
            guess = estimating.rate(state, index, hand.moves[index])
            truth = solving.rate(state, index, hand.moves[index])
            errors += [abs(a - b) for a, b in zip(guess.values, truth.values, strict=True)]
            loss_errors.append(abs(_loss(guess) - _loss(truth)))
            same_best += _best(guess) == _best(truth)
            seen += 1
            if seen == k:
                break
        if seen == k:
            break
    return {
        "estimate_decisions_checked": seen,
        "estimate_value_error_mean": round(statistics.mean(errors), 2) if errors else None,
        "estimate_loss_error_mean": round(statistics.mean(loss_errors), 2) if seen else None,
        "estimate_same_best_share": round(same_best / seen, 3) if seen else None,
    }


def _loss(r: E.Rating) -> float:
    return max(r.values) - r.values[r.played]


def _best(r: E.Rating) -> int:
    return max(range(len(r.values)), key=lambda i: r.values[i])
