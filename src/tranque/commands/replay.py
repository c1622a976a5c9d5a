"""``tranque replay FILE [--json]``: replay a hand or game record and print how it came out."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from tranque.commands import CommandError
from tranque.rules.record import (
    GAME_FORMAT,
    MATCH_FORMAT,
    game_summary,
    load,
    match_summary,
    outcome_summary,
    replay_game,
    replay_hand,
    replay_match,
)

ENDED = {"pegarse": "pegarse", "tranque": "tranque", "tied_tranque": "tied tranque"}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay", help="replay a hand or game record (JSON) and print the outcome"
    )
    parser.add_argument(
        "file",
        help="a tranque-hand/1, tranque-game/1 or tranque-match/1 record ('-' for stdin)",
    )
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.set_defaults(func=run)


def read(path: str) -> str:
    if path == "-":
        import sys

        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None


def run(args: argparse.Namespace) -> int:
    data = load(read(args.file))
    if data["format"] == MATCH_FORMAT:
        summary = match_summary(*replay_match(data))
        summary["format"] = MATCH_FORMAT
    elif data["format"] == GAME_FORMAT:
        summary = game_summary(replay_game(data))
        summary["format"] = GAME_FORMAT
    else:
        hand = replay_hand(data)
        summary = {"format": data["format"], **outcome_summary(hand.outcome, hand)}
    if args.json:
        print(json.dumps(summary, indent=1))
        return 0
    console = Console(highlight=False)
    if summary["format"] == MATCH_FORMAT:
        print_match(console, summary)
    elif summary["format"] == GAME_FORMAT:
        print_game(console, summary)
    else:
        print_hand(console, summary)
    return 0


def hand_line(s: dict[str, Any]) -> str:
    if s["ended"] is None:
        return f"not finished after {s['moves']} moves"
    text = ENDED[s["ended"]]
    if s["winner"] is None:
        return f"{text}: nobody scores"
    extra = [m for m in ("capicua", "viajera") if s.get(m)]
    marks = f" ({', '.join(extra)})" if extra else ""
    return (
        f"{text}: seat {s['winner']} wins for pair {s['winning_pair']}, "
        f"{s['points']} points{marks}; closer seat {s['closer']}"
    )


def print_hand(console: Console, s: dict[str, Any]) -> None:
    console.print(hand_line(s))
    if s["ended"] is not None:
        for seat, (pips, tiles) in enumerate(zip(s["pips"], s["remaining"], strict=True)):
            console.print(f"  seat {seat} (pair {'AB'[seat & 1]}): {pips:3d} pips  {tiles}")


def print_game(console: Console, s: dict[str, Any]) -> None:
    for hand in s["hands"]:
        console.print(f"hand {hand['number']}, led by seat {hand['leader']}: {hand_line(hand)}")
    table = Table(title="Planilla")
    for column in ("hand", "", "Nosotros (A)", "Ellos (B)"):
        table.add_column(column, justify="right")
    for line in s["sheet"]:
        what = "tied" if line["pair"] is None else f"{line['kind']} +{line['points']}"
        if line["kind"] == "hand" and line["pair"] is not None:
            what = f"+{line['points']} {line['pair']}"
        table.add_row(str(line["hand"]), what, str(line["nosotros"]), str(line["ellos"]))
    console.print(table)
    if s["winner"] is None:
        console.print(f"game not finished: {s['scores'][0]} to {s['scores'][1]}")
    else:
        marks = []
        if s["pollona"]:
            marks.append("pollona")
        if s["viajeras"]:
            marks.append(f"viajera in hand {', '.join(map(str, s['viajeras']))}")
        tail = f" ({'; '.join(marks)})" if marks else ""
        console.print(f"pair {s['winner']} wins {s['scores'][0]} to {s['scores'][1]}{tail}")


def print_match(console: Console, s: dict[str, Any]) -> None:
    for number, game in enumerate(s["games"], 1):
        console.print(f"[bold]game {number}[/bold]")
        print_game(console, game)
    a, b = s["wins"]
    if s["winner"] is None:
        console.print(f"match not decided: games A {a}, B {b} (first to {s['games_to_win']})")
    else:
        console.print(f"pair {s['winner']} wins the match, games A {a}, B {b}")
