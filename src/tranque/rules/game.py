"""A game to the target (100 in Havana) and a match of games: who leads, redeals, the score sheet.

A game moves through phases. Randomness comes in from outside (the fair-deal recipe or a test):
the deal, the first-hand draw, the coin. Every decision a player takes is a method:

- ``DEAL``: waiting for a deal (``deal(...)``). A redeal comes back here with the same hand number.
- ``REDEAL``: a player with 5+ doubles may ask for a redeal (``answer_redeal(seat, ask)``). A deal
  may also be *held* here (``deal(..., hold=True)``) whether or not anybody may ask, until
  ``close_redeal()``: a table shows every deal for the same while, so that the phase never tells
  anyone that a seat holds five doubles.
- ``CHOOSE``: the leading pair's two players have chosen Salgo / Sal tú (``choose_leader(...)``).
- ``PLAY``: the hand is on (``play(action)``).
- ``OVER``: a pair reached the target.

Every method returns a new ``GameState``; a bad call raises a typed error and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from tranque.rules.errors import IllegalMoveError, InvalidDealError, WrongPhaseError
from tranque.rules.hand import Action, Deal, HandState, Outcome
from tranque.rules.tiles import ALL_TILES, DOUBLES_MASK, Tile, iter_bits
from tranque.rules.variants import FirstLeader, NextLeader, Rules


class Phase(str, Enum):
    DEAL = "deal"
    REDEAL = "redeal"
    CHOOSE = "choose"
    PLAY = "play"
    OVER = "over"


class LeadChoice(str, Enum):
    SALGO = "salgo"  # "I lead"
    SAL_TU = "sal_tu"  # "you lead"


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One line of the planilla (Nosotros / Ellos): who scored what, and the running totals."""

    hand_number: int
    pair: int
    points: int
    kind: str  # "hand", or a BonusKind value
    totals: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Redeal:
    """A deal that was thrown in because ``asked_by`` showed 5+ doubles."""

    deal: Deal
    asked_by: int


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything that decided who led one hand: a replay checks it against the rules."""

    number: int
    draw: tuple[tuple[Tile, Tile], ...] | None = None  # first-hand draw, one tuple per attempt
    coin: int | None = None  # first-hand pares o nones: the pair that won it
    redeals: tuple[Redeal, ...] = ()
    leading_pair: int | None = None  # the pair with the right to lead, when a pair chooses
    priority: int | None = None  # the player who leads if the pair's choice does not settle it
    leader: int | None = None  # fixed leader (no choice), or the resolved one
    choices: tuple[LeadChoice | None, LeadChoice | None] | None = None  # pair's seats, low first
    redeal_answers: tuple[tuple[int, bool], ...] = ()  # answers for the current deal


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A finished (or, when a bonus ended the game, interrupted) hand with its setup."""

    setup: Setup
    hand: HandState


