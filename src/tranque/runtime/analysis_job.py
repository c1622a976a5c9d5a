"""``AnalysisRequest``: one hand of a finished game for a worker of the pool to analyse.

The analysis of a game is cut into one request per hand, so that a worker is never busy for
long (a hand's fair analysis of two seats is a few seconds) and the bots' decisions, which the
pool always serves first, wait at most one hand's analysis. Plain data in and out, pickled across
the pipe like a ``ThinkRequest``.

A hand is rated exactly as ``tranque analyze`` rates it in the whole record (the same worlds: a
fair decision's seed is made of the game's place in its match, the hand's number and the move's),
so the stored analysis of a game is the JSON ``tranque analyze RECORD --seat S ... --json``
prints, put together hand by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class AnalysisRequest:
    table_id: str
    record: dict[str, Any]  # the table's record: tranque-game/1, or tranque-match/1
    seats: tuple[int, ...]
    mode: str  # "fair" | "hindsight" | "screen" (the whole record: fairplay.screen_record)
    hand: int  # the hand's number in its game
    game: int = 1  # the game's number in the match, from 1 (1 for a game record)


def run_analysis(request: AnalysisRequest) -> dict[str, Any]:
    """The ``tranque-analysis/1`` JSON of the request's hand alone: ``{"format", "mode",
    "hands": [{"number", "plays"}]}`` (``analysis.analyze_record`` for a game record; the same
    engine on the one hand of the match's game otherwise)."""
    from tranque.analysis import analyze_record

    record, mode, seats = request.record, request.mode, request.seats
    if mode == "screen":
        # The fair-play screen of the whole game (its people's seats), after its analysis: a
        # few seconds of a worker, like a hand's analysis, never the event loop's.
        from tranque.fairplay.screen import screen_record

        return screen_record(record)
    if record.get("format") != "tranque-match/1":
        return analyze_record(record, seats=seats, mode=mode, hand=request.hand)
    from tranque.analysis.engine import FORMAT, MODES, AnalysisError, hands_of, rate_hand

    if mode not in MODES:
        raise AnalysisError(f"mode must be 'fair' or 'hindsight', not {mode!r}")
    games = hands_of(record)
    if not 1 <= request.game <= len(games):
        raise AnalysisError(f"no game {request.game}: the match has {len(games)}")
    found = [h for h in games[request.game - 1] if h.number == request.hand]
    if not found:
        raise AnalysisError(f"no hand {request.hand} in game {request.game}")
    plays = [r.to_json() for r in rate_hand(found[0], seats, mode)]
    return {"format": FORMAT, "mode": mode, "hands": [{"number": request.hand, "plays": plays}]}


__all__ = ["AnalysisRequest", "run_analysis"]
