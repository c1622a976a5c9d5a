from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tranque.rules.errors import MalformedMoveError, MalformedTileError
from tranque.rules.hand import PASS, Action
from tranque.rules.tiles import (
    ALL_TILES,
    DOUBLE_NINE,
    DOUBLE_SIX,
    NUMBER_MASK,
    Tile,
    format_tiles,
    mask_of,
    parse_tiles,
    pips_of,
    tiles_of,
)


def test_double_nine_set() -> None:
    tiles = DOUBLE_NINE.tiles
    assert len(tiles) == 55 and len(set(tiles)) == 55
    assert DOUBLE_NINE.total_pips == 495
    assert sum(1 for t in tiles if t.is_double) == 10
    # Each number appears on ten tiles; a double belongs to one number only.
    for n in range(10):
        assert sum(1 for t in tiles if t.has(n)) == 10
        assert NUMBER_MASK[n].bit_count() == 10
    assert Tile.parse("99").pips == 18 and Tile.parse("00").pips == 0


def test_double_six_set() -> None:
    assert len(DOUBLE_SIX.tiles) == 28
    assert DOUBLE_SIX.total_pips == 168
    assert Tile.parse("77") not in DOUBLE_SIX and Tile.parse("66") in DOUBLE_SIX


def test_canonical_order_is_the_fairness_order() -> None:
    texts = [f"{t.low}{t.high}" for t in DOUBLE_NINE.tiles]
    assert texts[:11] == ["00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "11"]
    assert texts[-1] == "99"
    assert [t.index for t in DOUBLE_NINE.tiles] == list(range(55))
    assert [str(t) for t in DOUBLE_SIX.tiles][:8] == [
        "00",
        "10",
        "20",
        "30",
        "40",
        "50",
        "60",
        "11",
    ]


def test_notation_accepts_either_order_and_writes_high_first() -> None:
    assert Tile.parse("49") is Tile.parse("94") is Tile.of(4, 9)
    assert str(Tile.parse("49")) == "94"


@pytest.mark.parametrize("text", ["", "9", "994", "a4", "9-4", "100", " ", "4 9"])
def test_malformed_tiles_are_rejected_with_the_text(text: str) -> None:
    with pytest.raises(MalformedTileError, match="not a tile"):
        Tile.parse(text)


@pytest.mark.parametrize("text", ["9x", "94@", "94@10", "94@x", "@4", "pas", "94@4@4"])
def test_malformed_moves(text: str) -> None:
    with pytest.raises(MalformedMoveError):
        Action.parse(text)


def test_move_on_a_number_the_tile_lacks_is_malformed() -> None:
    with pytest.raises(MalformedMoveError, match="has no 3"):
        Action.parse("94@3")


@given(st.sampled_from(ALL_TILES), st.booleans())
def test_move_notation_round_trips(tile: Tile, on_low: bool) -> None:
    for action in (Action.lead(tile), Action.play(tile, tile.low if on_low else tile.high), PASS):
        assert Action.parse(str(action)) is action


@given(st.sets(st.sampled_from(ALL_TILES)))
def test_masks_round_trip(tiles: set[Tile]) -> None:
    mask = mask_of(tiles)
    assert set(tiles_of(mask)) == tiles
    assert pips_of(mask) == sum(t.pips for t in tiles)
    assert set(parse_tiles(format_tiles(mask))) == tiles
