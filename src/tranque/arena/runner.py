"""Running an arena over many duplicate pairs on all cores, deterministically.

Each pair's deals and bot seeds derive from (seed, pair index) only, and results are gathered in
index order, so the same seed gives the same figures whatever the number of workers (decision
times aside).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from dataclasses import dataclass

from tranque.arena.match import UnitResult, play_deal_pair, play_game_pair
from tranque.bots.base import make_bot
from tranque.rules.variants import HAVANA, Rules


@dataclass(frozen=True)
class ArenaConfig:
    bot_a: str
    bot_b: str
    pairs: int
    games: bool = False
    rules: Rules = HAVANA
    seed: int = 0
    workers: int = 1


_CONFIG: ArenaConfig | None = None


def _init(config: ArenaConfig) -> None:
    global _CONFIG
    _CONFIG = config


def _play(index: int) -> UnitResult:
    config = _CONFIG
    assert config is not None
    play = play_game_pair if config.games else play_deal_pair
    return play(config.rules, config.bot_a, config.bot_b, config.seed, index)


def warm_up(config: ArenaConfig) -> None:
    """Build each bot once (loading the numba kernels) before the workers fork."""
    for name in (config.bot_a, config.bot_b):
        bot = make_bot(name, 0)
        warm = getattr(bot, "warm_up", None)
        if warm is not None:
            warm()


def run_arena(
    config: ArenaConfig, progress: Callable[[int], None] | None = None
) -> list[UnitResult]:
    """Play every pair; call ``progress(done)`` as pairs finish. Results in index order."""
    warm_up(config)
    results: dict[int, UnitResult] = {}
    workers = max(1, min(config.workers, config.pairs))
    if workers == 1:
        _init(config)
        for i in range(config.pairs):
            results[i] = _play(i)
            if progress:
                progress(len(results))
    else:
        ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with ctx.Pool(workers, initializer=_init, initargs=(config,)) as pool:
            for unit in pool.imap_unordered(_play, range(config.pairs), chunksize=1):
                results[unit.index] = unit
                if progress:
                    progress(len(results))
    return [results[i] for i in range(config.pairs)]
