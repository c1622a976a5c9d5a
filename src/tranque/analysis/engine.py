"""Rate every real choice of a record's seats: the values of its options, the loss, a tag.

A *decision* is a turn of an analysed seat with two or more legal moves. Its options are valued
in points for the mover's pair over the rest of the hand: what that pair will score minus what
the other pair will score, the bonuses still to come in the hand included (Miami's first pass,
Barrio's unanswered double lead). Two ways to value them (docs/analysis.md):

- **fair**: from what the seat knew then, its own tiles and the public moves. The strong bot's
  posterior worlds (MCMC over the hidden tiles, the other seats modelled as the heuristic) and,
  in each world, the option played and the hand finished by the heuristic in every seat. The
  worlds are drawn from a seed and the seat's view only, so the values cannot depend on what the
  seat could not see. Each value has its standard error, from the spread between the chains.
- **hindsight**: every hand face up. At or below ``EXACT_TILES`` tiles in the four hands, the
  exact perfect-information value; above, an estimate (the heuristic plays every seat until that
  many tiles are left, then the exact value), marked ``"exact": false``.

Records are replayed through the checked rules first, so a bad record is a typed error
(``RulesError``) before anything is rated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tranque.analysis import kernels as AK
from tranque.bots import kernels as K
from tranque.bots.convert import action_code, tied_mode, view_state
from tranque.bots.heuristic import HEURISTIC_WEIGHTS
from tranque.bots.strong import DEFAULT as STRONG
from tranque.rules.errors import InvalidRecordError
from tranque.rules.game import GameState
from tranque.rules.hand import Action, BonusKind, Deal, HandState
from tranque.rules.record import (
    FORMATS,
    GAME_FORMAT,
    HAND_FORMAT,
    MATCH_FORMAT,
    replay_game,
    replay_hand,
    replay_match,
)
from tranque.rules.variants import Rules
from tranque.rules.views import seat_view

FORMAT = "tranque-analysis/1"
MODES = ("fair", "hindsight")
SEATS = (0, 1, 2, 3)

# Hindsight: exact values at or below this many tiles in the four hands (the issue asks for 8).
EXACT_TILES = 28
TABLE_BITS = 18  # transposition table entries per hand: 2**18 (16 MB)

# Tags, by the points a play lost against the best option.
INACCURACY = 3.0
MISTAKE = 8.0
BLUNDER = 15.0
NOISE_SE = 2.0  # fair: a loss within this many standard errors of 0 is not tagged

Progress = Callable[[int, int], None]


class AnalysisError(ValueError):
    """A request the analysis cannot serve (a seat, a mode or a hand that is not there)."""


@dataclass(frozen=True, slots=True)
class FairBudget:
    """How many posterior worlds a fair decision is valued on: ``chains * per_chain``.

    Far more than the strong bot's 384, which only pick a move: these must give values to half
    a point. The sampler's steps cost much more than the playouts, so a chain gives a world
    every 10 steps; those worlds are correlated, which the chain-wise standard error counts.
    """

    chains: int = 128
    burn: int = 800
    thin: int = 10
    per_chain: int = 64
    model_eps: float = STRONG.model_eps


FAIR = FairBudget()


@dataclass(frozen=True, slots=True)
class HandToRate:
    """One hand of a record as it started, with the moves that were made."""

    game: int  # index of the game in a match record; 0 otherwise
    number: int
    rules: Rules
    deal: Deal
    leader: int
    first_pass_pending: bool
    moves: tuple[Action, ...]

    def start(self) -> HandState:
        return HandState.start(
            self.rules, self.deal, self.leader, first_pass_pending=self.first_pass_pending
        )


@dataclass(frozen=True, slots=True)
class Rating:
    """The values of a decision's options (legal order), and what the JSON says of them."""

    index: int
    seat: int
    options: tuple[Action, ...]
    values: tuple[float, ...]
    played: int  # index in options
    se: tuple[float, ...] | None = None  # fair: standard error of each value
    loss_se: float | None = None  # fair: standard error of the loss
    exact: bool | None = None  # hindsight: exact values, or an estimate

    def to_json(self) -> dict[str, Any]:
        values = [round(v, 2) for v in self.values]
        top = max(values)
        best = self.played if values[self.played] == top else values.index(top)
        loss = round(top - values[self.played], 2)
        order = sorted(range(len(values)), key=lambda i: -values[i])
        options = []
        for i in order:
            option: dict[str, Any] = {"move": str(self.options[i]), "value": values[i]}
            if self.se is not None:
                option["se"] = round(self.se[i], 2)
            options.append(option)
        out: dict[str, Any] = {
            "index": self.index,
            "seat": self.seat,
            "played": str(self.options[self.played]),
            "best": str(self.options[best]),
            "options": options,
            "loss": loss,
        }
        if self.loss_se is not None:
            out["loss_se"] = round(self.loss_se, 2) if best != self.played else 0.0
        out["tag"] = tag_of(loss, out.get("loss_se"))
        if self.exact is not None:
            out["exact"] = self.exact
        return out


