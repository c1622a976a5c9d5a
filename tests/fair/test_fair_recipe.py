"""The recipe: the published test vectors, an independent re-derivation, and the edge cases.

The vectors here are the ones in docs/fairness.md, written out literally: if the implementation
drifts from the document, these fail. ``_independent_order`` recomputes the shuffle with nothing but
hashlib, hmac and struct, so that the vectors are checked against the text of the recipe rather than
only against the code that printed them.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tranque.fair.recipe import (
    Stream,
    client_commit,
    coin,
    coin_word,
    deal_for,
    deal_key,
    deal_order,
    draw_label,
    first_hand_draw,
    server_commit,
    shuffle_label,
    u32,
    u64,
)
from tranque.rules.tiles import format_tiles
from tranque.rules.variants import HAVANA, ORIENTE, Rules

SERVER_SEED = bytes(range(32))
SEED0 = bytes(range(32, 64))
SEED1 = bytes(range(64, 96))
SEED3 = bytes(range(96, 128))
SEEDS = [SEED0, SEED1, b"", SEED3]  # seat 2 is a bot: the empty seed

SERVER_COMMIT = "e276eecbd6f79aafb7a4391e7a2b92ead2f34772caee75b8fe416141d23a9c82"
CLIENT_COMMITS = [
    "5db866d76876f1fd28894347b930c4b41f32a1440c60469ed15a4a0904319dcb",
    "ce5d92a61b07e00b3785bcee7d916e9a570ca4d9feb4cb14293d8bcadf9ea345",
    None,
    "9725d02d38a08ab663b80150a8ea1784f89751e20beddd2c7659134a53fb8f89",
]


@dataclass(frozen=True)
class Attempt:
    order: str  # the shuffled set, position 0 first
    hands: list[str]  # record notation (high tiles first)
    sleepers: str
    doubles: list[int]


@dataclass(frozen=True)
class Vector:
    rules: Rules
    table: str
    hand: int
    seeds: list[bytes]
    key: str
    words: str  # the first block of "shuffle/" || u32(0)
    attempts: list[Attempt]
    draw: list[tuple[str, str]] = field(default_factory=list)
    coin_word: int | None = None


# Vector 1: Havana, a redeal (seat 2 is dealt five doubles at attempt 0).
V1 = Vector(
    rules=HAVANA,
    table="mesa-1",
    hand=15,
    seeds=SEEDS,
    key="4b924a95e2425c9321f134e99d85c1fe32f51c70dfd179a75f80ce45a6a70757",
    words="f2ab18e0 ff5ca585 ed794b36 3f492b5c eb437726 2620b154 dac929be 8c42c974",
    attempts=[
        Attempt(
            order="95 41 98 54 99 65 90 75 92 44 80 61 93 82 51 84 85 96 50 52 21 94 74 76 22 "
            "42 77 33 11 88 62 97 86 63 87 72 53 81 55 20 70 31 83 30 43 71 64 40 10 60 "
            "00 32 91 66 73",
            hands=[
                "99 98 95 75 65 54 44 92 41 90",
                "96 85 84 93 82 52 61 51 80 50",
                "88 77 76 94 74 33 42 22 21 11",
                "97 87 86 55 63 53 72 62 81 20",
            ],
            sleepers="66 64 83 73 43 32 91 71 31 70 60 40 30 10 00",
            doubles=[2, 0, 5, 1],
        ),
        Attempt(
            order="30 33 73 83 70 00 21 92 75 65 77 74 84 44 43 97 96 11 82 51 40 93 94 61 55 "
            "64 88 54 72 66 98 81 87 76 31 62 80 85 71 86 20 41 95 52 60 99 10 91 22 50 "
            "32 63 42 90 53",
            hands=[
                "75 65 83 73 33 92 21 70 30 00",
                "97 77 96 84 74 44 43 82 51 11",
                "88 66 55 94 64 54 93 72 61 40",
                "98 87 86 76 85 62 81 71 31 80",
            ],
            sleepers="99 95 63 53 52 42 32 22 91 41 90 60 50 20 10",
            doubles=[2, 3, 3, 0],
        ),
    ],
)

# Vector 2: Havana, hand 1 of a table: the first-hand draw ties (60 against 33) and is drawn again.
V2 = Vector(
    rules=HAVANA,
    table="mesa-6",
    hand=1,
    seeds=SEEDS,
    key="21b989b32ea98360086ad5875113552f887d4c1743b9a0539ce0afc404e7b0b7",
    words="4d3cb17f c12725a1 fc770bc5 99bd9d6d 90561227 c29e3584 25008004 c886992f",
    attempts=[
        Attempt(
            order="54 22 52 20 92 82 86 11 50 80 70 88 62 72 64 31 55 84 81 41 40 63 53 10 30 "
            "21 93 85 32 94 90 99 76 60 95 73 98 87 00 65 71 44 96 33 51 97 91 61 77 75 "
            "83 66 43 74 42",
            hands=[
                "86 54 92 82 52 22 11 80 50 20",
                "88 55 84 64 72 62 81 41 31 70",
                "85 94 93 63 53 32 21 40 30 10",
                "99 98 87 76 95 65 73 90 60 00",
            ],
            sleepers="97 77 96 66 75 74 44 83 43 33 42 91 71 61 51",
            doubles=[2, 2, 0, 2],
        )
    ],
    draw=[("60", "33"), ("64", "42")],
    coin_word=0x676C5540,
)

# Vector 3: Oriente (double six, 7 each, no sleepers), every seat a bot, a non-ASCII table id.
V3 = Vector(
    rules=ORIENTE,
    table="oriente-ñ",
    hand=1,
    seeds=[b"", b"", b"", b""],
    key="9d3f57ab327bc03ba65f489ae3ce5b71b6c8bf3a87d6c4344f921849f969022b",
    words="e0631ab8 c303bd57 07982195 216cc37d a2791953 6a1d0b96 34af3489 a5360cda",
    attempts=[
        Attempt(
            order="30 54 42 10 33 53 22 66 52 44 63 61 40 65 21 20 31 11 41 00 32 50 62 43 51 "
            "55 60 64",
            hands=[
                "54 53 33 42 22 30 10",
                "66 65 44 63 52 61 40",
                "32 41 31 21 11 20 00",
                "55 64 43 62 51 60 50",
            ],
            sleepers="",
            doubles=[2, 2, 2, 1],
        )
    ],
)

VECTORS = {"redeal": V1, "draw": V2, "double-six": V3}


def _key(v: Vector) -> bytes:
    return deal_key(SERVER_SEED, v.table, v.hand, v.seeds)


def test_commitments() -> None:
    assert server_commit(SERVER_SEED) == SERVER_COMMIT
    assert [client_commit(s) if s else None for s in SEEDS] == CLIENT_COMMITS
    assert server_commit(SEED0) != client_commit(SEED0)  # the tags keep them apart


@pytest.mark.parametrize("name", VECTORS)
def test_vector(name: str) -> None:
    v = VECTORS[name]
    key = _key(v)
    assert key.hex() == v.key
    stream = Stream(key, shuffle_label(0))
    assert " ".join(f"{stream.word():08x}" for _ in range(8)) == v.words
    for attempt, expected in enumerate(v.attempts):
        assert format_tiles(deal_order(key, v.rules, attempt)) == expected.order
        deal = deal_for(key, v.rules, attempt)
        assert [deal.hand_text(s) for s in range(4)] == expected.hands
        assert format_tiles(deal.sleepers) == expected.sleepers
        assert [deal.doubles(s) for s in range(4)] == expected.doubles


def test_vector_draw_and_coin() -> None:
    key = _key(V2)
    draws = [(str(a), str(b)) for a, b in first_hand_draw(key, HAVANA)]
    assert draws == V2.draw
    assert coin_word(key) == V2.coin_word
    assert coin(key) == 0  # 0x...40: lowest bit 0, pair A


# --------------------------------------------------------------------------------------------
# An independent reading of the recipe, from the standard library only.


def _independent_key(table: str, hand: int, seeds: list[bytes]) -> bytes:
    msg = b"tranque-deal/1" + struct.pack(">I", len(table.encode())) + table.encode()
    msg += struct.pack(">I", hand)
    for seed in seeds:
        msg += struct.pack(">I", len(seed)) + seed
    return hmac.new(SERVER_SEED, msg, hashlib.sha256).digest()


def _independent_order(key: bytes, max_pip: int, label: bytes) -> list[str]:
    words: list[int] = []
    block = 0

    def below(n: int) -> int:
        nonlocal block
        while True:
            if not words:
                digest = hmac.new(key, label + struct.pack(">Q", block), hashlib.sha256).digest()
                words.extend(struct.unpack(">8I", digest))
                block += 1
            w = words.pop(0)
            if w < 2**32 - (2**32 % n):
                return w % n

    tiles = [f"{b}{a}" for a in range(max_pip + 1) for b in range(a, max_pip + 1)]
    for i in range(len(tiles) - 1, 0, -1):
        j = below(i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


@pytest.mark.parametrize("name", VECTORS)
def test_vectors_agree_with_an_independent_derivation(name: str) -> None:
    v = VECTORS[name]
    key = _independent_key(v.table, v.hand, v.seeds)
    assert key.hex() == v.key
    for attempt, expected in enumerate(v.attempts):
        label = b"shuffle/" + struct.pack(">I", attempt)
        order = _independent_order(key, v.rules.max_pip, label)
        assert " ".join(order) == expected.order
        k = v.rules.tiles_each
        for seat in range(4):
            assert sorted(order[k * seat : k * seat + k]) == sorted(expected.hands[seat].split())
        assert sorted(order[4 * k :]) == sorted(expected.sleepers.split())
    draws = []
    for attempt in range(len(v.draw)):
        order = _independent_order(key, 9, b"draw/" + struct.pack(">I", attempt))
        draws.append((order[0], order[1]))
    assert draws == v.draw
    if v.coin_word is not None:
        coin_digest = hmac.new(key, b"coin/" + bytes(8), hashlib.sha256).digest()
        assert struct.unpack(">I", coin_digest[:4])[0] == v.coin_word


def test_vectors_are_in_the_document() -> None:
    doc = Path(__file__).parents[2] / "docs" / "fairness.md"
    text = doc.read_text(encoding="utf-8")
    assert SERVER_COMMIT in text
    for v in VECTORS.values():
        assert v.key in text
        assert v.words in text
        for expected in v.attempts:
            assert expected.order in text
            for hand in expected.hands:
                assert hand in text


# --------------------------------------------------------------------------------------------
# Edge cases


class _Words(Stream):
    """A stream that hands out chosen words, to test rejection at the boundary."""

    def __init__(self, words: list[int]) -> None:
        super().__init__(b"", b"")
        self._given = list(words)

    def word(self) -> int:
        return self._given.pop(0)


def test_below_rejects_the_top_partial_range() -> None:
    # 2^32 mod 55 = 26: words from 2^32 - 26 up are thrown away.
    assert 2**32 % 55 == 26
    limit = 2**32 - 26
    assert _Words([limit, 2**32 - 1, limit - 1]).below(55) == (limit - 1) % 55 == 54
    assert _Words([0]).below(55) == 0


def test_below_edges() -> None:
    assert _Words([2**32 - 1]).below(2**32) == 2**32 - 1  # nothing rejected
    assert _Words([2**32 - 1]).below(1) == 0
    # 2^32 mod 3 = 1: only the very last word is rejected.
    assert _Words([2**32 - 1, 2**32 - 2]).below(3) == (2**32 - 2) % 3
    with pytest.raises(ValueError):
        Stream(b"k", b"l").below(0)
    with pytest.raises(ValueError):
        Stream(b"k", b"l").below(2**32 + 1)


def test_stream_words_follow_the_blocks() -> None:
    key, label = b"k" * 32, b"shuffle/" + bytes(4)
    stream = Stream(key, label)
    got = [stream.word() for _ in range(17)]
    want: list[int] = []
    for j in range(3):
        want += struct.unpack(">8I", hmac.new(key, label + u64(j), hashlib.sha256).digest())
    assert got == want[:17]


def test_integer_encodings() -> None:
    assert u32(1) == b"\x00\x00\x00\x01"
    assert u64(258) == b"\x00" * 6 + b"\x01\x02"
    assert shuffle_label(2) == b"shuffle/\x00\x00\x00\x02"
    assert draw_label(0) == b"draw/\x00\x00\x00\x00"
    for bad in (-1, 2**32):
        with pytest.raises(ValueError):
            u32(bad)


def test_key_inputs_are_checked_and_length_prefixed() -> None:
    with pytest.raises(ValueError):
        deal_key(SERVER_SEED, "t", 0, SEEDS)
    with pytest.raises(ValueError):
        deal_key(SERVER_SEED, "t", 1, SEEDS[:3])
    # Moving a byte from one seat's seed to the next must change the key.
    a = deal_key(SERVER_SEED, "t", 1, [b"ab", b"", b"", b""])
    b = deal_key(SERVER_SEED, "t", 1, [b"a", b"b", b"", b""])
    assert a != b
    # The table id's length is its UTF-8 byte length.
    assert deal_key(SERVER_SEED, "ñ", 1, SEEDS) == _independent_key("ñ", 1, SEEDS)


def test_every_input_changes_the_deal() -> None:
    base = deal_key(SERVER_SEED, "t", 1, SEEDS)
    others = [
        deal_key(bytes(32), "t", 1, SEEDS),
        deal_key(SERVER_SEED, "u", 1, SEEDS),
        deal_key(SERVER_SEED, "t", 2, SEEDS),
        deal_key(SERVER_SEED, "t", 1, [SEED0, SEED1, SEED3, b""]),
    ]
    assert len({base, *others}) == 5
    assert deal_for(base, HAVANA, 0) != deal_for(base, HAVANA, 1)
