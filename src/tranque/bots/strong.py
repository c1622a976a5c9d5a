"""``strong``: play under hidden information by inference and search.

For each decision with a real choice:

1. **Sample** the unseen tiles (the other three hands and the sleepers) consistent with everything
   public: tile counts, the tiles played, and every pass (the passer holds neither number).
2. **Weigh** each sampled world by how likely the other three players were to make the plays they
   made holding those tiles, modelling them with the heuristic bot (softmax over its scores, mixed
   with a little uniform), divided by the sampler's own probability (importance weights).
3. **Resample** worlds by weight and **search** them: each candidate move is played in each world
   and scored by heuristic-guided rollouts, or solved exactly (alpha-beta) once few tiles are left.
   Scores are for the pair: the points it wins minus the points it gives, plus a bonus or malus
   when the hand would end the game (``game_weight``).

Everything runs in numba kernels (``kernels.infer_worlds``, ``kernels.evaluate_moves``). Bots are
deterministic given their seed and what they are shown. ``strong`` is budgeted by counts, not by
the clock, so a result never depends on the machine; ``strong-slow`` searches more.
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
    samples: int = 5000  # worlds sampled and weighed
    worlds: int = 100  # worlds searched, resampled by weight
    rollouts: int = 1  # heuristic playouts per world and candidate
    model_temp: float = 1.0  # softness of the heuristic as a model of the others
    model_eps: float = 0.05  # share of uniformly random play in that model
    rollout_temp: float = 0.0  # softness of the heuristic in playouts (0: greedy)
    endgame_tiles: int = 12  # solve exactly when at most this many tiles are left in hands
    game_weight: float = 100.0  # utility of winning the game with this hand


DEFAULT = StrongLevel()
SLOW = StrongLevel(samples=20000, worlds=300, rollouts=4, rollout_temp=0.5, endgame_tiles=14)


class StrongBot:
    """Inference over the hidden tiles, then search over weighted worlds."""

    name = "strong"
    level = DEFAULT

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.heuristic = HeuristicBot(seed)
        self.last_effective_worlds = 0.0

    def warm_up(self) -> None:
        self.choose_action(sample_view(moves=5))

    def choose_action(self, view: SeatView) -> Action:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        values = self.values(view)
        if values is None:
            return self.heuristic.choose_action(view)
        best = max(range(len(legal)), key=lambda i: (values[i], -i))
        return legal[best]

    def values(self, view: SeatView) -> list[float] | None:
        """The searched utility of each legal action, or None if no world could be dealt."""
        level = self.level
        rules = view.public.rules
        S, codes = view_state(view)
        me = view.seat
        seed = self.rng.getrandbits(62)
        hands = np.zeros((level.samples, 4), np.int64)
        logw = np.zeros(level.samples, np.float64)
        made = K.infer_worlds(
            S,
            me,
            codes,
            len(codes),
            rules.tiles_each,
            level.samples,
            HEURISTIC_WEIGHTS,
            level.model_temp,
            level.model_eps,
            seed,
            hands,
            logw,
        )
        if made == 0:
            return None
        w = np.exp(logw[:made] - logw[:made].max())
        w /= w.sum()
        self.last_effective_worlds = float(1.0 / np.sum(w * w))
        # Systematic resampling: worlds in proportion to their weight.
        m = level.worlds
        positions = (self.rng.random() + np.arange(m)) / m
        idx = np.minimum(np.searchsorted(np.cumsum(w), positions), made - 1)
        worlds = np.ascontiguousarray(hands[idx])
        cands = np.array([action_code(a) for a in view.legal], np.int64)
        out = np.zeros(len(cands), np.float64)
        scores = view.public.scores
        pair = me & 1
        K.evaluate_moves(
            S,
            me,
            worlds,
            m,
            cands,
            len(cands),
            level.rollouts,
            HEURISTIC_WEIGHTS,
            level.rollout_temp,
            level.endgame_tiles,
            seed,
            scores[pair],
            scores[pair ^ 1],
            rules.target,
            level.game_weight,
            out,
        )
        return [float(x) for x in out]

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