def tag_of(loss: float, loss_se: float | None = None) -> str | None:
    """``None``, ``"inaccuracy"``, ``"mistake"`` or ``"blunder"`` for a play that lost ``loss``
    points; a fair loss that sampling noise could explain gets no tag."""
    if loss < INACCURACY or (loss_se is not None and loss < NOISE_SE * loss_se):
        return None
    if loss < MISTAKE:
        return "inaccuracy"
    if loss < BLUNDER:
        return "mistake"
    return "blunder"


# --------------------------------------------------------------------------------------------
# Records to hands


def hands_of(record: Mapping[str, Any]) -> list[list[HandToRate]]:
    """The hands of a record, by game (one game for a hand or game record), replayed first."""
    if not isinstance(record, Mapping) or record.get("format") not in FORMATS:
        raise InvalidRecordError(
            f"not a tranque record: 'format' must be {HAND_FORMAT!r}, {GAME_FORMAT!r} "
            f"or {MATCH_FORMAT!r}"
        )
    if record["format"] == HAND_FORMAT:
        hand = replay_hand(record)
        return [[hand_to_rate(0, 1, hand)]]
    if record["format"] == GAME_FORMAT:
        games = [replay_game(record)]
    else:
        match, current = replay_match(record)
        games = [*match.games, *([] if current is None else [current])]
    return [
        [hand_to_rate(g, p.setup.number, p.hand) for p in game.played]
        for g, game in enumerate(games)
    ]


def hand_to_rate(game: int, number: int, hand: HandState) -> HandToRate:
    """A replayed hand (over, or cut short by a bonus) as it started."""
    # A first pass scored in this hand was pending when it began; else nothing changed it.
    pending = hand.first_pass_pending or any(b.kind is BonusKind.FIRST_PASS for b in hand.bonuses)
    return HandToRate(game, number, hand.rules, hand.deal, hand.leader, pending, hand.moves)


def decisions(hand: HandToRate, seats: Sequence[int]) -> Iterator[tuple[int, HandState]]:
    """(move index, state before it) of every real choice of ``seats`` in the hand."""
    state = hand.start()
    for k, action in enumerate(hand.moves):
        if state.turn in seats and len(state.legal_actions()) >= 2:
            yield k, state
        state = state.apply(action)


# --------------------------------------------------------------------------------------------
# Rating


def _codes(actions: Sequence[Action]) -> np.ndarray:
    return np.array([action_code(a) for a in actions], np.int64)


def _bonus_rules(state: HandState) -> tuple[bool, int, int]:
    rules = state.rules
    return state.first_pass_pending, rules.first_pass_points, rules.unanswered_double_lead_points


def fair_seed(seed: int, hand: HandToRate, index: int) -> int:
    """The seed of one decision's worlds: from public facts only (game, hand, move)."""
    return ((seed * 1_000_003 + hand.game) * 65_537 + hand.number) * 4096 + index


def rate_fair(
    state: HandState, index: int, played: Action, seed: int, budget: FairBudget = FAIR
) -> Rating:
    """Value a decision from the seat's view: posterior worlds, heuristic playouts."""
    me = state.turn
    view = seat_view(GameState.for_hand(state), me)
    options = view.legal
    S, codes = view_state(view)
    worlds = np.zeros((budget.chains * budget.per_chain, 4), np.int64)
    made = K.mcmc_worlds(
        S,
        me,
        codes,
        len(codes),
        state.rules.tiles_each,
        HEURISTIC_WEIGHTS,
        budget.model_eps,
        budget.chains,
        budget.burn,
        budget.thin,
        budget.per_chain,
        seed,
        worlds,
    )
    chains = made // budget.per_chain
    if chains < 2:
        raise AnalysisError(f"move {index}: no posterior world could be dealt for seat {me}")
    made = chains * budget.per_chain
    cands = _codes(options)
    out = np.zeros((made, len(cands)), np.float64)
    fp_pending, fp_points, lead_points = _bonus_rules(state)
    AK.fair_matrix(
        S, me, worlds, made, cands, len(cands), HEURISTIC_WEIGHTS,
        fp_pending, fp_points, lead_points, out,
    )  # fmt: skip
    # Worlds of one chain are correlated: the standard error is the chains' spread.
    by_chain = out.reshape(chains, budget.per_chain, len(cands)).mean(axis=1)
    values = by_chain.mean(axis=0)
    se = by_chain.std(axis=0, ddof=1) / np.sqrt(chains)
    k = options.index(played)
    best = int(np.argmax(values))
    diff = by_chain[:, best] - by_chain[:, k]
    loss_se = float(diff.std(ddof=1) / np.sqrt(chains))
    return Rating(
        index,
        me,
        options,
        tuple(float(v) for v in values),
        k,
        se=tuple(float(x) for x in se),
        loss_se=loss_se,
    )


