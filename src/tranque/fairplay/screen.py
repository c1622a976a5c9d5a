"""One finished game's contribution to the screen: per seat, sums over its real decisions.

For every real decision (two or more legal moves) of a screened seat:

- the **fair values** of its options, from what the seat knew (``analysis.engine.rate_fair``:
  the strong bot's posterior worlds and heuristic playouts), on a smaller budget than the game
  page's analysis (``SCREEN``): the screen needs sums over hundreds of decisions, not one value
  to half a point;
- the **loss** (best fair value minus the played one's) and whether the played move was the
  fair best (the top choice);
- where the hindsight value is exact (at most ``engine.EXACT_TILES`` tiles in the hands), two
  gains of the move played over the average option: ``y = h_played - mean h`` in hindsight
  (every hand known) and ``x = f_played - mean f`` in fair values (what the seat knew). A seat
  that chooses well by what it knows gains in hindsight too, in proportion: under honest play
  ``y`` is ``alpha + beta * x`` plus noise whatever the player's strength, ``alpha`` and
  ``beta`` measured on bot self-play (docs/fairplay.md). A seat that knows the hidden tiles
  gains more in hindsight than its fair gain explains, in the decisions where they mattered.
  The sums kept: ``hind`` (y), ``gain`` (x), ``gain2`` (x²), ``cross`` (xy), and ``edge``
  (y - x, the plain difference);
- on every decision, the **partner-informed gain** ``p = g_played - mean g``, where ``g`` are the
  options' values as the fair evaluation computes them but in worlds holding the partner's true
  tiles (``worlds.partner_worlds``): what the move played was worth to one who knew his
  partner's hand. A seat that does not know it gains ``p`` as its fair gain ``x`` says, on
  average; partners who tell each other their tiles gain more, in the decisions where the
  partner's tiles mattered. Sums: ``pgain`` (p), ``fgain`` (x), ``fgain2`` (x²), ``pcross`` (xp),
  over every decision.

Plain data in, plain data out: a worker process of the pool may run it. Fair worlds are seeded
from public facts only (``engine.fair_seed``), so the same record always gives the same sums.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from tranque.analysis import kernels as AK
from tranque.analysis.engine import (
    EXACT_TILES,
    FairBudget,
    HindsightHand,
    decisions,
    fair_seed,
    hands_of,
    rate_fair,
)
from tranque.bots.convert import action_code, view_state
from tranque.bots.heuristic import HEURISTIC_WEIGHTS
from tranque.fairplay.worlds import partner_worlds
from tranque.rules.game import GameState
from tranque.rules.hand import HandState
from tranque.rules.record import players_of
from tranque.rules.views import seat_view

# 16 chains x 8 worlds after 200 steps: about 1/30 of the game page's fair work per decision.
SCREEN = FairBudget(chains=16, burn=200, thin=10, per_chain=8)
SEED = 7  # the screen's own fair seed, apart from the game page's analysis (seed 0)
SEATS = (0, 1, 2, 3)


def screened_seats(players: tuple[str | None, ...] | None, all_seats: bool) -> tuple[int, ...]:
    """The seats whose decisions count: a person's (a bot's say nothing of anyone), or all four
    for calibration on bot self-play."""
    if all_seats:
        return SEATS
    if players is None:
        return ()
    return tuple(s for s in SEATS if players[s] is not None)


SUMS = (
    "decisions", "loss", "top", "edge_decisions", "edge", "hind", "gain", "gain2", "cross",
    "pgain", "fgain", "fgain2", "pcross",
)  # fmt: skip
PARTNER_WORLDS = 128  # worlds of the partner-informed values, as many as the fair ones


def empty_sums() -> dict[str, float]:
    return {k: 0 if k in ("decisions", "top", "edge_decisions") else 0.0 for k in SUMS}


def screen_record(
    record: Mapping[str, Any], *, all_seats: bool = False, budget: FairBudget = SCREEN
) -> dict[str, Any]:
    """``{"players", "seats": [sums of seat 0..3], "cpu_seconds"}`` of one game or match record.

    Raises ``RulesError`` for a record that does not replay or whose ``players`` is malformed.
    """
    start = time.process_time()
    players = players_of(record)
    games = hands_of(record)  # replays through the checked rules first
    seats = screened_seats(players, all_seats)
    sums = [empty_sums() for _ in SEATS]
    for game in games:
        for hand in game:
            solver: HindsightHand | None = None
            for k, state in decisions(hand, seats):
                played = hand.moves[k]
                fair = rate_fair(state, k, played, fair_seed(SEED, hand, k), budget)
                f = fair.values
                c = fair.played
                top = max(f)
                row = sums[state.turn]
                row["decisions"] += 1
                row["loss"] += top - f[c]
                row["top"] += int(f[c] == top)
                g = partner_values(state, fair_seed(SEED + 1, hand, k))
                x = f[c] - sum(f) / len(f)
                p = g[c] - sum(g) / len(g)
                row["pgain"] += p
                row["fgain"] += x
                row["fgain2"] += x * x
                row["pcross"] += x * p
                if sum(h.bit_count() for h in state.hands) > EXACT_TILES:
                    continue  # hindsight only where it is exact
                if solver is None:
                    solver = HindsightHand(hand)
                solver.advance_to(k, hand)
                h = solver.rate(state, k, played).values
                n = len(f)
                y = h[c] - sum(h) / n
                x = f[c] - sum(f) / n
                row["edge_decisions"] += 1
                row["edge"] += y - x
                row["hind"] += y
                row["gain"] += x
                row["gain2"] += x * x
                row["cross"] += x * y
    return {
        "players": None if players is None else list(players),
        "seats": sums,
        "cpu_seconds": time.process_time() - start,
    }


def partner_values(state: HandState, seed: int, n: int = PARTNER_WORLDS) -> list[float]:
    """The options' values (legal order) for the seat to move, by the fair evaluation's
    playouts, in worlds that hold its partner's true tiles."""
    me = state.turn
    view = seat_view(GameState.for_hand(state), me)
    S, _ = view_state(view)
    worlds = partner_worlds(state, me, n, random.Random(seed))
    cands = np.array([action_code(a) for a in view.legal], np.int64)
    out = np.zeros((n, len(cands)), np.float64)
    fp_pending = state.first_pass_pending
    AK.fair_matrix(
        S, me, worlds, n, cands, len(cands), HEURISTIC_WEIGHTS, fp_pending,
        state.rules.first_pass_points, state.rules.unanswered_double_lead_points, out,
    )  # fmt: skip
    return [float(v) for v in out.mean(axis=0)]
