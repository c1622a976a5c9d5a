"""``strong``: play under hidden information by posterior sampling and heuristic playouts.

For each decision with a real choice:

1. **Model** the other three players as the heuristic bot: each tile they played was, with
   probability 1 - eps, the heuristic's choice for the hand they held then (from their own tiles
   and what was public), otherwise any other legal move.
2. **Sample** worlds (the other hands and the sleepers) from the posterior by MCMC
   (``kernels.mcmc_worlds``): chains start from worlds consistent with counts, played tiles and
   passes, and swap hidden tiles between places, accepted by the likelihood ratio.
3. **Evaluate** each candidate in each world by finishing the hand with the heuristic in all four
   seats (``kernels.evaluate_matrix``); utility for the pair: points won minus points given, plus
   a bonus or malus when the hand would end the game (``game_weight``).
4. **Choose** the heuristic's own move unless another beats it by more than ``margin`` points on
   average over the common worlds with a paired t-statistic of at least ``t_min``.

Bots are deterministic given their seed and what they are shown. ``strong`` is budgeted by
counts, not by the clock, so a result never depends on the machine; ``strong-slow`` samples more.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from tranque.bots import kernels as K
from tranque.bots.base import register_bot
from tranque.bots.convert import action_code, sample_view, view_state
from tranque.bots.heuristic import HEURISTIC_WEIGHTS, HeuristicBot
from tranque.rules.game import LeadChoice
from tranque.rules.hand import Action
from tranque.rules.views import SeatView


@dataclass(frozen=True)
class StrongLevel:
    chains: int = 48  # independent Markov chains over the hidden tiles
    burn: int = 800  # steps before a chain's first world
    thin: int = 50  # steps between two worlds of a chain
    per_chain: int = 8  # worlds taken from each chain
    model_eps: float = 0.02  # share of plays the model lets differ from the heuristic's choice
    endgame_tiles: int = 0  # solve exactly when at most this many tiles are left in hands
    margin: float = 1.0  # points per hand a move must gain over the heuristic's to replace it
    t_min: float = 1.5  # ... and the paired t-statistic it must reach
    game_weight: float = 100.0  # utility of winning the game with this hand


DEFAULT = StrongLevel()
SLOW = StrongLevel(chains=128, burn=1500, per_chain=8)


class StrongBot:
    """Posterior worlds by MCMC, then heuristic playouts of every candidate in every world."""

    name = "strong"
    level = DEFAULT

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.heuristic = HeuristicBot(seed)

    def warm_up(self) -> None:
        self.choose_action(sample_view(moves=5))

    def choose_action(self, view: SeatView) -> Action:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        scores = self.heuristic.scores(view)
        h = max(range(len(scores)), key=lambda i: (scores[i], -i))
        table = self.table(view)
        if table is None:
            return legal[h]
        return legal[self.pick(table, h)]

    def pick(self, table: np.ndarray, h: int) -> int:
        """The candidate to play: the heuristic's ``h`` unless another beats it clearly."""
        level = self.level
        diff = table - table[:, h : h + 1]
        mean = diff.mean(axis=0)
        best = int(np.argmax(mean))
        if best == h or mean[best] <= level.margin:
            return h
        n = diff.shape[0]
        sd = float(diff[:, best].std(ddof=1)) if n > 1 else 0.0
        t = mean[best] / (sd / np.sqrt(n)) if sd > 0 else np.inf
        return best if t >= level.t_min else h

    def values(self, view: SeatView) -> list[float] | None:
        """The mean searched utility of each legal action, or None if no world could be dealt."""
        table = self.table(view)
        if table is None:
            return None
        return [float(x) for x in table.mean(axis=0)]

    def table(self, view: SeatView) -> np.ndarray | None:
        """Utility of each legal action (columns) in each posterior world (rows)."""
        level = self.level
        rules = view.public.rules
        S, codes = view_state(view)
        me = view.seat
        seed = self.rng.getrandbits(62)
        m = level.chains * level.per_chain
        worlds = np.zeros((m, 4), np.int64)
        made = K.mcmc_worlds(
            S,
            me,
            codes,
            len(codes),
            rules.tiles_each,
            HEURISTIC_WEIGHTS,
            level.model_eps,
            level.chains,
            level.burn,
            level.thin,
            level.per_chain,
            seed,
            worlds,
        )
        if made == 0:
            return None
        cands = np.array([action_code(a) for a in view.legal], np.int64)
        out = np.zeros((made, len(cands)), np.float64)
        scores = view.public.scores
        pair = me & 1
        K.evaluate_matrix(
            S,
            me,
            worlds,
            made,
            cands,
            len(cands),
            HEURISTIC_WEIGHTS,
            level.endgame_tiles,
            scores[pair],
            scores[pair ^ 1],
            rules.target,
            level.game_weight,
            out,
        )
        return out

    def choose_lead(self, view: SeatView) -> LeadChoice:
        return self.heuristic.choose_lead(view)

    def ask_redeal(self, view: SeatView) -> bool:
        return self.heuristic.ask_redeal(view)


class StrongSlowBot(StrongBot):
    """More worlds, more playouts, a deeper exact endgame: slower and a little stronger."""

    name = "strong-slow"
    level = SLOW


register_bot("strong", StrongBot)
register_bot("strong-slow", StrongSlowBot)
