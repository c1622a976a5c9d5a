"""The time cap of a game (docs/tournaments.md, "Time cap"): when time is up, the hand in play is
finished and the pair ahead wins; level scores play one more hand, and so on.

Pure, and the one place that says it: the table (table/apply.py, at each hand's end, from the
logged times) and the simulated tournaments (tournament/simulate.py, on their simulated clock)
both ask ``time_up_winner`` and end the game with ``end_by_time``. Nothing here reads a clock:
the caller says when the hand ended and when the time was up, so a table rebuilt from its log
decides exactly as it did the first time.
"""

from __future__ import annotations

from dataclasses import replace

from tranque.rules.errors import WrongPhaseError
from tranque.rules.game import GameState, Phase


def time_up_winner(scores: tuple[int, int], ended_at: float, deadline: float | None) -> int | None:
    """The pair (0 = A, 1 = B) that wins by the time cap when a hand ends at ``ended_at`` with
    these ``scores``, or None: the game goes on (no cap, time not up yet, or level scores, which
    play one more hand).

    >>> time_up_winner((45, 30), 1200.0, 1200.0)
    0
    >>> time_up_winner((45, 45), 1300.0, 1200.0) is None
    True
    >>> time_up_winner((10, 80), 1199.0, 1200.0) is None
    True
    """
    if deadline is None or ended_at < deadline or scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1


def end_by_time(game: GameState, pair: int) -> GameState:
    """The game, between two hands, ended by the time cap with ``pair`` the winner: over, at
    the scores it has (the target not reached). Its hands are the ones played, so its record is
    the game as far as it went."""
    if game.phase is not Phase.DEAL or game.is_over:
        raise WrongPhaseError("a game is ended by the time cap only between two hands")
    if game.scores[pair] <= game.scores[pair ^ 1]:
        raise WrongPhaseError("the time cap's winner is the pair ahead")
    return replace(game, phase=Phase.OVER, winner=pair)
