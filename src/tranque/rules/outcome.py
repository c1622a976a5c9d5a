"""How a hand ends and what it is worth: pegarse (a player placed his last tile) or the
tranque (nobody can play; the lowest total wins, or a tied tranque per the rules), the capicúa,
and the bonuses scored apart from the hand's own points."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from tranque.rules.actions import SEATS
from tranque.rules.tiles import pips_of
from tranque.rules.variants import Rules, TiedBlock


class EndKind(str, Enum):
    PEGARSE = "pegarse"  # a player placed his last tile
    TRANQUE = "tranque"  # nobody can play; one pair holds the lowest total
    TIED_TRANQUE = "tied_tranque"  # nobody can play; the lowest total is in both pairs


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a hand ended and what it is worth (its own points; bonuses are separate)."""

    kind: EndKind
    winner: int | None  # the seat that went out, or the lowest total; None for an unscored tie
    winning_pair: int | None
    points: int  # capicúa multiplier included
    pips: tuple[int, int, int, int]  # what each seat holds at the end
    closer: int  # the seat that made the last play ("el que tranca" in a block)
    capicua: bool = False

    @property
    def viajera(self) -> bool:
        return self.points >= 100


class BonusKind(str, Enum):
    FIRST_PASS = "first_pass"  # Miami: the first pass of the game, to the passer's opponents
    UNANSWERED_DOUBLE_LEAD = "unanswered_double_lead"  # Barrio: to the leader's pair


@dataclass(frozen=True, slots=True)
class Bonus:
    """Points scored the moment something happens, apart from the hand's own points."""

    kind: BonusKind
    pair: int
    points: int
    move: int  # index into the hand's moves of the move that earned it


def pegarse_outcome(
    rules: Rules, hands: tuple[int, int, int, int], seat: int, capicua: bool
) -> Outcome:
    pips = (pips_of(hands[0]), pips_of(hands[1]), pips_of(hands[2]), pips_of(hands[3]))
    points = pips[(seat + 1) & 3] + pips[(seat + 3) & 3]
    if capicua:
        points *= rules.capicua_multiplier
    return Outcome(EndKind.PEGARSE, seat, seat & 1, points, pips, seat, capicua)


def first_after(closer: int, seats: Sequence[int]) -> int:
    """Of ``seats``, the first to play after ``closer`` in playing order."""
    for step in (1, 2, 3, 4):
        seat = (closer + step) & 3
        if seat in seats:
            return seat
    raise AssertionError("no seat given")


def tranque_outcome(
    rules: Rules, hands: tuple[int, int, int, int], closer: int, leader: int
) -> Outcome:
    pips = (pips_of(hands[0]), pips_of(hands[1]), pips_of(hands[2]), pips_of(hands[3]))
    lowest = min(pips)
    holders = [s for s in SEATS if pips[s] == lowest]
    pairs = {s & 1 for s in holders}
    if len(pairs) == 1:
        pair = holders[0] & 1
        winner = holders[0] if len(holders) == 1 else first_after(closer, holders)
        points = pips[pair ^ 1] + pips[(pair ^ 1) + 2]
        return Outcome(EndKind.TRANQUE, winner, pair, points, pips, closer)
    if rules.tied_block is TiedBlock.NOBODY_SCORES:
        return Outcome(EndKind.TIED_TRANQUE, None, None, 0, pips, closer)
    pair = leader & 1
    mine = (pair, pair + 2)
    best = min(pips[s] for s in mine)
    winner = first_after(closer, [s for s in mine if pips[s] == best])
    points = pips[pair ^ 1] + pips[(pair ^ 1) + 2]
    return Outcome(EndKind.TIED_TRANQUE, winner, pair, points, pips, closer)
