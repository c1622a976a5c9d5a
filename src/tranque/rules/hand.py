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

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple

from tranque.rules.errors import (
    HandOverError,
    IllegalMoveError,
    InvalidDealError,
    MalformedMoveError,
    MalformedTileError,
    NotYourTurnError,
    PassNotAllowedError,
    TileDoesNotFitError,
    TileNotInHandError,
    WrongEndError,
)
from tranque.rules.tiles import (
    ALL_TILES,
    NUMBER_MASK,
    Tile,
    format_tiles,
    iter_bits,
    parse_tiles,
    pips_of,
)
from tranque.rules.variants import Rules, TiedBlock

SEATS = (0, 1, 2, 3)


def pair_of(seat: int) -> int:
    """0 for pair A (seats 0, 2), 1 for pair B (seats 1, 3)."""
    return seat & 1


def partner_of(seat: int) -> int:
    return (seat + 2) & 3


# --------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Action:
    """A turn: a tile on an open end (``94@4``), the lead (``99``), or ``pass``.

    ``end`` is the number showing on the open end the tile goes on; it is ``None`` for the lead and
    for a pass. Actions are interned: use ``Action.play``, ``Action.lead``, ``PASS`` or ``parse``.

    >>> action = Action.parse("49@4")
    >>> action, str(action), action.tile, action.end
    (Action.parse('94@4'), '94@4', Tile(high=9, low=4), 4)
    >>> Action.parse(str(action)) is action
    True
    >>> Action.parse("PASS") is PASS, Action.parse("99")
    (True, Action.parse('99'))
    """

    tile: Tile | None
    end: int | None
    # ``str(action)``, made once: actions are interned, and their text goes out with every
    # event (the legal moves of the seat to play).
    text: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.tile is None:
            text = "pass"
        elif self.end is None:
            text = self.tile.text
        else:
            text = f"{self.tile.text}@{self.end}"
        object.__setattr__(self, "text", text)

    @property
    def is_pass(self) -> bool:
        return self.tile is None

    @staticmethod
    def lead(tile: Tile) -> Action:
        return _LEADS[tile.index]

    @staticmethod
    def play(tile: Tile, end: int) -> Action:
        action = _PLAYS.get((tile.index, end))
        if action is None:
            raise MalformedMoveError(f"tile {tile} has no {end}: '{tile}@{end}' is not a move")
        return action

    @staticmethod
    def parse(text: str) -> Action:
        """Parse ``"pass"``, ``"94"`` or ``"94@4"`` (halves in either order)."""
        if not isinstance(text, str):
            raise MalformedMoveError(f"a move is text like '94@4', not {text!r}")
        raw = text.strip().lower()
        if raw == "pass":
            return PASS
        tile_text, sep, end_text = raw.partition("@")
        try:
            tile = Tile.parse(tile_text)
        except MalformedTileError:
            raise MalformedMoveError(
                f"not a move: {text!r} (expected 'pass', a tile like '94', or '94@4')"
            ) from None
        if not sep:
            return _LEADS[tile.index]
        if len(end_text) != 1 or not end_text.isdigit():
            raise MalformedMoveError(f"not a move: {text!r} (the end after '@' is one digit)")
        return Action.play(tile, int(end_text))

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        """Notation that reads back: ``Action.parse('94@4')``."""
        return f"Action.parse({str(self)!r})"


PASS = Action(None, None)
_LEADS: tuple[Action, ...] = tuple(Action(t, None) for t in ALL_TILES)
_PLAYS: dict[tuple[int, int], Action] = {}
for _t in ALL_TILES:
    _PLAYS[(_t.index, _t.high)] = Action(_t, _t.high)
    _PLAYS[(_t.index, _t.low)] = Action(_t, _t.low)

# For each open number, the (bit, action) pairs of the tiles that go on it.
_ON_NUMBER: tuple[tuple[tuple[int, Action], ...], ...] = tuple(
    tuple((t.bit, _PLAYS[(t.index, n)]) for t in ALL_TILES if t.has(n)) for n in range(10)
)
# The plays on number n of a hand depend only on which of n's ten tiles it holds: memoised per
# (n, hand & NUMBER_MASK[n]), so listing legal moves costs two dict lookups.
_PLAYS_ON: tuple[dict[int, tuple[Action, ...]], ...] = tuple({} for _ in range(10))


def _plays_on(number: int, held: int) -> tuple[Action, ...]:
    table = _PLAYS_ON[number]
    plays = table.get(held)
    if plays is None:
        plays = table[held] = tuple(a for bit, a in _ON_NUMBER[number] if held & bit)
    return plays


# --------------------------------------------------------------------------------------------
# Deal


