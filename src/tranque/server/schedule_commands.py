"""``tranque tournament schedule add | list | remove [--db URL]``: the service's scheduled
repeating tournaments (docs/tournaments.md, "Scheduled tournaments").

The schedules are rows of the service's database, so a running server takes a new one at its
next look (every half minute), no restart needed. The tournament room has no database: this
module adds the subcommand to its ``tournament`` command. Bad input (a weekday, time or zone
that is not one, rules that are not a preset, a cap not in the set): one line on standard
error, exit code 2, nothing written.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

DEFAULT_DB = "sqlite:///tranque.db"


def register(subparsers: Any) -> None:
    from tranque.tournament.commands import SUBCOMMANDS

    tour = SUBCOMMANDS.get("tournament")
    if tour is None:  # pragma: no cover - the tournament room registers first (cli.py)
        return
    sched = tour.add_parser(
        "schedule",
        help="scheduled repeating tournaments of the service",
        description="Add, list or remove the schedules from which the service creates its "
        "repeating tournaments (a Swiss every Saturday at 20:00 America/Havana). A running "
        "server takes a change within a minute.",
    )
    sched.set_defaults(func=lambda args: sched.print_help() or 2)
    sub = sched.add_subparsers(dest="schedule_command", metavar="SUBCOMMAND")
    add = sub.add_parser(
        "add",
        help="a new schedule",
        description="A new schedule: each occurrence is a Swiss of pairs created by the "
        "service when its registration opens, and started by itself at its time.",
    )
    add.add_argument("--name", required=True, help="each tournament's name (1-64 characters)")
    add.add_argument(
        "--days", required=True, metavar="DAYS", help="weekdays: sat, fri,sat, sab,dom, daily"
    )
    add.add_argument("--at", required=True, metavar="HH:MM", help="local time of day, 20:00")
    add.add_argument("--zone", required=True, help="an IANA time zone, America/Havana")
    add.add_argument("--rules", default="havana", help="a preset (havana)")
    add.add_argument("--rounds", type=int, default=5, help="1-15 (5)")
    add.add_argument("--minutes", type=int, default=None, help="a game's time cap: 20, 30, 40, 60")
    add.add_argument(
        "--opens", type=float, default=24.0, metavar="HOURS",
        help="registration opens this many hours before the start, 0-168 (24)",
    )  # fmt: skip
    add.add_argument("--no-show", type=float, default=120.0, metavar="S", help="1-3600 (120)")
    add.add_argument("--private", action="store_true", help="reached by its link only")
    add.add_argument("--db", default=DEFAULT_DB, help=f"database URL ({DEFAULT_DB})")
    add.set_defaults(func=run_add)
    ls = sub.add_parser("list", help="the schedules, each with its next start")
    ls.add_argument("--db", default=DEFAULT_DB, help=f"database URL ({DEFAULT_DB})")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.set_defaults(func=run_list)
    rm = sub.add_parser("remove", help="remove a schedule (its tournaments made stay)")
    rm.add_argument("id", help="the schedule's id (list shows it)")
    rm.add_argument("--db", default=DEFAULT_DB, help=f"database URL ({DEFAULT_DB})")
    rm.set_defaults(func=run_remove)


def _values(args: argparse.Namespace) -> dict[str, Any]:
    """The schedule's columns from the options, each checked as the service checks a
    tournament it is asked to create (server.tournaments)."""
    from tranque.club.ratings import PRESETS
    from tranque.commandline import CommandError
    from tranque.rules.variants import Rules
    from tranque.server.tournaments import CAP_MINUTES, MAX_ROUNDS
    from tranque.tournament.model import TournamentError
    from tranque.tournament.schedule import check_opens, check_zone, parse_clock, parse_weekdays

    name = args.name.strip()
    if not 1 <= len(name) <= 64:
        raise CommandError("--name is 1 to 64 characters")
    if args.rules not in PRESETS:
        raise CommandError(f"--rules must be one of {', '.join(PRESETS)}")
    if not 1 <= args.rounds <= MAX_ROUNDS:
        raise CommandError(f"--rounds is 1 to {MAX_ROUNDS}")
    if args.minutes is not None:
        if args.minutes not in CAP_MINUTES:
            raise CommandError(f"--minutes is one of {', '.join(map(str, CAP_MINUTES))}")
        if Rules.from_json(args.rules).games_to_win_match > 1:
            raise CommandError("a time cap is for one-game rules, not a match")
    if not 1 <= args.no_show <= 3600:
        raise CommandError("--no-show is 1 to 3600 seconds")
    try:
        at = parse_clock(args.at)
        return {
            "name": name, "kind": "swiss-pairs", "rules": args.rules, "rounds": args.rounds,
            "minutes": args.minutes, "no_show": args.no_show, "public": not args.private,
            "weekdays": parse_weekdays(args.days), "at": f"{at:%H:%M}",
            "zone": check_zone(args.zone), "opens_hours": check_opens(args.opens),
        }  # fmt: skip
    except TournamentError as exc:
        raise CommandError(str(exc)) from None


async def _open(url: str) -> Any:
    from tranque.commandline import CommandError
    from tranque.server.settings import check_db_url
    from tranque.store.db import open_store

    check_db_url(url)
    try:
        return await open_store(url)
    except Exception as exc:
        why = getattr(exc, "orig", None) or exc
        raise CommandError(f"the database {url!r} cannot be opened: {why}") from None


def run_add(args: argparse.Namespace) -> int:
    import time

    from tranque.store.schedules import SqlSchedules

    values = _values(args)

    async def go() -> str:
        store = await _open(args.db)
        try:
            return await SqlSchedules(store).add(values, time.time())
        finally:
            await store.close()

    print(asyncio.run(go()))
    return 0


def run_list(args: argparse.Namespace) -> int:
    import time
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from tranque.server.tournament_schedules import when_of
    from tranque.store.schedules import SqlSchedules
    from tranque.tournament.schedule import describe, next_start

    async def go() -> list[Any]:
        store = await _open(args.db)
        try:
            return await SqlSchedules(store).all()
        finally:
            await store.close()

    now = time.time()
    rows = [(s, next_start(when_of(s), now)) for s in asyncio.run(go())]
    if args.json:
        print(json.dumps({"schedules": [{**s.to_json(), "next": n} for s, n in rows]}))
        return 0
    for s, n in rows:
        local = datetime.fromtimestamp(n, ZoneInfo(s.zone))
        cap = f", {s.minutes:g} min" if s.minutes is not None else ""
        print(f"{s.id}  {s.name}: {describe(s.weekdays)} {s.at} {s.zone}, {s.rules}, "
              f"{s.rounds} rounds{cap}; next {local:%Y-%m-%d %H:%M %Z}")  # fmt: skip
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from tranque.commandline import CommandError
    from tranque.store.schedules import SqlSchedules

    async def go() -> bool:
        store = await _open(args.db)
        try:
            return await SqlSchedules(store).remove(args.id)
        finally:
            await store.close()

    if not asyncio.run(go()):
        raise CommandError(f"there is no schedule {args.id!r}")
    print(f"removed {args.id}")
    return 0
