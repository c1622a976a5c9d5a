"""The actions of a hand: a tile led, a tile played on an open number, or a pass; the seats
and pairs they are played by (seats 0, 1, 2, 3 in playing order; pair A is seats 0 and 2).

Every action is one interned value (``Action.parse`` returns the same object for the same
text), so that listing a hand's legal moves builds nothing: ``plays_on`` memoises them per open
number and what the hand holds of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tranque.rules.errors import MalformedMoveError, MalformedTileError
from tranque.rules.tiles import ALL_TILES, Tile

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
        return LEADS[tile.index]

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
            return LEADS[tile.index]
        if len(end_text) != 1 or not end_text.isdigit():
            raise MalformedMoveError(f"not a move: {text!r} (the end after '@' is one digit)")
        return Action.play(tile, int(end_text))

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        """Notation that reads back: ``Action.parse('94@4')``."""
        return f"Action.parse({str(self)!r})"


PASS = Action(None, None)
LEADS: tuple[Action, ...] = tuple(Action(t, None) for t in ALL_TILES)
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


def plays_on(number: int, held: int) -> tuple[Action, ...]:
    table = _PLAYS_ON[number]
    plays = table.get(held)
    if plays is None:
        plays = table[held] = tuple(a for bit, a in _ON_NUMBER[number] if held & bit)
    return plays
