"""Heuristic bots: what Cuban players teach, as weighted features of each legal move.

- ``greedy``: botar la gorda only: the heaviest tile that fits (a double first among equals).
- ``heuristic``: every teaching together (see ``kernels.heuristic_scores``): botar la gorda; la más
  acompañada (leave open the number you hold most of); keep the hand varied across numbers; do not
  kill the number your partner is playing; close the numbers the opponents passed on (and not the
  ones your partner passed on); count pips so that a tranque you make is one you win. It is the bot
  the clock plays with, the rollout policy of ``strong`` and its model of the other players.

Both are deterministic: the seed is accepted for the registry's sake and not used.
"""

from __future__ import annotations

import numpy as np

from tranque.bots import kernels as K
from tranque.bots.base import register_bot
from tranque.bots.convert import action_code, sample_view, view_state
from tranque.rules.game import LeadChoice
from tranque.rules.hand import Action
from tranque.rules.tiles import DOUBLES_MASK, NUMBER_MASK, Tile, mask_of
from tranque.rules.views import SeatView


def _weights(**kw: float) -> np.ndarray:
    w = np.zeros(K.N_WEIGHTS, np.float64)
    for name, value in kw.items():
        w[getattr(K, "W_" + name.upper())] = value
    return w


HEURISTIC_WEIGHTS = _weights(
    pips=1.0,
    double=3.0,
    accomp=2.5,
    mobility=1.0,
    variety=2.0,
    partner_kill=6.0,
    next_void=10.0,
    prev_void=5.0,
    partner_void=8.0,
    tranque=30.0,
)
GREEDY_WEIGHTS = _weights(pips=1.0, double=0.5)


def hand_strength(tiles: tuple[Tile, ...]) -> float:
    """How well a hand can dictate play: its longest number, its doubles and its variety."""
    mask = mask_of(tiles)
    longest = max((mask & m).bit_count() for m in NUMBER_MASK)
    doubles = (mask & DOUBLES_MASK).bit_count()
    numbers = sum(1 for m in NUMBER_MASK if mask & m)
    return longest + 0.25 * numbers - 0.5 * max(0, doubles - 2)


class HeuristicBot:
    """Scores each legal move with weighted teachings and plays the best (first on ties)."""

    name = "heuristic"
    weights = HEURISTIC_WEIGHTS

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._moves = np.zeros(64, np.int64)
        self._scores = np.zeros(64, np.float64)

    def scores(self, view: SeatView) -> list[float]:
        """The heuristic score of each action in ``view.legal`` (same order)."""
        S, _ = view_state(view)
        n = len(view.legal)
        for i, action in enumerate(view.legal):
            self._moves[i] = action_code(action)
        K.heuristic_scores(S, self._moves, n, self.weights, self._scores)
        return [float(x) for x in self._scores[:n]]

    def warm_up(self) -> None:
        """Load the kernels now (from numba's cache), not during the first timed decision."""
        self.scores(sample_view())

    def choose_action(self, view: SeatView) -> Action:
        if len(view.legal) == 1:
            return view.legal[0]
        scores = self.scores(view)
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        return view.legal[best]

    def choose_lead(self, view: SeatView) -> LeadChoice:
        # The partner's hand is unseen: lead when our own hand can dictate the play.
        return LeadChoice.SALGO if hand_strength(view.tiles) >= 4.5 else LeadChoice.SAL_TU

    def ask_redeal(self, view: SeatView) -> bool:
        # Five doubles are five tiles that each fit one number only: a poor hand unless it also
        # holds a long number to play.
        return hand_strength(view.tiles) < 5.0


class GreedyBot(HeuristicBot):
    """Botar la gorda: always the heaviest tile that fits."""

    name = "greedy"
    weights = GREEDY_WEIGHTS


register_bot("heuristic", HeuristicBot)
register_bot("greedy", GreedyBot)
