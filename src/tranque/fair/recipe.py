"""The published recipe: commitments, the deal key, the HMAC stream, the shuffle and the deal.

Everything here is a pure function of its arguments, so that anyone holding the revealed seeds can
recompute every deal, redeal, first-hand draw and coin. ``docs/fairness.md`` states the recipe in
words and gives test vectors; this module is the reference implementation of that text and must
change only together with it (the ``tranque-deal/1`` tag names the version).

>>> key = deal_key(bytes(32), "t", 1, [b"", b"", b"", b""])
>>> stream = Stream(key, b"coin/")
>>> 0 <= stream.below(55) < 55
True
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Sequence

from tranque.rules.hand import Deal
from tranque.rules.tiles import Tile, TileSet
from tranque.rules.variants import Rules

SERVER_TAG = b"tranque-server|"
CLIENT_TAG = b"tranque-client|"
DEAL_TAG = b"tranque-deal/1"
COIN_LABEL = b"coin/"
SEED_BYTES = 32
"""Both the server and every client draw seeds of this many bytes."""

_U32_LIMIT = 1 << 32
_BLOCK_WORDS = struct.Struct(">8I")


def u32(n: int) -> bytes:
    """Big-endian unsigned 32-bit integer; refuses values that do not fit rather than wrap."""
    if not 0 <= n < _U32_LIMIT:
        raise ValueError(f"{n} does not fit in an unsigned 32-bit integer")
    return n.to_bytes(4, "big")


def u64(n: int) -> bytes:
    """Big-endian unsigned 64-bit integer."""
    if not 0 <= n < 1 << 64:
        raise ValueError(f"{n} does not fit in an unsigned 64-bit integer")
    return n.to_bytes(8, "big")


# --------------------------------------------------------------------------------------------
# Commitments and the key


def server_commit(server_seed: bytes) -> str:
    """``SHA-256("tranque-server|" || server_seed)`` in hex: shown before the hand, binding it."""
    return hashlib.sha256(SERVER_TAG + server_seed).hexdigest()


def client_commit(client_seed: bytes) -> str:
    """``SHA-256("tranque-client|" || client_seed)`` in hex.

    The tags differ so that a client cannot replay the server's commitment as its own.
    """
    return hashlib.sha256(CLIENT_TAG + client_seed).hexdigest()


def deal_key(
    server_seed: bytes, table_id: str, hand_number: int, client_seeds: Sequence[bytes]
) -> bytes:
    """The hand's key: HMAC-SHA256 keyed by the server seed over the table, hand and four seeds.

    Every field is length-prefixed so that no two different inputs share a message. The table id is
    encoded as UTF-8 and its *byte* length is what is written.
    """
    if len(client_seeds) != 4:
        raise ValueError(
            f"a hand has 4 client seeds (empty for a seat with none), not {len(client_seeds)}"
        )
    if hand_number < 1:
        raise ValueError(f"hand numbers count from 1, not {hand_number}")
    table = table_id.encode("utf-8")
    parts = [DEAL_TAG, u32(len(table)), table, u32(hand_number)]
    for seed in client_seeds:
        parts += [u32(len(seed)), seed]
    return hmac.digest(server_seed, b"".join(parts), "sha256")


# --------------------------------------------------------------------------------------------
# The stream


def shuffle_label(attempt: int) -> bytes:
    """``"shuffle/" || u32(attempt)``: the deal of attempt 0, and of each redeal after it."""
    return b"shuffle/" + u32(attempt)


def draw_label(attempt: int) -> bytes:
    """``"draw/" || u32(attempt)``: the first-hand draw, again after equal sums."""
    return b"draw/" + u32(attempt)


class Stream:
    """The word stream of one label: block j is ``HMAC-SHA256(key, label || u64(j))``.

    Each block gives eight big-endian u32 words, used in order; a label's stream never restarts,
    so two uses of one label would give correlated draws: every use has its own label.
    """

    __slots__ = ("_block", "_key", "_label", "_words")

    def __init__(self, key: bytes, label: bytes) -> None:
        self._key = key
        self._label = label
        self._block = 0
        self._words: list[int] = []

    def word(self) -> int:
        """The next u32 word."""
        if not self._words:
            digest = hmac.digest(self._key, self._label + u64(self._block), "sha256")
            self._block += 1
            # Reversed so that pop() hands the words out in order.
            self._words = list(reversed(_BLOCK_WORDS.unpack(digest)))
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1``, by rejection so that no value is favoured.

        Words at or above the largest multiple of n below 2^32 are thrown away; ``w mod n`` alone
        would favour the small values by up to n/2^32.
        """
        if not 1 <= n <= _U32_LIMIT:
            raise ValueError(f"below(n) needs 1 <= n <= 2^32, not {n}")
        limit = _U32_LIMIT - _U32_LIMIT % n
        while True:
            w = self.word()
            if w < limit:
                return w % n


# --------------------------------------------------------------------------------------------
# Shuffle, deal, draw, coin


def shuffle(key: bytes, tile_set: TileSet, label: bytes) -> list[Tile]:
    """Fisher-Yates from the last position down, starting from the set's canonical order."""
    order = list(tile_set.tiles)
    stream = Stream(key, label)
    for i in range(len(order) - 1, 0, -1):
        j = stream.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def deal_order(key: bytes, rules: Rules, attempt: int = 0) -> list[Tile]:
    """The shuffled set for a deal: seat s holds positions ``k*s .. k*s+k-1``, sleepers the rest."""
    return shuffle(key, rules.tile_set, shuffle_label(attempt))


def split_order(order: Sequence[Tile], rules: Rules) -> tuple[list[list[Tile]], list[Tile]]:
    """The four hands and the sleepers of a shuffled set, each in shuffled order."""
    k = rules.tiles_each
    hands = [list(order[k * s : k * s + k]) for s in range(4)]
    return hands, list(order[4 * k :])


def deal_for(key: bytes, rules: Rules, attempt: int = 0) -> Deal:
    """The deal of ``attempt`` (0 for the first deal, one more for each redeal)."""
    hands, sleepers = split_order(deal_order(key, rules, attempt), rules)
    return Deal.from_tiles(hands, sleepers, rules=rules)


def draw_attempt(key: bytes, rules: Rules, attempt: int) -> tuple[Tile, Tile]:
    """One first-hand draw: pair A's tile (position 0) and pair B's tile (position 1)."""
    order = shuffle(key, rules.tile_set, draw_label(attempt))
    return order[0], order[1]


def first_hand_draw(key: bytes, rules: Rules) -> list[tuple[Tile, Tile]]:
    """Every draw until the pip sums differ; the last one decides who has the right to lead.

    Equal sums come up about one time in ten, so the list is almost always short; it ends because
    the attempts are labelled with a u32 and each is an independent uniform draw.
    """
    draws: list[tuple[Tile, Tile]] = []
    attempt = 0
    while True:
        a, b = draw_attempt(key, rules, attempt)
        draws.append((a, b))
        if a.pips != b.pips:
            return draws
        attempt += 1


def draw_winner(draw: tuple[Tile, Tile]) -> int | None:
    """The pair whose tile has the higher sum (0 = A, 1 = B), or None for equal sums."""
    a, b = draw
    if a.pips == b.pips:
        return None
    return 0 if a.pips > b.pips else 1


def coin_word(key: bytes) -> int:
    """The first word of the ``"coin/"`` stream (Miami's *pares o nones*)."""
    return Stream(key, COIN_LABEL).word()


def coin(key: bytes) -> int:
    """The pair that leads by the coin: lowest bit 0 gives pair A (0), 1 gives pair B (1)."""
    return coin_word(key) & 1
