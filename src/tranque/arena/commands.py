"""``tranque arena BOT_A BOT_B``: a duplicate-deal match, its figures, a table, a plot, JSON."""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from tranque.arena.runner import ArenaConfig, run_arena
from tranque.arena.stats import summarize
from tranque.bots.base import make_bot
from tranque.commandline import CommandError, MissingExtraError
from tranque.rules.errors import RulesError
from tranque.rules.variants import PRESETS, Rules


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "arena",
        help="play two bots against each other on duplicate deals",
        description=(
            "Play BOT_A against BOT_B on duplicate deals: every deal (or game) is played twice, "
            "the pairs swapping seats, so the luck of the deal cancels. Reports 95% intervals."
        ),
    )
    parser.add_argument(
        "bot_a",
        metavar="BOT_A",
        help="bot name: random, heuristic, strong, ... (an unknown name lists them)",
    )
    parser.add_argument("bot_b", metavar="BOT_B", help="bot name")
    parser.add_argument(
        "--deals",
        type=int,
        default=1000,
        metavar="N",
        help="duplicate pairs to play: deals, or games with --games (default 1000)",
    )
    parser.add_argument(
        "--games", action="store_true", help="play whole games to the target instead of hands"
    )
    parser.add_argument(
        "--rules",
        default="havana",
        metavar="PRESET",
        help=f"rules preset: {', '.join(PRESETS)} (default havana)",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default 0)")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="W",
        help="worker processes (default: all cores)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--plot", metavar="FILE", help="write a plot of the win rates (.png, .svg)")
    parser.set_defaults(func=run)


def _config(args: argparse.Namespace) -> ArenaConfig:
    for name in (args.bot_a, args.bot_b):
        try:
            make_bot(name)  # cheap; names the known bots (and the missing extra) when unknown
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    if args.deals < 1:
        raise CommandError(f"--deals must be at least 1, not {args.deals}")
    workers = os.cpu_count() or 1 if args.workers is None else args.workers
    if workers < 1:
        raise CommandError(f"--workers must be at least 1, not {workers}")
    try:
        rules = Rules.from_json(args.rules)
    except RulesError as exc:
        raise CommandError(str(exc)) from None
    if args.plot is not None:
        suffix = Path(args.plot).suffix.lower()
        if suffix not in (".png", ".svg"):
            raise CommandError(f"--plot writes .png or .svg files, not {args.plot!r}")
        if importlib.util.find_spec("matplotlib") is None:  # say so before an hour of play
            raise MissingExtraError("arena --plot", "plot", "matplotlib")
        parent = Path(args.plot).parent
        if not parent.is_dir():
            raise CommandError(f"--plot: no such directory: {str(parent)!r}")
    return ArenaConfig(args.bot_a, args.bot_b, args.deals, args.games, rules, args.seed, workers)


def run(args: argparse.Namespace) -> int:
    config = _config(args)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    err = Console(stderr=True)
    unit = "games" if config.games else "deals"
    start = time.perf_counter()
    with Progress(
        TextColumn(f"{config.bot_a} vs {config.bot_b}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(f"duplicate {unit}"),
        TimeRemainingColumn(),
        console=err,
        transient=args.json,
        disable=not err.is_terminal and not os.environ.get("TRANQUE_PROGRESS"),
    ) as bar:
        task = bar.add_task("arena", total=config.pairs)
        units = run_arena(config, lambda done: bar.update(task, completed=done))
    summary = summarize(units, config.bot_a, config.bot_b)
    summary["config"] = {
        "rules": config.rules.to_json(),
        "seed": config.seed,
        "pairs": config.pairs,
        "games": config.games,
        "workers": config.workers,
        "seconds": round(time.perf_counter() - start, 3),
    }
    if args.plot:
        write_plot(summary, args.plot)
    if args.json:
        json.dump(_json_safe(summary), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_table(summary)
    return 0


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json_safe(v) for v in obj]
    return obj


def _pct(iv: dict[str, float]) -> str:
    return f"{100 * iv['value']:.1f}% [{100 * iv['low']:.1f}, {100 * iv['high']:.1f}]"


def _num(iv: dict[str, float]) -> str:
    if math.isnan(iv["low"]):
        return f"{iv['value']:+.2f}"
    return f"{iv['value']:+.2f} [{iv['low']:+.2f}, {iv['high']:+.2f}]"


def print_table(summary: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    a, b = summary["bots"]["A"], summary["bots"]["B"]
    h = summary["hands"]
    cfg = summary["config"]
    kind = "games" if cfg["games"] else "deals"
    table = Table(
        title=f"{a} (A) vs {b} (B): {summary['pairs']} duplicate {kind}, "
        f"rules {cfg['rules']}, seed {cfg['seed']}  (95% intervals)"
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("hands played", str(h["played"]))
    table.add_row(f"hands won by {a} (of decided)", _pct(h["win_rate_a"]))
    table.add_row(f"hands won by {a} (of all)", _pct(h["win_share_a_of_all"]))
    table.add_row(f"hands won by {b} / tied blocks", f"{h['won_b']} / {h['tied_blocks']}")
    table.add_row("tranque rate", _pct(h["tranque_rate"]))
    table.add_row("tied blocks", _pct(h["tied_block_rate"]))
    table.add_row(f"points per hand, {a}", _num(h["points_per_hand_a"]))
    table.add_row(f"points per hand, {b}", _num(h["points_per_hand_b"]))
    table.add_row(f"points per hand, {a} − {b}", _num(h["points_per_hand_diff"]))
    g = summary.get("games")
    if g:
        table.add_row("games played", str(g["played"]))
        table.add_row(f"games won by {a}", _pct(g["win_rate_a"]))
        table.add_row(f"pollonas by {a} / by {b}", f"{g['pollonas_a']} / {g['pollonas_b']}")
        table.add_row("hands per game", f"{g['hands_per_game']:.1f}")
    for label in ("A", "B"):
        t = summary["times"][label]
        table.add_row(
            f"time per decision, {t['bot']} (median / worst)",
            f"{t['median_ms']:.2f} ms / {t['worst_ms']:.1f} ms ({t['decisions']} decisions)",
        )
    table.add_row("wall time", f"{cfg['seconds']:.1f} s on {cfg['workers']} workers")
    Console().print(table)


def write_plot(summary: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a, b = summary["bots"]["A"], summary["bots"]["B"]
    bars: list[tuple[str, dict[str, float]]] = [("hands won", summary["hands"]["win_rate_a"])]
    if "games" in summary:
        bars.append(("games won", summary["games"]["win_rate_a"]))
    fig, ax = plt.subplots(figsize=(5, 3.5))
    xs = range(len(bars))
    vals = [100 * iv["value"] for _, iv in bars]
    lows = [100 * (iv["value"] - iv["low"]) for _, iv in bars]
    highs = [100 * (iv["high"] - iv["value"]) for _, iv in bars]
    ax.bar(xs, vals, yerr=[lows, highs], capsize=8, color="#3b7dd8")
    ax.axhline(50, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(list(xs), [name for name, _ in bars])
    ax.set_ylim(0, 100)
    ax.set_ylabel(f"% won by {a}")
    ax.set_title(f"{a} vs {b}: {summary['pairs']} duplicate pairs, 95% CI")
    for x, v in zip(xs, vals, strict=True):
        ax.text(x, v + 3, f"{v:.1f}%", ha="center")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