@dataclass(frozen=True, slots=True)
class GameState:
    rules: Rules
    phase: Phase = Phase.DEAL
    scores: tuple[int, int] = (0, 0)
    sheet: tuple[ScoreLine, ...] = ()
    played: tuple[PlayedHand, ...] = ()
    setup: Setup = field(default_factory=lambda: Setup(1))
    pending_deal: Deal | None = None  # dealt, waiting for redeal answers or the lead choice
    hand: HandState | None = None
    first_pass_pending: bool = True
    winner: int | None = None  # the pair that won the game
    redeal_held: bool = False  # the deal stays in REDEAL until ``close_redeal`` (see ``deal``)

    @staticmethod
    def new(rules: Rules) -> GameState:
        return GameState(rules)

    @staticmethod
    def for_hand(hand: HandState) -> GameState:
        """A game whose only business is this one hand, already led (arena deals, bot tests)."""
        setup = Setup(1, leader=hand.leader)
        return GameState(hand.rules, phase=Phase.PLAY, setup=setup, hand=hand)

    # -- reading ------------------------------------------------------------------------------

    @property
    def hand_number(self) -> int:
        return self.setup.number

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def pollona(self) -> bool:
        """The game is won with the losers still at exactly 0."""
        return self.winner is not None and self.scores[self.winner ^ 1] == 0

    def redeal_eligible(self) -> tuple[int, ...]:
        """Seats that hold enough doubles to ask for a redeal and have not answered yet."""
        if self.phase is not Phase.REDEAL or self.pending_deal is None:
            return ()
        answered = {seat for seat, _ in self.setup.redeal_answers}
        return tuple(s for s in _eligible(self.rules, self.pending_deal) if s not in answered)

    def choosing_seats(self) -> tuple[int, int] | None:
        """The two seats that choose Salgo / Sal tú now, low seat first."""
        if self.phase is not Phase.CHOOSE or self.setup.leading_pair is None:
            return None
        pair = self.setup.leading_pair
        return (pair, pair + 2)

    # -- the deal -----------------------------------------------------------------------------

    def needs_first_draw(self) -> bool:
        """The first hand's leading pair is drawn by tiles and has not been drawn yet."""
        return (
            self.phase is Phase.DEAL
            and self._lead_undecided()
            and self.rules.first_leader is FirstLeader.DRAW
            and self.setup.draw is None
        )

    def _lead_undecided(self) -> bool:
        # Only the first hand of a game starts with neither a leading pair nor a leader.
        return self.setup.leading_pair is None and self.setup.leader is None

    def needs_coin(self) -> bool:
        return (
            self.phase is Phase.DEAL
            and self._lead_undecided()
            and self.rules.first_leader is FirstLeader.COIN
            and self.setup.coin is None
        )

    def deal(
        self,
        deal: Deal,
        *,
        draw: Sequence[tuple[Tile, Tile]] | None = None,
        coin: int | None = None,
        hold: bool = False,
    ) -> GameState:
        """Take a deal (and, for the first hand, the draw or the coin that says who leads).

        Without ``hold`` the game waits in REDEAL only when a seat may ask for a redeal, and
        goes on once every such seat has answered. With ``hold`` it waits in REDEAL after every
        deal, a decline changes nothing anybody sees, and only ``close_redeal`` (or a redeal
        asked) ends the wait: whoever watches the phase learns nothing about the hands.
        """
        if self.phase is not Phase.DEAL:
            raise WrongPhaseError(f"no deal is due: the game is in phase {self.phase.value}")
        _check_deal(self.rules, deal)
        setup = self.setup
        if self.needs_first_draw():
            if draw is None:
                raise InvalidDealError("the first hand needs the draw of a tile for each pair")
            setup = replace(setup, draw=_check_draw(self.rules, draw))
            setup = replace(setup, leading_pair=_draw_winner(setup.draw or ()), priority=None)
        elif draw is not None and setup.draw is None:
            raise InvalidDealError("a tile draw is only for the first hand under draw rules")
        if self.needs_coin():
            if isinstance(coin, bool) or coin not in (0, 1):
                raise InvalidDealError("the first hand needs the coin: 0 (pair A) or 1 (pair B)")
            setup = replace(setup, coin=coin, leading_pair=coin, priority=None)
        elif coin is not None and setup.coin is None:
            raise InvalidDealError("a coin is only for the first hand under coin rules")
        if setup.leading_pair is not None and setup.priority is None and setup.leader is None:
            # First hand: the first seat of the pair has priority.
            setup = replace(setup, priority=setup.leading_pair)
        state = replace(
            self, setup=replace(setup, redeal_answers=()), pending_deal=deal, hand=None,
            redeal_held=hold,
        )  # fmt: skip
        if hold or _eligible(self.rules, deal):
            return replace(state, phase=Phase.REDEAL)
        return state._after_redeal_window()

    def answer_redeal(self, seat: int, ask: bool) -> GameState:
        """A player with 5+ doubles asks for a redeal (``ask``) or declines (silence = decline)."""
        if self.phase is not Phase.REDEAL or self.pending_deal is None:
            raise WrongPhaseError("no redeal can be asked for now")
        if seat not in self.redeal_eligible():
            raise IllegalMoveError(
                f"seat {seat} cannot ask for a redeal (it needs {self.rules.redeal_doubles}+ "
                "doubles and may answer once)"
            )
        setup = self.setup
        if ask:
            redeal = Redeal(self.pending_deal, seat)
            setup = replace(setup, redeals=(*setup.redeals, redeal), redeal_answers=())
            # Everything is reshuffled; the right to lead does not change.
            return replace(
                self, phase=Phase.DEAL, setup=setup, pending_deal=None, redeal_held=False
            )
        setup = replace(setup, redeal_answers=(*setup.redeal_answers, (seat, False)))
        state = replace(self, setup=setup)
        if state.redeal_eligible() or state.redeal_held:
            return state
        return state._after_redeal_window()

    def close_redeal(self) -> GameState:
        """The redeal window ends: every seat that could still ask stays silent (a decline),
        and the hand goes on to the lead (a held deal's only way out but a redeal)."""
        if self.phase is not Phase.REDEAL or self.pending_deal is None:
            raise WrongPhaseError("no redeal window is open")
        silent = tuple((s, False) for s in self.redeal_eligible())
        setup = replace(self.setup, redeal_answers=(*self.setup.redeal_answers, *silent))
        return replace(self, setup=setup)._after_redeal_window()

    def _after_redeal_window(self) -> GameState:
        deal = self.pending_deal
        assert deal is not None
        setup = self.setup
        if setup.leader is None and setup.leading_pair is None:
            # Holder-of-the-highest-double rules decide from the deal itself.
            setup = replace(setup, leader=_highest_double_holder(deal))
        if setup.leader is not None:
            return replace(self, setup=setup, redeal_held=False)._start_play(setup.leader)
        return replace(self, phase=Phase.CHOOSE, setup=setup, redeal_held=False)

    def choose_leader(self, first: LeadChoice | None, second: LeadChoice | None) -> GameState:
        """The simultaneous reveal of the leading pair's choices (low seat first; None = silent).

        Exactly one Salgo: he leads. Both the same, or neither answered: the priority player
        leads. One answered and the other silent: the silent one counts as Sal tú.
        """
        seats = self.choosing_seats()
        if seats is None:
            raise WrongPhaseError("nobody is choosing who leads now")
        setup = self.setup
        assert setup.priority is not None
        leader = resolve_lead(seats, (first, second), setup.priority)
        setup = replace(setup, choices=(first, second), leader=leader)
        return replace(self, setup=setup)._start_play(leader)

    def _start_play(self, leader: int) -> GameState:
        deal = self.pending_deal
        assert deal is not None
        hand = HandState.start(self.rules, deal, leader, first_pass_pending=self.first_pass_pending)
        return replace(self, phase=Phase.PLAY, hand=hand, pending_deal=None)

    # -- play ---------------------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        if self.phase is not Phase.PLAY or self.hand is None:
            return []
        return self.hand.legal_actions()

    def play(self, action: Action, seat: int | None = None) -> GameState:
        """Apply a play or a pass; score bonuses, the hand, and end the game at the target."""
        if self.phase is not Phase.PLAY or self.hand is None:
            raise WrongPhaseError(f"no play is due: the game is in phase {self.phase.value}")
        before = self.hand
        hand = before.apply(action, seat)
        state = replace(self, hand=hand, first_pass_pending=hand.first_pass_pending)
        for bonus in hand.bonuses[len(before.bonuses) :]:
            state = state._score(bonus.pair, bonus.points, bonus.kind.value)
            if state.phase is Phase.OVER:
                return state._archive()
        if hand.outcome is None:
            return state
        outcome = hand.outcome
        if outcome.winning_pair is not None:
            state = state._score(outcome.winning_pair, outcome.points, "hand")
        else:
            state = state._note_tie()
        state = state._archive()
        if state.phase is Phase.OVER:
            return state
        return state._next_setup(hand, outcome)

    def _score(self, pair: int, points: int, kind: str) -> GameState:
        scores = list(self.scores)
        scores[pair] += points
        totals = (scores[0], scores[1])
        line = ScoreLine(self.hand_number, pair, points, kind, totals)
        state = replace(self, scores=totals, sheet=(*self.sheet, line))
        if totals[pair] >= self.rules.target:
            return replace(state, phase=Phase.OVER, winner=pair)
        return state

    def _note_tie(self) -> GameState:
        # A tied block is a line on the sheet worth nothing, so the planilla shows every hand.
        line = ScoreLine(self.hand_number, -1, 0, "hand", self.scores)
        return replace(self, sheet=(*self.sheet, line))

    def _archive(self) -> GameState:
        assert self.hand is not None
        played = (*self.played, PlayedHand(self.setup, self.hand))
        return replace(self, played=played)

    def _next_setup(self, hand: HandState, outcome: Outcome) -> GameState:
        rules = self.rules
        number = self.hand_number + 1
        leader = hand.leader
        if rules.next_leader is NextLeader.RIGHT_OF_LAST_LEADER:
            setup = Setup(number, leader=(leader + 1) & 3)
        elif outcome.winner is None:
            # Unscored tied block: the other pair leads; its first player after the tied hand's
            # leader has priority.
            if rules.next_leader is NextLeader.WINNER:
                setup = Setup(number, leader=(leader + 1) & 3)
            else:
                setup = Setup(number, leading_pair=(leader & 1) ^ 1, priority=(leader + 1) & 3)
        elif rules.next_leader is NextLeader.WINNER:
            setup = Setup(number, leader=outcome.winner)
        else:
            setup = Setup(number, leading_pair=outcome.winner & 1, priority=outcome.winner)
        # The finished hand stays in ``hand`` (shown face up) until the next deal replaces it.
        return replace(self, phase=Phase.DEAL, setup=setup)


