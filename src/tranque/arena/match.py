"""Playing bots against each other through the rules' checked path, one SeatView at a time.

Seats 0 and 2 are pair A, 1 and 3 pair B. In a duplicate pair of plays the same deal (or the same
sequence of deals, for games) is played twice: first with bot A in seats 0 and 2, then with bot A in
seats 1 and 3, so each bot holds each hand once and the luck of the deal cancels.

Single hands: deal ``d`` is led by seat ``d % 4`` in both orientations (no Salgo / Sal tú, no
redeal), so a deal is judged on exactly the same lead twice.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field

from tranque.bots.base import Bot, make_bot
from tranque.rules.dealing import deal_next, random_deal
from tranque.rules.errors import IllegalMoveError
from tranque.rules.game import GameState, LeadChoice, Phase
from tranque.rules.hand import EndKind, HandState
from tranque.rules.variants import Rules
from tranque.rules.views import seat_view

MAX_HANDS_PER_GAME = 500


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (stable across runs and platforms)."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass
class HandResult:
    """One hand from bot A's side."""

    points_a: int  # points bot A's pair scored in this hand
    points_b: int
    winner: str | None  # "A", "B", or None for an unscored tied block
    kind: str  # EndKind value


@dataclass
class GameResult:
    winner: str  # "A" or "B"
    pollona: bool
    score_a: int
    score_b: int
    hands: list[HandResult]


@dataclass
class UnitResult:
    """Everything a duplicate pair (one deal or one game, both orientations) produced."""

    index: int
    hands: list[HandResult] = field(default_factory=list)
    games: list[GameResult] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=lambda: {"A": [], "B": []})


class _Timed:
    """Calls a seat's bot and times the decisions that were real choices."""

    def __init__(self, bots: list[Bot], labels: list[str], times: dict[str, list[float]]) -> None:
        self.bots = bots
        self.labels = labels
        self.times = times

    def action(self, game: GameState, seat: int) -> GameState:
        view = seat_view(game, seat)
        start = time.perf_counter()
        action = self.bots[seat].choose_action(view)
        elapsed = time.perf_counter() - start
        if len(view.legal) > 1:
            self.times[self.labels[seat]].append(elapsed)
        if action not in view.legal:
            raise IllegalMoveError(
                f"bot {self.bots[seat].name!r} in seat {seat} chose {action}, not a legal action"
            )
        return game.play(action, seat)


def _hand_result(hand: HandState, a_pair: int) -> HandResult:
    out = hand.outcome
    assert out is not None
    pa = out.points if out.winning_pair == a_pair else 0
    pb = out.points if out.winning_pair == a_pair ^ 1 else 0
    winner = None if out.winning_pair is None else ("A" if out.winning_pair == a_pair else "B")
    return HandResult(pa, pb, winner, out.kind.value)


def _seating(
    name_a: str, name_b: str, orientation: int, seeds: list[int]
) -> tuple[list[Bot], list[str]]:
    labels = ["A", "B", "A", "B"] if orientation == 0 else ["B", "A", "B", "A"]
    names = {"A": name_a, "B": name_b}
    bots = [make_bot(names[labels[s]], seeds[s]) for s in range(4)]
    return bots, labels


def play_deal_pair(rules: Rules, name_a: str, name_b: str, seed: int, index: int) -> UnitResult:
    """Deal ``index`` played twice, the pairs swapping seats."""
    deal = random_deal(rules, random.Random(derive_seed(seed, "deal", index)))
    leader = index % 4
    unit = UnitResult(index)
    for orientation in (0, 1):
        seeds = [derive_seed(seed, "bot", index, orientation, s) for s in range(4)]
        bots, labels = _seating(name_a, name_b, orientation, seeds)
        timed = _Timed(bots, labels, unit.times)
        hand = HandState.start(rules, deal, leader)
        game = GameState.for_hand(hand)
        while game.hand is not None and not game.hand.is_over:
            game = timed.action(game, game.hand.turn)
        assert game.hand is not None
        unit.hands.append(_hand_result(game.hand, orientation))
    return unit


def play_game(
    rules: Rules,
    bots: list[Bot],
    labels: list[str],
    rng: random.Random,
    times: dict[str, list[float]],
) -> GameResult:
    """A whole game to the target: redeals, Salgo / Sal tú and play, every decision by a bot."""
    timed = _Timed(bots, labels, times)
    a_pair = labels.index("A") & 1
    game = GameState.new(rules)
    hands: list[HandResult] = []
    for _ in range(MAX_HANDS_PER_GAME):
        if game.is_over:
            break
        game = deal_next(game, rng)
        while game.phase is Phase.REDEAL:
            seat = game.redeal_eligible()[0]
            game = game.answer_redeal(seat, bots[seat].ask_redeal(seat_view(game, seat)))
        if game.phase is Phase.DEAL:
            continue
        if game.phase is Phase.CHOOSE:
            seats = game.choosing_seats()
            assert seats is not None
            first, second = (bots[s].choose_lead(seat_view(game, s)) for s in seats)
            if not isinstance(first, LeadChoice) or not isinstance(second, LeadChoice):
                raise IllegalMoveError("a bot answered Salgo / Sal tú with something else")
            game = game.choose_leader(first, second)
        while game.phase is Phase.PLAY:
            assert game.hand is not None
            game = timed.action(game, game.hand.turn)
        assert game.hand is not None
        if game.hand.outcome is not None:
            hands.append(_hand_result(game.hand, a_pair))
    else:
        raise RuntimeError(f"a game did not end within {MAX_HANDS_PER_GAME} hands")
    assert game.winner is not None
    winner = "A" if game.winner == a_pair else "B"
    return GameResult(winner, game.pollona, game.scores[a_pair], game.scores[a_pair ^ 1], hands)


def play_game_pair(rules: Rules, name_a: str, name_b: str, seed: int, index: int) -> UnitResult:
    """Game ``index`` played twice on the same stream of deals, the pairs swapping seats."""
    unit = UnitResult(index)
    for orientation in (0, 1):
        seeds = [derive_seed(seed, "gamebot", index, orientation, s) for s in range(4)]
        bots, labels = _seating(name_a, name_b, orientation, seeds)
        rng = random.Random(derive_seed(seed, "game", index))
        result = play_game(rules, bots, labels, rng, unit.times)
        unit.games.append(result)
        unit.hands.extend(result.hands)
    return unit


__all__ = ["EndKind", "GameResult", "HandResult", "UnitResult", "play_deal_pair", "play_game_pair"]
