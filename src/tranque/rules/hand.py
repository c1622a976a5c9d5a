"""One hand (a *data*): from the deal to pegarse or the tranque.

``HandState`` is an immutable value; ``apply(action)`` checks the action and returns the next state,
or raises a typed error and leaves everything as it was. Seats play in order 0, 1, 2, 3 (to the
right); pair A is seats 0 and 2, pair B seats 1 and 3.

Tiles in hands are int bitmasks over universal tile indices (see ``tiles``), which keeps the checked
path cheap enough that it need not be bypassed except in search.

A small hand, four tiles each (a ``Rules`` may deal fewer than ten), played to the end:

>>> rules = Rules(tiles_each=4)
>>> rules
Rules(tiles_each=4)
>>> deal = Deal.from_text(["99 94 44 41", "98 88 11 10", "92 22 21 20", "97 77 33 30"], rules=rules)
>>> hand = HandState.start(rules, deal, leader=0)
>>> sorted(str(a) for a in hand.legal_actions())
['41', '44', '94', '99']

An illegal action raises a typed error and changes nothing:

>>> hand.apply(Action.parse("98"))
Traceback (most recent call last):
    ...
tranque.rules.errors.TileNotInHandError: seat 0 does not hold 98
>>> hand = hand.apply(Action.parse("41"))
>>> hand.ends, hand.legal_actions()
((4, 1), [Action.parse('10@1'), Action.parse('11@1')])
>>> moves = "10@1 20@0 pass 44@4 pass 21@2 pass 94@4 98@9 pass pass pass 88@8 pass pass pass 11@1"
>>> for text in moves.split():
...     hand = hand.apply(Action.parse(text))
>>> hand.outcome.kind.value, hand.outcome.winner, hand.outcome.points, hand.outcome.pips
('pegarse', 1, 33, (18, 0, 15, 39))
"""

from __future__ import annotations

from typing import NamedTuple

from tranque.rules.actions import LEADS, PASS, SEATS, Action, pair_of, partner_of, plays_on
from tranque.rules.deal import Deal
from tranque.rules.errors import (
    HandOverError,
    IllegalMoveError,
    NotYourTurnError,
    PassNotAllowedError,
    TileDoesNotFitError,
    TileNotInHandError,
    WrongEndError,
)
from tranque.rules.outcome import (
    Bonus,
    BonusKind,
    EndKind,
    Outcome,
    pegarse_outcome,
    tranque_outcome,
)
from tranque.rules.tiles import NUMBER_MASK, iter_bits, pips_of
from tranque.rules.variants import Rules

__all__ = [
    "PASS",
    "SEATS",
    "Action",
    "Bonus",
    "BonusKind",
    "Deal",
    "EndKind",
    "HandState",
    "Outcome",
    "pair_of",
    "partner_of",
]


# --------------------------------------------------------------------------------------------
# The hand


