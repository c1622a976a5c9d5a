"""Ordinary random deals, for tests, the arena and terminal play.

Online tables never use these: they deal with the verifiable recipe in ``tranque.fair``. Both give a
``Deal``; the game does not care where the randomness came from.
"""

from __future__ import annotations

import random

from tranque.rules.game import GameState
from tranque.rules.hand import Deal
from tranque.rules.tiles import Tile, mask_of
from tranque.rules.variants import Rules


def random_deal(rules: Rules, rng: random.Random) -> Deal:
    tiles = list(rules.tile_set.tiles)
    rng.shuffle(tiles)
    k = rules.tiles_each
    hands = tuple(mask_of(tiles[k * s : k * s + k]) for s in range(4))
    return Deal((hands[0], hands[1], hands[2], hands[3]), mask_of(tiles[4 * k :]))


def random_draw(rules: Rules, rng: random.Random) -> list[tuple[Tile, Tile]]:
    """The first-hand draw: a tile per pair, drawn again while the sums are equal."""
    draws: list[tuple[Tile, Tile]] = []
    while True:
        a, b = rng.sample(rules.tile_set.tiles, 2)
        draws.append((a, b))
        if a.pips != b.pips:
            return draws


def deal_next(game: GameState, rng: random.Random) -> GameState:
    """Deal the game's next hand with whatever the first hand needs (draw or coin)."""
    draw = random_draw(game.rules, rng) if game.needs_first_draw() else None
    coin = rng.randrange(2) if game.needs_coin() else None
    return game.deal(random_deal(game.rules, rng), draw=draw, coin=coin)