@dataclass(frozen=True, slots=True)
class Deal:
    """Four hands and the sleepers (dormidas), as bitmasks. Validated on construction."""

    hands: tuple[int, int, int, int]
    sleepers: int

    @staticmethod
    def from_tiles(
        hands: Sequence[Sequence[Tile]], sleepers: Sequence[Tile] | None = None, *, rules: Rules
    ) -> Deal:
        """Build and check a deal. Without sleepers, they are the set's tiles nobody holds."""
        if len(hands) != 4:
            raise InvalidDealError(f"a deal has 4 hands, not {len(hands)}")
        masks: list[int] = []
        seen = 0
        for seat, tiles in enumerate(hands):
            mask = 0
            for tile in tiles:
                if tile not in rules.tile_set:
                    raise InvalidDealError(f"seat {seat}: tile {tile} is not in this set")
                if seen & tile.bit:
                    raise InvalidDealError(f"seat {seat}: tile {tile} is dealt twice")
                seen |= tile.bit
                mask |= tile.bit
            if len(tiles) != rules.tiles_each:
                raise InvalidDealError(
                    f"seat {seat} holds {len(tiles)} tiles; these rules deal {rules.tiles_each}"
                )
            masks.append(mask)
        rest = rules.tile_set.mask & ~seen
        if sleepers is None:
            sleeper_mask = rest
        else:
            sleeper_mask = 0
            for tile in sleepers:
                if tile not in rules.tile_set:
                    raise InvalidDealError(f"sleeper {tile} is not in this set")
                if (seen | sleeper_mask) & tile.bit:
                    raise InvalidDealError(f"sleeper {tile} is also dealt elsewhere")
                sleeper_mask |= tile.bit
            if sleeper_mask != rest:
                missing = format_tiles(rest & ~sleeper_mask)
                raise InvalidDealError(f"the deal leaves out tiles: {missing}")
        return Deal((masks[0], masks[1], masks[2], masks[3]), sleeper_mask)

    @staticmethod
    def from_text(
        hands: Sequence[str], sleepers: str | None = None, *, rules: Rules | None = None
    ) -> Deal:
        """``Deal.from_text(["99 98 ...", ...], "...")``; record notation.

        Without ``rules`` the set and the hand size are read from the tiles themselves (then the
        sleepers must be given): that is how a deal's ``repr`` reads back.
        """
        if len(hands) != 4:
            raise InvalidDealError(f"a deal has 4 hands, not {len(hands)}")
        parsed = [parse_tiles(h) for h in hands]
        for seat, tiles in enumerate(parsed):
            if len(set(tiles)) != len(tiles):
                raise InvalidDealError(f"seat {seat}: a tile is written twice in {hands[seat]!r}")
        rest = None if sleepers is None else parse_tiles(sleepers)
        if rules is None:
            if rest is None:
                raise InvalidDealError("without rules, a deal needs its sleepers to show the set")
            every = [t for tiles in parsed for t in tiles] + rest
            max_pip = 9 if any(t.high > 6 for t in every) else 6
            try:
                rules = Rules(max_pip=max_pip, tiles_each=len(parsed[0]))
            except ValueError as exc:
                raise InvalidDealError(str(exc)) from None
        return Deal.from_tiles(parsed, rest, rules=rules)

    def __repr__(self) -> str:
        """The hands and the sleepers as tiles, in notation that reads back.

        >>> deal = Deal.from_text(
        ...     ["66 65 64 63 62 61 60", "55 54 44 53 52 51 50", "43 33 42 32 41 31 40",
        ...      "22 21 11 30 20 10 00"], "")  # double-six, seven each, no sleepers
        >>> deal  # doctest: +NORMALIZE_WHITESPACE
        Deal.from_text(['66 65 64 63 62 61 60', '55 54 44 53 52 51 50',
                        '43 33 42 32 41 31 40', '22 21 11 30 20 10 00'], '')
        >>> eval(repr(deal)) == deal
        True
        """
        hands = [format_tiles(mask) for mask in self.hands]
        return f"Deal.from_text({hands!r}, {format_tiles(self.sleepers)!r})"

    def doubles(self, seat: int) -> int:
        """How many doubles a seat holds (five or more gives the right to ask for a redeal)."""
        return sum(1 for i in iter_bits(self.hands[seat]) if ALL_TILES[i].is_double)

    def hand_text(self, seat: int) -> str:
        return format_tiles(self.hands[seat])


# --------------------------------------------------------------------------------------------
# Outcome


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
            return [_LEADS[i] for i in iter_bits(hand)]
        right = self.right
        out = list(_plays_on(left, hand & NUMBER_MASK[left]))
        if right != left:
            out += _plays_on(right, hand & NUMBER_MASK[right])
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
            outcome = _pegarse(rules, hands, seat, capicua)
        elif not (h0 | h1 | h2 | h3) & open_mask:
            outcome = _tranque(rules, hands, seat, self.leader)
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


def _pegarse(rules: Rules, hands: tuple[int, int, int, int], seat: int, capicua: bool) -> Outcome:
    pips = (pips_of(hands[0]), pips_of(hands[1]), pips_of(hands[2]), pips_of(hands[3]))
    points = pips[(seat + 1) & 3] + pips[(seat + 3) & 3]
    if capicua:
        points *= rules.capicua_multiplier
    return Outcome(EndKind.PEGARSE, seat, seat & 1, points, pips, seat, capicua)


def _first_after(closer: int, seats: Sequence[int]) -> int:
    """Of ``seats``, the first to play after ``closer`` in playing order."""
    for step in (1, 2, 3, 4):
        seat = (closer + step) & 3
        if seat in seats:
            return seat
    raise AssertionError("no seat given")


def _tranque(rules: Rules, hands: tuple[int, int, int, int], closer: int, leader: int) -> Outcome:
    pips = (pips_of(hands[0]), pips_of(hands[1]), pips_of(hands[2]), pips_of(hands[3]))
    lowest = min(pips)
    holders = [s for s in SEATS if pips[s] == lowest]
    pairs = {s & 1 for s in holders}
    if len(pairs) == 1:
        pair = holders[0] & 1
        winner = holders[0] if len(holders) == 1 else _first_after(closer, holders)
        points = pips[pair ^ 1] + pips[(pair ^ 1) + 2]
        return Outcome(EndKind.TRANQUE, winner, pair, points, pips, closer)
    if rules.tied_block is TiedBlock.NOBODY_SCORES:
        return Outcome(EndKind.TIED_TRANQUE, None, None, 0, pips, closer)
    pair = leader & 1
    mine = (pair, pair + 2)
    best = min(pips[s] for s in mine)
    winner = _first_after(closer, [s for s in mine if pips[s] == best])
    points = pips[pair ^ 1] + pips[(pair ^ 1) + 2]
    return Outcome(EndKind.TIED_TRANQUE, winner, pair, points, pips, closer)
