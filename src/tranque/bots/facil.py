"""``facil``: the heuristic with a person's slips, for people who are learning.

A beginner knows the teachings but does not apply all of them every time, and among moves that
look about as good he does not always find the best. ``facil`` plays like that:

- **forgets a teaching** now and then: with probability ``FORGET`` one of the subtler teachings
  (la más acompañada, variety, partner's number, the passes, the tranque count) is left out of
  this decision's scores;
- **hesitates between close moves**: it draws among the moves whose score is within ``MARGIN``
  points of the best, each with weight ``exp((score - best) / TEMPERATURE)``.

It never plays an absurd move: a move far below the best by the heuristic's own lights (holding
the heaviest double while a blank fits, for no reason at all) is outside the margin and is never
drawn; a single legal move is simply played. Salgo / Sal tú and the redeal are the heuristic's,
with the own hand's strength judged a little loosely. Deterministic given the seed.
"""

from __future__ import annotations

import math
import random

import numpy as np

from tranque.bots import kernels as K
from tranque.bots.base import register_bot
from tranque.bots.convert import action_code, view_state
from tranque.bots.heuristic import HEURISTIC_WEIGHTS, HeuristicBot, hand_strength
from tranque.rules.game import LeadChoice
from tranque.rules.hand import Action
from tranque.rules.views import SeatView

FORGET = 0.5  # chance of leaving one teaching out of a decision
MARGIN = 10.0  # points below the best score a move may be and still be drawn
TEMPERATURE = 5.0  # spread of the draw among the moves within the margin
STRENGTH_NOISE = 0.75  # how loosely the own hand's strength is judged (Salgo, redeal)

# The teachings a beginner forgets; botar la gorda (pips, doubles) he always knows.
SUBTLE = (
    K.W_ACCOMP,
    K.W_VARIETY,
    K.W_PARTNER_KILL,
    K.W_NEXT_VOID,
    K.W_PREV_VOID,
    K.W_PARTNER_VOID,
    K.W_TRANQUE,
)


class FacilBot(HeuristicBot):
    """The heuristic's scores, a teaching forgotten now and then, a draw among close moves."""

    name = "facil"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.rng = random.Random(seed)

    def _scores_with(self, view: SeatView, weights: np.ndarray) -> list[float]:
        S, _ = view_state(view)
        n = len(view.legal)
        for i, action in enumerate(view.legal):
            self._moves[i] = action_code(action)
        K.heuristic_scores(S, self._moves, n, weights, self._scores)
        return [float(x) for x in self._scores[:n]]

    def choose_action(self, view: SeatView) -> Action:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        rng = self.rng
        full = self._scores_with(view, HEURISTIC_WEIGHTS)
        scores = full
        if rng.random() < FORGET:
            weights = HEURISTIC_WEIGHTS.copy()
            weights[rng.choice(SUBTLE)] = 0.0
            scores = self._scores_with(view, weights)
        # Never absurd: only moves close to the best by the full heuristic may be drawn.
        top = max(full)
        sane = [i for i in range(len(legal)) if full[i] >= top - MARGIN]
        best = max(scores[i] for i in sane)
        close = [i for i in sane if scores[i] >= best - MARGIN]
        weights_ = [math.exp((scores[i] - best) / TEMPERATURE) for i in close]
        return legal[rng.choices(close, weights=weights_)[0]]

    def _strength(self, view: SeatView) -> float:
        return hand_strength(view.tiles) + self.rng.uniform(-STRENGTH_NOISE, STRENGTH_NOISE)

    def choose_lead(self, view: SeatView) -> LeadChoice:
        return LeadChoice.SALGO if self._strength(view) >= 4.5 else LeadChoice.SAL_TU

    def ask_redeal(self, view: SeatView) -> bool:
        return self._strength(view) < 5.0


register_bot("facil", FacilBot)