class HandState(NamedTuple):
    """The state of one hand. Build it with ``HandState.start``.

    A named tuple rather than a frozen dataclass: it is just as immutable and is built in a third
    of the time, which matters on the checked path (one new state per move).
    """

    rules: Rules
    hands: tuple[int, int, int, int]
    sleepers: int
    leader: int
    turn: int
    left: int  # number on the left open end; -1 before the lead
    right: int
    moves: tuple[Action, ...]
    outcome: Outcome | None
    bonuses: tuple[Bonus, ...]
    first_pass_pending: bool  # Miami: no pass yet in this game

    @staticmethod
    def start(
        rules: Rules, deal: Deal, leader: int, *, first_pass_pending: bool = True
    ) -> HandState:
        if leader not in SEATS:
            raise IllegalMoveError(f"leader must be a seat 0-3, not {leader!r}")
        return HandState(
            rules=rules,
            hands=deal.hands,
            sleepers=deal.sleepers,
            leader=leader,
            turn=leader,
            left=-1,
            right=-1,
            moves=(),
            outcome=None,
            bonuses=(),
            first_pass_pending=first_pass_pending and rules.first_pass_points > 0,
        )

    # -- reading ------------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def ends(self) -> tuple[int, int] | None:
        """The two open numbers, or None before the lead."""
        return None if self.left < 0 else (self.left, self.right)

    @property
    def deal(self) -> Deal:
        """The deal as it was before any play (hands rebuilt from the moves)."""
        hands = list(self.hands)
        for k, action in enumerate(self.moves):
            if action.tile is not None:
                hands[(self.leader + k) & 3] |= action.tile.bit
        return Deal((hands[0], hands[1], hands[2], hands[3]), self.sleepers)

    def seat_of_move(self, k: int) -> int:
        """Seat that made move ``k`` (every turn is one move, passes included)."""
        return (self.leader + k) & 3

    def tile_count(self, seat: int) -> int:
        return self.hands[seat].bit_count()

    def pips(self, seat: int) -> int:
        return pips_of(self.hands[seat])

    def can_play(self, seat: int) -> bool:
        if self.left < 0:
            return self.hands[seat] != 0
        return bool(self.hands[seat] & (NUMBER_MASK[self.left] | NUMBER_MASK[self.right]))

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to play, or ``[PASS]`` when nothing fits; [] when over.

        A tile that fits both ends (showing different numbers) gives two actions.
        """
        if self.outcome is not None:
            return []
        hand = self.hands[self.turn]
        left = self.left
        if left < 0:
            return [LEADS[i] for i in iter_bits(hand)]
        right = self.right
        out = list(plays_on(left, hand & NUMBER_MASK[left]))
        if right != left:
            out += plays_on(right, hand & NUMBER_MASK[right])
        return out or [PASS]

    # -- playing ------------------------------------------------------------------------------

    def check(self, action: Action, seat: int | None = None) -> None:
        """Raise the typed error that ``apply`` would raise, without applying anything."""
        if self.outcome is not None:
            raise HandOverError("the hand is over")
        if seat is not None and seat != self.turn:
            raise NotYourTurnError(f"seat {seat} cannot play: it is seat {self.turn}'s turn")
        tile = action.tile
        hand = self.hands[self.turn]
        if tile is None:
            if self.can_play(self.turn):
                raise PassNotAllowedError(f"seat {self.turn} holds a tile that fits and must play")
            return
        if not hand & tile.bit:
            raise TileNotInHandError(f"seat {self.turn} does not hold {tile}")
        left, right = self.left, self.right
        if left < 0:
            if action.end is not None:
                raise WrongEndError(
                    f"the lead has no end to play on: write '{tile}', not '{action}'"
                )
            return
        # A tile that fits no end is refused as such, end named or not: "say which end" would
        # send the player looking for an end that does not exist.
        if not (tile.has(left) or tile.has(right)):
            raise TileDoesNotFitError(f"{tile} fits neither open end ({left}|{right})")
        if action.end is None:
            raise WrongEndError(
                f"say which end {tile} goes on (ends {left}|{right}): '{tile}@<number>'"
            )
        if action.end != left and action.end != right:
            raise WrongEndError(f"no open end shows {action.end} (ends {left}|{right})")
        if not tile.has(action.end):
            raise WrongEndError(f"{tile} does not go on the {action.end} end")

    def apply(self, action: Action, seat: int | None = None) -> HandState:
        """Check ``action`` (by ``seat``, if given) and return the next state."""
        if self._is_legal(action) and (seat is None or seat == self.turn):
            return self._advance(action)
        self.check(action, seat)  # raises the precise error
        raise AssertionError(f"{action} was judged both legal and illegal")  # pragma: no cover

    def _is_legal(self, action: Action) -> bool:
        """The quick yes/no of ``check``: the common, legal case costs a few mask tests."""
        if self.outcome is not None:
            return False
        tile = action.tile
        left = self.left
        if tile is None:
            if left < 0:
                return False
            return not self.hands[self.turn] & (NUMBER_MASK[left] | NUMBER_MASK[self.right])
        if not self.hands[self.turn] & tile.bit:
            return False
        end = action.end
        if left < 0:
            return end is None
        return end is not None and (end == left or end == self.right)

    def _advance(self, action: Action) -> HandState:
        """Apply an action already known to be legal."""
        rules = self.rules
        seat = self.turn
        k = len(self.moves)
        moves = (*self.moves, action)
        tile = action.tile
        if tile is None:
            bonuses = self.bonuses
            pending = self.first_pass_pending
            if pending:
                bonus = Bonus(BonusKind.FIRST_PASS, (seat + 1) & 1, rules.first_pass_points, k)
                bonuses = (*bonuses, bonus)
                pending = False
            return HandState(
                rules,
                self.hands,
                self.sleepers,
                self.leader,
                (seat + 1) & 3,
                self.left,
                self.right,
                moves,
                None,
                bonuses,
                pending,
            )
        h0, h1, h2, h3 = self.hands
        bit = tile.bit
        if seat == 0:
            h0 ^= bit
        elif seat == 1:
            h1 ^= bit
        elif seat == 2:
            h2 ^= bit
        else:
            h3 ^= bit
        hands = (h0, h1, h2, h3)
        high, low = tile.high, tile.low
        old_left = left = self.left
        old_right = right = self.right
        if left < 0:
            left, right = high, low
        elif action.end == left:
            left = low if high == left else high
        else:
            right = low if high == right else high
        open_mask = NUMBER_MASK[left] | NUMBER_MASK[right]
        bonuses = self.bonuses
        if (
            not k
            and high == low
            and rules.unanswered_double_lead_points
            and not hands[(seat + 1) & 3] & open_mask
        ):
            # Barrio: a double lead the next player cannot answer (a blocked table included).
            points = rules.unanswered_double_lead_points
            bonuses = (*bonuses, Bonus(BonusKind.UNANSWERED_DOUBLE_LEAD, seat & 1, points, k))
        outcome: Outcome | None = None
        if not hands[seat]:
            # Capicúa: the last tile fitted both ends at once, ends showing different numbers.
            capicua = old_left != old_right and high != low and {high, low} == {old_left, old_right}
            outcome = pegarse_outcome(rules, hands, seat, capicua)
        elif not (h0 | h1 | h2 | h3) & open_mask:
            outcome = tranque_outcome(rules, hands, seat, self.leader)
        return HandState(
            rules,
            hands,
            self.sleepers,
            self.leader,
            (seat + 1) & 3,
            left,
            right,
            moves,
            outcome,
            bonuses,
            self.first_pass_pending,
        )