class HindsightHand:
    """The full positions of one hand, move by move, and the exact solver's table for it."""

    def __init__(self, hand: HandToRate, exact_tiles: int = EXACT_TILES) -> None:
        rules = hand.rules
        self.exact_tiles = exact_tiles
        self.S = K.new_state(
            np.array(hand.deal.hands, np.int64),
            hand.leader,
            rules.tiles_each,
            rules.capicua_multiplier,
            tied_mode(rules),
            rules.tile_set.mask,
        )
        self.keys, self.data = AK.new_table(TABLE_BITS)
        self.moves = 0

    def advance_to(self, index: int, hand: HandToRate) -> None:
        while self.moves < index:
            K.apply_move(self.S, action_code(hand.moves[self.moves]))
            self.moves += 1

    def rate(self, state: HandState, index: int, played: Action) -> Rating:
        options = tuple(state.legal_actions())
        cands = _codes(options)
        out = np.zeros(len(cands), np.int64)
        fp_pending, fp_points, lead_points = _bonus_rules(state)
        exact = K.hand_tiles_left(self.S) <= self.exact_tiles
        if exact:
            AK.option_values(
                self.S, cands, len(cands), fp_pending, fp_points, lead_points,
                self.keys, self.data, out,
            )  # fmt: skip
        else:
            AK.estimate_values(
                self.S, cands, len(cands), fp_pending, fp_points, lead_points,
                self.exact_tiles, HEURISTIC_WEIGHTS, self.keys, self.data, out,
            )  # fmt: skip
        return Rating(
            index,
            state.turn,
            options,
            tuple(float(v) for v in out),
            options.index(played),
            exact=exact,
        )


def rate_hand(
    hand: HandToRate,
    seats: Sequence[int],
    mode: str,
    seed: int = 0,
    budget: FairBudget = FAIR,
    tick: Callable[[], None] | None = None,
) -> list[Rating]:
    """Every real choice of ``seats`` in one hand, rated."""
    ratings = []
    solver = HindsightHand(hand) if mode == "hindsight" else None
    for k, state in decisions(hand, seats):
        played = hand.moves[k]
        if solver is not None:
            solver.advance_to(k, hand)
            ratings.append(solver.rate(state, k, played))
        else:
            ratings.append(rate_fair(state, k, played, fair_seed(seed, hand, k), budget))
        if tick is not None:
            tick()
    return ratings


# --------------------------------------------------------------------------------------------
# The entry point


def analyze(
    record: Mapping[str, Any],
    *,
    seats: Sequence[int] = SEATS,
    mode: str = "fair",
    hand: int | None = None,
    seed: int = 0,
    budget: FairBudget = FAIR,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The ``tranque-analysis/1`` JSON of a record (see ``tranque.analysis.analyze_record``)."""
    if mode not in MODES:
        raise AnalysisError(f"mode must be 'fair' or 'hindsight', not {mode!r}")
    chosen = _seats(seats)
    games = _keep_hand(hands_of(record), hand, record.get("format"))
    total = sum(1 for game in games for h in game for _ in decisions(h, chosen))
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    if progress is not None:
        progress(0, total)
    rated = [
        [
            {
                "number": h.number,
                "plays": [r.to_json() for r in rate_hand(h, chosen, mode, seed, budget, tick)],
            }
            for h in game
        ]
        for game in games
    ]
    out: dict[str, Any] = {"format": FORMAT, "mode": mode}
    if record.get("format") == MATCH_FORMAT:
        out["games"] = [{"hands": hands} for hands in rated]
    else:
        out["hands"] = rated[0]
    return out


def _seats(seats: Sequence[int]) -> tuple[int, ...]:
    chosen = []
    for s in seats:
        if isinstance(s, bool) or not isinstance(s, int) or s not in SEATS:
            raise AnalysisError(f"a seat is 0, 1, 2 or 3, not {s!r}")
        chosen.append(s)
    if not chosen:
        raise AnalysisError("no seat to analyse")
    return tuple(sorted(set(chosen)))


def _keep_hand(
    games: list[list[HandToRate]], number: int | None, fmt: object
) -> list[list[HandToRate]]:
    if number is None:
        return games
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise AnalysisError(f"a hand number is 1 or more, not {number!r}")
    kept = [[h for h in game if h.number == number] for game in games]
    if not any(kept):
        most = max((len(game) for game in games), default=0)
        where = "a hand record has" if fmt == HAND_FORMAT else "the record's games have"
        raise AnalysisError(f"no hand {number}: {where} {most} hand{'s' if most != 1 else ''}")
    return kept
