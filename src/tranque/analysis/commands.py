"""``tranque analyze FILE`` (rate every real choice of a record) and ``tranque bench analysis``.

Registering imports nothing beyond the core: the engine (numpy, numba) and the progress bar
(rich), all of the 'bots' extra, load inside the commands, so a missing extra is one line.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from typing import Any

from tranque.commandline import CommandError, bench_subparsers, parse_json, read_text

TAGS = ("inaccuracy", "mistake", "blunder")


def register(subparsers: Any) -> None:
    """Add ``analyze`` and ``bench analysis`` to the ``tranque`` command."""
    analyze = subparsers.add_parser(
        "analyze",
        help="rate every play of a record that was a real choice",
        description=(
            "Rate every play of the analysed seats that was a real choice (two or more legal "
            "moves): each option's value in points for the mover's pair over the rest of the "
            "hand, the loss against the best, and a tag. Fair (the default) judges a play from "
            "what its seat knew; --hindsight with every hand face up (docs/analysis.md)."
        ),
    )
    analyze.add_argument(
        "file",
        metavar="FILE",
        help="a tranque-hand/1, tranque-game/1 or tranque-match/1 record ('-' for stdin)",
    )
    analyze.add_argument(
        "--hand", type=int, metavar="N", help="only hand N of the game (of each game of a match)"
    )
    analyze.add_argument(
        "--seat",
        type=int,
        action="append",
        metavar="S",
        help="a seat 0-3 to analyse; give it again for more (default: all four)",
    )
    analyze.add_argument(
        "--hindsight", action="store_true", help="judge with every hand face up, not fairly"
    )
    analyze.add_argument("--json", action="store_true", help="print tranque-analysis/1 JSON")
    analyze.set_defaults(func=run_analyze)

    bench = bench_subparsers(subparsers).add_parser(
        "analysis",
        help="seconds per analysed hand, fair and hindsight, one core",
        description=(
            "Analyse hands the heuristic played (Havana): fair, one seat at a time, and "
            "hindsight, all four seats; print the times and the fair values' standard error."
        ),
    )
    bench.add_argument("--hands", type=int, default=10, metavar="N", help="hands to analyse (10)")
    bench.add_argument("--seed", type=int, default=1, metavar="S", help="the deals' seed (1)")
    bench.add_argument(
        "--estimates",
        type=int,
        default=0,
        metavar="K",
        help="also solve K hindsight decisions just above the exact horizon exactly, to measure "
        "the estimates' error (slow: seconds each)",
    )
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.set_defaults(func=run_bench)


# --------------------------------------------------------------------------------------------
# analyze


def run_analyze(args: argparse.Namespace) -> int:
    seats = (0, 1, 2, 3) if args.seat is None else tuple(args.seat)
    for seat in seats:
        if seat not in range(4):
            raise CommandError(f"--seat must be 0, 1, 2 or 3, not {seat}")
    if args.hand is not None and args.hand < 1:
        raise CommandError(f"--hand must be 1 or more, not {args.hand}")
    from tranque.analysis.engine import AnalysisError, analyze

    record = parse_json(read_text(args.file), args.file)
    if not isinstance(record, dict):
        raise CommandError(f"{args.file} is not a record: a JSON object was expected")
    mode = "hindsight" if args.hindsight else "fair"
    with ProgressBar(f"{mode} analysis", transient=args.json) as progress:
        try:
            result = analyze(record, seats=seats, mode=mode, hand=args.hand, progress=progress)
        except AnalysisError as exc:
            raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for line in report_lines(result, seats):
            print(line)
    return 0


class ProgressBar:
    """A rich progress bar on standard error, as ``tranque arena`` draws it: shown on a
    terminal (or with TRANQUE_PROGRESS set), advanced by the engine's (done, total) calls."""

    def __init__(self, label: str, *, transient: bool) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        err = Console(stderr=True)
        self.bar = Progress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("decisions"),
            TimeRemainingColumn(),
            console=err,
            transient=transient,
            disable=not err.is_terminal and not os.environ.get("TRANQUE_PROGRESS"),
        )
        self.task: Any = None

    def __enter__(self) -> ProgressBar:
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(None, None, None)

    def __call__(self, done: int, total: int) -> None:
        if self.task is None:
            self.task = self.bar.add_task("analysis", total=total)
        self.bar.update(self.task, completed=done, total=total)


def report_lines(result: dict[str, Any], seats: tuple[int, ...]) -> list[str]:
    """The readable report: a line per rated play, then each seat's points lost per decision."""
    fair = result["mode"] == "fair"
    if fair:
        lines = ["fair analysis: each play judged from what its seat knew (value ± standard error)"]
    else:
        lines = [
            "hindsight analysis: every hand face up; exact values, "
            "'~' marks an estimate (too many tiles left to solve)"
        ]
    games = result["games"] if "games" in result else [{"hands": result["hands"]}]
    lost: dict[int, list[float]] = defaultdict(list)
    tags: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(TAGS, 0))
    for g, game in enumerate(games, 1):
        for hand in game["hands"]:
            where = (
                f"game {g}, hand {hand['number']}"
                if "games" in result
                else f"hand {hand['number']}"
            )
            lines.append(where)
            if not hand["plays"]:
                lines.append("  no real choice for these seats")
                continue
            lines.append("   move  seat  played  value          best    value          loss")
            for play in hand["plays"]:
                lines.append(_play_line(play, fair))
                lost[play["seat"]].append(play["loss"])
                if play["tag"]:
                    tags[play["seat"]][play["tag"]] += 1
    lines.append("points lost per decision")
    for seat in seats:
        losses = lost.get(seat, [])
        if not losses:
            lines.append(f"  seat {seat}: no real choice")
            continue
        counted = ", ".join(f"{n} {_plural(t, n)}" for t, n in tags[seat].items() if n)
        lines.append(
            f"  seat {seat} (pair {'AB'[seat & 1]}): {sum(losses) / len(losses):5.2f} over "
            f"{len(losses)} decision{'s' if len(losses) != 1 else ''}"
            + (f"; {counted}" if counted else "")
        )
    return lines


def _plural(tag: str, n: int) -> str:
    if n == 1:
        return tag
    return "inaccuracies" if tag == "inaccuracy" else tag + "s"


def _play_line(play: dict[str, Any], fair: bool) -> str:
    values = {o["move"]: o for o in play["options"]}

    def shown(move: str) -> str:
        option = values[move]
        if fair:
            return f"{option['value']:+7.2f} ±{option['se']:<4.2f}"
        mark = " " if play["exact"] else "~"
        return f"{mark}{option['value']:+7.1f}     "

    best = "" if play["best"] == play["played"] else play["best"]
    best_value = "" if not best else shown(best)
    tag = play["tag"] or ""
    return (
        f"  {play['index']:5d}  {play['seat']:4d}  {play['played']:<6}  {shown(play['played'])}  "
        f"{best:<6}  {best_value:<13}  {play['loss']:5.2f}  {tag}"
    ).rstrip()


# --------------------------------------------------------------------------------------------
# bench analysis


def run_bench(args: argparse.Namespace) -> int:
    if not 1 <= args.hands <= 10_000:
        raise CommandError(f"--hands must be 1 to 10000, not {args.hands}")
    if not 0 <= args.estimates <= 10_000:
        raise CommandError(f"--estimates must be 0 to 10000, not {args.estimates}")
    from tranque.analysis.bench import bench_analysis
    from tranque.commandline import print_figures

    print_figures(bench_analysis(args.hands, args.seed, args.estimates), args.json)
    return 0
