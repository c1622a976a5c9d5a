"""``tranque tournament pair | standings | simulate``: a tournament file's next round and its
standings, and whole tournaments played by bots (docs/tournaments.md).

Registering imports nothing beyond the core; msgspec and networkx load inside the commands, the
bots only for ``simulate``. Bad input is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tranque.commandline import CommandError, read_text

SUBCOMMANDS: dict[str, Any] = {}  # "tournament" -> its subcommands' action, once registered


def register(subparsers: Any) -> None:
    """Add ``tournament pair``, ``standings`` and ``simulate`` to the ``tranque`` command."""
    tour = subparsers.add_parser(
        "tournament",
        help="Swiss of pairs and arenas: pairings, standings, simulations",
        description="A tournament file's next round and standings, and whole tournaments "
        "played by bots (docs/tournaments.md).",
    )
    tour.set_defaults(func=lambda args: tour.print_help() or 2)
    sub = tour.add_subparsers(dest="tournament_command", metavar="COMMAND")
    # ``tournament schedule`` reads and writes a database, which this room never opens: the
    # server's commands add it here (server/schedule_commands.py).
    SUBCOMMANDS["tournament"] = sub
    pair = sub.add_parser(
        "pair",
        help="the next round of a Swiss",
        description="Print the next round of a swiss-pairs tournament file: its tables "
        "(a: the higher-ranked entrant, pair A of the game) and its byes.",
    )
    pair.add_argument("file", metavar="FILE", help="a tranque-tournament/1 file ('-': stdin)")
    pair.add_argument("--json", action="store_true", help="print JSON")
    pair.set_defaults(func=run_pair)
    standings = sub.add_parser(
        "standings",
        help="the standings of a Swiss or an arena",
        description="Print the standings of a tournament file, withdrawn entrants included.",
    )
    standings.add_argument("file", metavar="FILE", help="a tranque-tournament/1 file")
    standings.add_argument("--json", action="store_true", help="print JSON")
    standings.set_defaults(func=run_standings)
    sim = sub.add_parser(
        "simulate",
        help="a whole tournament played by bots on a simulated clock",
        description="Play a whole Swiss of pairs or arena with bots, through the same pairing "
        "and seating the service uses, on a simulated clock; print the tournament file with "
        "every game's record under 'records' and the standings under 'standings'.",
    )
    sim.add_argument("--kind", choices=("swiss-pairs", "arena"), required=True)
    sim.add_argument("--entrants", type=int, required=True, metavar="N")
    sim.add_argument("--rounds", type=int, metavar="R", help="a Swiss's rounds")
    sim.add_argument(
        "--minutes", type=float, metavar="M", help="an arena's length; a Swiss game's time cap"
    )
    sim.add_argument("--target", type=int, default=100, metavar="T", help="points (100)")
    sim.add_argument("--bots", default="normal", metavar="LEVEL", help="facil, normal, fuerte")
    sim.add_argument("--seed", type=int, required=True, metavar="S")
    sim.add_argument("--json", action="store_true", help="print JSON (the only output)")
    sim.set_defaults(func=run_simulate)


def _load(path: str) -> Any:
    from tranque.tournament.model import TournamentError, decode

    try:
        return decode(read_text(path))
    except TournamentError as e:
        raise CommandError(f"{path}: {e}") from None


def run_pair(args: argparse.Namespace) -> int:
    from tranque.tournament.model import TournamentError
    from tranque.tournament.swiss import pair_round

    t = _load(args.file)
    try:
        pairing = pair_round(t)
    except TournamentError as e:
        raise CommandError(f"{args.file}: {e}") from None
    if args.json:
        print(json.dumps(pairing.to_json()))
        return 0
    print(f"Round {pairing.round}")
    for n, (a, b) in enumerate(pairing.tables, 1):
        print(f"  table {n:>3}  {a} v {b}")
    for bye in pairing.byes:
        print(f"  bye        {bye}")
    return 0


def run_standings(args: argparse.Namespace) -> int:
    from tranque.tournament import arena, swiss

    t = _load(args.file)
    lines = swiss.standings(t) if t.kind == "swiss-pairs" else arena.standings(t)
    rows = [x.to_json() for x in lines]
    if args.json:
        print(json.dumps({"standings": rows}))
        return 0
    if t.kind == "arena":
        print(f"{'rank':>4}  {'id':<12} {'score':>5} {'wins':>4} {'games':>5}")
        for r in rows:
            print(f"{r['rank']:>4}  {r['id']:<12} {r['score']:>5} {r['wins']:>4} {r['games']:>5}")
        return 0
    print(f"{'rank':>4}  {'id':<12} {'wins':>4} {'for':>5} {'against':>7} {'diff':>5} {'buch':>4}")
    for r in rows:
        print(f"{r['rank']:>4}  {r['id']:<12} {r['wins']:>4} {r['points_for']:>5} "
              f"{r['points_against']:>7} {r['difference']:>5} {r['buchholz']:>4}")  # fmt: skip
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    from tranque.tournament.model import TournamentError
    from tranque.tournament.simulate import simulate_arena, simulate_swiss

    if args.entrants < 1 or args.entrants > 10_000:
        raise CommandError("--entrants must be between 1 and 10000")
    if args.target < 1:
        raise CommandError("--target must be positive")
    try:
        if args.kind == "swiss-pairs":
            if args.rounds is None or args.rounds < 1:
                raise CommandError("a Swiss needs --rounds (1 or more)")
            if args.minutes is not None and args.minutes <= 0:
                raise CommandError("--minutes must be positive")
            out = simulate_swiss(
                args.entrants, args.rounds, args.target, args.minutes, args.bots, args.seed
            )
        else:
            if args.minutes is None or args.minutes <= 0:
                raise CommandError("an arena needs --minutes (more than 0)")
            out = simulate_arena(args.entrants, args.minutes, args.target, args.bots, args.seed)
    except (TournamentError, ValueError) as e:
        raise CommandError(str(e)) from None
    print(json.dumps(out) if args.json else json.dumps(out, indent=1))
    return 0
