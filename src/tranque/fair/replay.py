"""``tranque replay FILE [--json]``: replay a hand or game record and print how it came out.

Plain text on the standard library alone: replaying a record needs no extra.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tranque.commandline import read_text
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


def run(args: argparse.Namespace) -> int:
    data = load(read_text(args.file))
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
    if summary["format"] == MATCH_FORMAT:
        print_match(summary)
    elif summary["format"] == GAME_FORMAT:
        print_game(summary)
    else:
        print_hand(summary)
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


def print_hand(s: dict[str, Any]) -> None:
    print(hand_line(s))
    if s["ended"] is not None:
        for seat, (pips, tiles) in enumerate(zip(s["pips"], s["remaining"], strict=True)):
            print(f"  seat {seat} (pair {'AB'[seat & 1]}): {pips:3d} pips  {tiles}")


def sheet_lines(sheet: list[dict[str, Any]]) -> list[str]:
    """The planilla as a text table: hand, what was scored, running totals of both pairs."""
    header = ("hand", "", "Nosotros (A)", "Ellos (B)")
    rows = []
    for line in sheet:
        what = "tied" if line["pair"] is None else f"{line['kind']} +{line['points']}"
        if line["kind"] == "hand" and line["pair"] is not None:
            what = f"+{line['points']} {line['pair']}"
        rows.append((str(line["hand"]), what, str(line["nosotros"]), str(line["ellos"])))
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(4)]
    out = ["Planilla"]
    for row in (header, *rows):
        out.append("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)))
    return out


def print_game(s: dict[str, Any]) -> None:
    for hand in s["hands"]:
        print(f"hand {hand['number']}, led by seat {hand['leader']}: {hand_line(hand)}")
    for line in sheet_lines(s["sheet"]):
        print(line)
    if s["winner"] is None:
        print(f"game not finished: {s['scores'][0]} to {s['scores'][1]}")
    else:
        marks = []
        if s["pollona"]:
            marks.append("pollona")
        if s["viajeras"]:
            marks.append(f"viajera in hand {', '.join(map(str, s['viajeras']))}")
        tail = f" ({'; '.join(marks)})" if marks else ""
        won, lost = s["scores"][0], s["scores"][1]
        if s["winner"] == "B":
            won, lost = lost, won
        print(f"pair {s['winner']} wins {won} to {lost}{tail}")


def print_match(s: dict[str, Any]) -> None:
    for number, game in enumerate(s["games"], 1):
        print(f"game {number}")
        print_game(game)
    a, b = s["wins"]
    if s["winner"] is None:
        print(f"match not decided: games A {a}, B {b} (first to {s['games_to_win']})")
    else:
        print(f"pair {s['winner']} wins the match, games A {a}, B {b}")
