"""Tiles, the double-nine and double-six sets, and tile notation.

A tile is written high half first (``"94"``, ``"00"``); input accepts either order. Every tile
has a *universal index*, its position in the canonical double-nine order (00, 01, ..., 09, 11,
..., 99), so that tiles of either set fit in one int bitmask: the fast path and views use it.

>>> Tile.parse("49")
Tile(high=9, low=4)
>>> str(Tile.parse("49")), Tile.parse("49").pips
('94', 13)
>>> len(DOUBLE_NINE.tiles), DOUBLE_NINE.total_pips, len(DOUBLE_SIX.tiles)
(55, 495, 28)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

from tranque.rules.errors import MalformedTileError

MAX_PIP = 9


def _universal_index(low: int, high: int) -> int:
    # Tiles (a, b), a <= b, by a then b: row a starts after rows 0..a-1 of lengths 10, 9, ...
    return low * (2 * MAX_PIP + 3 - low) // 2 + (high - low)


@dataclass(frozen=True, slots=True, order=True)
class Tile:
    """One domino: two halves, ``high >= low``. Worth its pip sum."""

    high: int
    low: int
    # Derived, stored because the hot paths read them on every move.
    index: int = field(init=False, compare=False, repr=False)
    """Universal index: position in the canonical double-nine order."""
    bit: int = field(init=False, compare=False, repr=False)
    pips: int = field(init=False, compare=False, repr=False)
    text: str = field(init=False, compare=False, repr=False)  # ``str(tile)``: "94"

    def __post_init__(self) -> None:
        if not (0 <= self.low <= self.high <= MAX_PIP):
            raise MalformedTileError(f"no such tile: {self.high}|{self.low}")
        index = _universal_index(self.low, self.high)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "bit", 1 << index)
        object.__setattr__(self, "pips", self.high + self.low)
        object.__setattr__(self, "text", f"{self.high}{self.low}")

    @staticmethod
    def of(a: int, b: int) -> Tile:
        """The tile with halves ``a`` and ``b`` in either order (interned)."""
        try:
            return _BY_PAIR[(a, b)]
        except KeyError:
            raise MalformedTileError(f"no such tile: {a}|{b}") from None

    @staticmethod
    def parse(text: str) -> Tile:
        """Parse ``"94"`` or ``"49"``. Raises MalformedTileError with the offending text."""
        tile = _BY_TEXT.get(text.strip()) if isinstance(text, str) else None
        if tile is None:
            raise MalformedTileError(f"not a tile: {text!r} (expected two digits 0-9, like '94')")
        return tile

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    def has(self, number: int) -> bool:
        return number in (self.high, self.low)

    def other(self, number: int) -> int:
        """The half that is left open when this tile is played on ``number``."""
        if number == self.high:
            return self.low
        if number == self.low:
            return self.high
        raise ValueError(f"tile {self} has no {number}")

    def __str__(self) -> str:
        return self.text


def _build() -> tuple[tuple[Tile, ...], dict[tuple[int, int], Tile], dict[str, Tile]]:
    tiles = tuple(Tile(b, a) for a in range(MAX_PIP + 1) for b in range(a, MAX_PIP + 1))
    by_pair: dict[tuple[int, int], Tile] = {}
    by_text: dict[str, Tile] = {}
    for t in tiles:
        by_pair[(t.high, t.low)] = by_pair[(t.low, t.high)] = t
        by_text[f"{t.high}{t.low}"] = by_text[f"{t.low}{t.high}"] = t
    return tiles, by_pair, by_text


ALL_TILES, _BY_PAIR, _BY_TEXT = _build()
"""Every tile of the double-nine set, indexed by universal index."""
assert all(t.index == i for i, t in enumerate(ALL_TILES))

PIPS: tuple[int, ...] = tuple(t.pips for t in ALL_TILES)
NUMBER_MASK: tuple[int, ...] = tuple(
    sum(t.bit for t in ALL_TILES if t.has(n)) for n in range(MAX_PIP + 1)
)
"""For each number, the bitmask of the tiles that carry it."""
DOUBLES_MASK: int = sum(t.bit for t in ALL_TILES if t.is_double)


@dataclass(frozen=True)
class TileSet:
    """A domino set: every tile with both halves in ``0..max_pip``, in canonical order."""

    max_pip: int

    @cached_property
    def tiles(self) -> tuple[Tile, ...]:
        """Canonical order: (a, b) with a <= b, by a then b. The fairness shuffle starts here."""
        top = self.max_pip + 1
        return tuple(Tile.of(b, a) for a in range(top) for b in range(a, top))

    @cached_property
    def mask(self) -> int:
        return mask_of(self.tiles)

    @property
    def total_pips(self) -> int:
        return sum(t.pips for t in self.tiles)

    @property
    def doubles(self) -> tuple[Tile, ...]:
        return tuple(t for t in self.tiles if t.is_double)

    def __contains__(self, tile: object) -> bool:
        return isinstance(tile, Tile) and tile.high <= self.max_pip


DOUBLE_NINE = TileSet(9)
DOUBLE_SIX = TileSet(6)


def mask_of(tiles: Iterable[Tile]) -> int:
    mask = 0
    for t in tiles:
        mask |= t.bit
    return mask


def tiles_of(mask: int) -> list[Tile]:
    """The tiles of a bitmask in reverse canonical order (99 98 88 97 ...), the record order."""
    out: list[Tile] = []
    while mask:
        low = mask & -mask
        out.append(ALL_TILES[low.bit_length() - 1])
        mask ^= low
    out.reverse()
    return out


def iter_bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def pips_of(mask: int) -> int:
    total = 0
    while mask:
        low = mask & -mask
        total += PIPS[low.bit_length() - 1]
        mask ^= low
    return total


def format_tiles(mask_or_tiles: int | Iterable[Tile]) -> str:
    """``"99 94 00"``: space separated, reverse canonical order for a mask (record notation)."""
    if isinstance(mask_or_tiles, int):
        return _format_mask(mask_or_tiles)
    return " ".join(str(t) for t in mask_or_tiles)


@functools.lru_cache(maxsize=8192)
def _format_mask(mask: int) -> str:
    # A server sends every seat its hand with every event: the same few masks, again and again.
    return " ".join(str(t) for t in tiles_of(mask))


def parse_tiles(text: str) -> list[Tile]:
    """Parse ``"99 94 00"``. Raises MalformedTileError naming the bad token."""
    return [Tile.parse(tok) for tok in text.split()]
