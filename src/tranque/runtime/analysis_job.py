"""``AnalysisRequest``: one hand of a finished game for a worker of the pool to analyse.

The analysis of a game is cut into one request per hand, so that a worker is never busy for
long (a hand's fair analysis of two seats is a few seconds) and the bots' decisions, which the
pool always serves first, wait at most one hand's analysis. Plain data in and out, pickled across
the pipe like a ``ThinkRequest``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class AnalysisRequest:
    table_id: str
    record: dict[str, Any]  # a tranque-game/1 record (one game of a match)
    seats: tuple[int, ...]
    mode: str  # "fair" | "hindsight"
    hand: int  # the hand's number in its game


def run_analysis(request: AnalysisRequest) -> dict[str, Any]:
    """The ``tranque-analysis/1`` JSON of the request's hand (``analysis.analyze_record``)."""
    from tranque.analysis import analyze_record

    return analyze_record(request.record, seats=request.seats, mode=request.mode, hand=request.hand)


__all__ = ["AnalysisRequest", "run_analysis"]