def resolve_lead(
    seats: tuple[int, int], choices: tuple[LeadChoice | None, LeadChoice | None], priority: int
) -> int:
    """Who leads, from the pair's secret choices (docs/rules.md, section 4)."""
    first, second = choices
    if first is None and second is not None:
        first = LeadChoice.SAL_TU
    if second is None and first is not None:
        second = LeadChoice.SAL_TU
    if first is LeadChoice.SALGO and second is not LeadChoice.SALGO:
        return seats[0]
    if second is LeadChoice.SALGO and first is not LeadChoice.SALGO:
        return seats[1]
    return priority


def _check_deal(rules: Rules, deal: Deal) -> None:
    seen = deal.sleepers
    if deal.sleepers & ~rules.tile_set.mask:
        raise InvalidDealError("a sleeper is not a tile of this set")
    for seat, mask in enumerate(deal.hands):
        if mask & ~rules.tile_set.mask:
            raise InvalidDealError(f"seat {seat} holds a tile that is not in this set")
        if mask.bit_count() != rules.tiles_each:
            raise InvalidDealError(
                f"seat {seat} holds {mask.bit_count()} tiles; these rules deal {rules.tiles_each}"
            )
        if seen & mask:
            raise InvalidDealError(f"seat {seat} holds a tile dealt elsewhere too")
        seen |= mask
    if seen != rules.tile_set.mask:
        raise InvalidDealError("the deal leaves tiles of the set out")


