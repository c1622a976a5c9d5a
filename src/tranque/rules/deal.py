"""A deal: the four hands of a hand and the tiles left asleep (``dormidas``), checked to be a
deal of the rules' set, with its text form for records and examples."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tranque.rules.errors import InvalidDealError
from tranque.rules.tiles import ALL_TILES, Tile, format_tiles, iter_bits, parse_tiles
from tranque.rules.variants import Rules


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
