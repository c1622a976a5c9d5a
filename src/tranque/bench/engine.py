"""``tranque bench engine``: random complete hands per second on one core.

Two paths: the checked public API (``HandState.legal_actions`` / ``apply``, immutable states, every
move validated) and the bots' fast path (numba kernels on bitmasks, make/unmake, no checks). Both
deal a fresh random hand each time and play it to pegarse or the tranque with uniformly random
legal moves. Figures, not assertions: compare them as ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from typing import Any

from tranque.commandline import CommandError, bench_subparsers
from tranque.rules.dealing import random_deal
from tranque.rules.hand import HandState
from tranque.rules.variants import HAVANA


def register(subparsers: Any) -> None:
    kinds = bench_subparsers(subparsers)
    engine = kinds.add_parser("engine", help="random complete hands per second, one core")
    engine.add_argument("--seconds", type=float, default=3.0, help="time per path (3)")
    engine.add_argument("--json", action="store_true", help="print the figures as JSON")
    engine.set_defaults(func=run_engine)


def checked_hands_per_second(seconds: float, seed: int = 1) -> tuple[float, float]:
    """(hands per second, moves per hand) through the checked public API."""
    rng = random.Random(seed)
    pick = rng.random  # a uniform pick costs a third of rng.choice: time the engine, not random
    hands = moves = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(100):
            hand = HandState.start(HAVANA, random_deal(HAVANA, rng), hands & 3)
            while hand.outcome is None:
                legal = hand.legal_actions()
                hand = hand.apply(legal[int(pick() * len(legal))])
            moves += len(hand.moves)
            hands += 1
        now = time.perf_counter()
        if now >= deadline:
            return hands / (now - start), moves / hands


def run_engine(args: argparse.Namespace) -> int:
    if not 0 < args.seconds <= 3600:
        raise CommandError(f"--seconds must be more than 0 and at most 3600, not {args.seconds:g}")
    checked, per_hand = checked_hands_per_second(args.seconds)
    figures: dict[str, Any] = {
        "python": platform.python_version(),
        "checked_api_hands_per_s": round(checked),
        "moves_per_hand": round(per_hand, 1),
    }
    try:
        from tranque.bots.kernels import random_playouts_per_second
    except ModuleNotFoundError:  # numpy / numba: the 'bots' extra is not installed
        fast = None
    else:
        random_playouts_per_second(0.05)  # compile (or load the cache) outside the timing
        fast = random_playouts_per_second(args.seconds)
        figures["fast_path_hands_per_s"] = round(fast)
        figures["fast_over_checked"] = round(fast / checked, 1)
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"checked API  {checked:12,.0f} hands/s  ({per_hand:.1f} moves a hand, one core)")
    if fast is not None:
        print(f"fast path    {fast:12,.0f} hands/s  ({fast / checked:.1f}x the checked API)")
    else:
        print("fast path    needs the 'bots' extra: pip install 'tranque[bots]'")
    return 0