def _eligible(rules: Rules, deal: Deal) -> tuple[int, ...]:
    if rules.redeal_doubles <= 0:
        return ()
    return tuple(
        s for s in range(4) if (deal.hands[s] & DOUBLES_MASK).bit_count() >= rules.redeal_doubles
    )


def _highest_double_holder(deal: Deal) -> int:
    """The seat holding the highest double dealt; with no double dealt, the heaviest tile."""
    best_seat, best_key = 0, (-1, -1)
    for seat in range(4):
        for i in iter_bits(deal.hands[seat]):
            tile = ALL_TILES[i]
            key = (1 if tile.is_double else 0, tile.pips)
            if key > best_key:
                best_seat, best_key = seat, key
    return best_seat


def _check_draw(rules: Rules, draw: Sequence[tuple[Tile, Tile]]) -> tuple[tuple[Tile, Tile], ...]:
    attempts = tuple((a, b) for a, b in draw)
    if not attempts:
        raise InvalidDealError("the first-hand draw needs at least one pair of tiles")
    for k, (a, b) in enumerate(attempts):
        if a == b or a not in rules.tile_set or b not in rules.tile_set:
            raise InvalidDealError(f"draw {k}: {a} and {b} are not two tiles of this set")
        equal = a.pips == b.pips
        last = k == len(attempts) - 1
        if equal and last:
            raise InvalidDealError(f"draw {k}: equal sums ({a}, {b}) must be drawn again")
        if not equal and not last:
            raise InvalidDealError(f"draw {k}: {a} and {b} differ, so no further draw was due")
    return attempts


def _draw_winner(draw: Sequence[tuple[Tile, Tile]]) -> int:
    a, b = draw[-1]
    return 0 if a.pips > b.pips else 1


@dataclass(frozen=True, slots=True)
class MatchState:
    """Games until a pair has won ``rules.games_to_win_match`` (a pollona counts as two)."""

    rules: Rules
    games: tuple[GameState, ...] = ()
    wins: tuple[int, int] = (0, 0)

    @property
    def winner(self) -> int | None:
        for pair in (0, 1):
            if self.wins[pair] >= self.rules.games_to_win_match:
                return pair
        return None

    def add_game(self, game: GameState) -> MatchState:
        if self.winner is not None:
            raise WrongPhaseError("the match is already decided")
        if game.winner is None:
            raise WrongPhaseError("only a finished game counts in a match")
        wins = list(self.wins)
        wins[game.winner] += 2 if game.pollona else 1
        return replace(self, games=(*self.games, game), wins=(wins[0], wins[1]))
