"""Confidence intervals and the summary of an arena run.

Win rates get a Wilson score interval. Points per hand get a normal interval over the duplicate
pairs (one deal, or one game, played both ways), because the pair is the unit whose luck cancels.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from tranque.arena.match import UnitResult

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float, float]:
    """(rate, low, high) of a Wilson score interval; (nan, nan, nan) when n is 0."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (p, max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high) of a normal interval for the mean."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = math.fsum(values) / n
    if n == 1:
        return (mean, math.nan, math.nan)
    half = z * statistics.stdev(values) / math.sqrt(n)
    return (mean, mean - half, mean + half)


def _interval(t: tuple[float, float, float]) -> dict[str, float]:
    return {"value": t[0], "low": t[1], "high": t[2]}


def summarize(units: Sequence[UnitResult], name_a: str, name_b: str) -> dict[str, Any]:
    """Every figure the arena reports, from bot A's side, as plain JSON-ready data."""
    hands = [h for u in units for h in u.hands]
    n = len(hands)
    a_won = sum(1 for h in hands if h.winner == "A")
    b_won = sum(1 for h in hands if h.winner == "B")
    tied = sum(1 for h in hands if h.winner is None)
    tranques = sum(1 for h in hands if h.kind != "pegarse")
    decided = a_won + b_won
    per_unit_diff = [
        math.fsum(h.points_a - h.points_b for h in u.hands) / len(u.hands) for u in units if u.hands
    ]
    per_unit_a = [math.fsum(h.points_a for h in u.hands) / len(u.hands) for u in units if u.hands]
    per_unit_b = [math.fsum(h.points_b for h in u.hands) / len(u.hands) for u in units if u.hands]
    out: dict[str, Any] = {
        "bots": {"A": name_a, "B": name_b},
        "pairs": len(units),
        "hands": {
            "played": n,
            "won_a": a_won,
            "won_b": b_won,
            "tied_blocks": tied,
            "win_rate_a": _interval(wilson(a_won, decided)),
            "win_share_a_of_all": _interval(wilson(a_won, n)),
            "tranque_rate": _interval(wilson(tranques, n)),
            "tied_block_rate": _interval(wilson(tied, n)),
            "points_per_hand_a": _interval(mean_interval(per_unit_a)),
            "points_per_hand_b": _interval(mean_interval(per_unit_b)),
            "points_per_hand_diff": _interval(mean_interval(per_unit_diff)),
        },
        "times": {},
    }
    games = [g for u in units for g in u.games]
    if games:
        ga = sum(1 for g in games if g.winner == "A")
        out["games"] = {
            "played": len(games),
            "won_a": ga,
            "won_b": len(games) - ga,
            "win_rate_a": _interval(wilson(ga, len(games))),
            "pollonas_a": sum(1 for g in games if g.winner == "A" and g.pollona),
            "pollonas_b": sum(1 for g in games if g.winner == "B" and g.pollona),
            "hands_per_game": math.fsum(len(g.hands) for g in games) / len(games),
        }
    for label, name in (("A", name_a), ("B", name_b)):
        times = [t for u in units for t in u.times[label]]
        out["times"][label] = {
            "bot": name,
            "decisions": len(times),
            "median_ms": 1000 * statistics.median(times) if times else math.nan,
            "worst_ms": 1000 * max(times) if times else math.nan,
        }
    return out
