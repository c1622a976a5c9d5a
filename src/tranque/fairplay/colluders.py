"""Colluding pairs, to test the screen: the strong bot shown what an honest seat cannot see.

- ``PartnerPeeker``: the strong bot whose posterior worlds hold the partner's true tiles (what
  partners who tell each other their hands over a phone know). The opponents' tiles are dealt
  at random among what is left, each opponent's known voids (the numbers it passed on)
  respected; the rest is the strong bot unchanged.
- ``AllSeer``: the strong bot evaluating the one true world, every hand known (a pair that also
  learns the opponents' tiles, from a spectator or a leak).

Neither is a ``Bot`` of the registry (``bots.base``): each is handed the hand in play by the
harness that runs it (``selfplay``), which no table of the server has, so neither can ever be
seated there.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from tranque.bots import kernels as K
from tranque.bots.convert import action_code, view_state
from tranque.bots.heuristic import HEURISTIC_WEIGHTS
from tranque.bots.strong import StrongBot
from tranque.fairplay.worlds import partner_worlds
from tranque.rules.hand import HandState
from tranque.rules.views import SeatView

Peek = Callable[[], HandState]


class _Peeking(StrongBot):
    """The strong bot with other worlds than its posterior's."""

    name = "colluder"

    def __init__(self, seed: int | None, peek: Peek) -> None:
        super().__init__(seed)
        self.peek = peek

    def worlds(self, view: SeatView) -> np.ndarray:
        raise NotImplementedError

    def table(self, view: SeatView) -> np.ndarray | None:
        level = self.level
        rules = view.public.rules
        S, _ = view_state(view)
        me = view.seat
        worlds = self.worlds(view)
        made = len(worlds)
        cands = np.array([action_code(a) for a in view.legal], np.int64)
        out = np.zeros((made, len(cands)), np.float64)
        scores = view.public.scores
        pair = me & 1
        K.evaluate_matrix(
            S, me, worlds, made, cands, len(cands), HEURISTIC_WEIGHTS, level.endgame_tiles,
            scores[pair], scores[pair ^ 1], rules.target, level.game_weight, out,
        )  # fmt: skip
        return out


class PartnerPeeker(_Peeking):
    """Knows its partner's tiles; the opponents' are dealt at random, voids respected."""

    name = "partner-peeker"

    def worlds(self, view: SeatView) -> np.ndarray:
        n = self.level.chains * self.level.per_chain
        rng = random.Random(self.rng.getrandbits(62))
        return partner_worlds(self.peek(), view.seat, n, rng)


class AllSeer(_Peeking):
    """Knows all four hands: the one true world."""

    name = "all-seer"

    def worlds(self, view: SeatView) -> np.ndarray:
        hand = self.peek()
        return np.array([list(hand.hands)], np.int64)


COLLUDERS: dict[str, type[_Peeking]] = {"partner": PartnerPeeker, "all": AllSeer}
