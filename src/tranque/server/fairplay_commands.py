"""``tranque fairplay screen`` (the fair-play statistics of finished games) and
``tranque bench fairplay`` (calibration on bot self-play, recall and false flags).

Registering imports nothing beyond the core: the engine (numpy, numba) loads inside the
commands, and the database's packages only with ``--db``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tranque.commandline import CommandError, bench_subparsers, parse_json, read_text

PAGE = 200  # finished games read from the database at a time


def register(subparsers: Any) -> None:
    """Add ``fairplay screen`` and ``bench fairplay`` to the ``tranque`` command."""
    fairplay = subparsers.add_parser(
        "fairplay",
        help="statistics of fair play over finished games",
        description="Statistics over finished games that honest play does not show "
        "(docs/fairplay.md).",
    )
    fairplay.set_defaults(func=lambda args: fairplay.print_help() or 2)
    sub = fairplay.add_subparsers(dest="fairplay_command", metavar="COMMAND")
    screen = sub.add_parser(
        "screen",
        help="each person's strength, each partnership's hindsight and partner edges; flags",
        description=(
            "Read finished games (tranque-game/1 or tranque-match/1 records with 'players', "
            "from files or from the database) and print, for every person, the points lost "
            "per real decision against the strong bot's fair evaluation and how often his "
            "choice was its first; for every partnership, the hindsight edge (how much more "
            "its moves were worth with every hand known than from what each seat knew) and the "
            "partner edge (the same, knowing only the partner's tiles); each "
            "with a z-score against honest play and a flag past the documented threshold. A "
            "flag is for a person to review, never a ban (docs/fairplay.md)."
        ),
    )
    screen.add_argument("files", nargs="*", metavar="FILE", help="record files ('-' for stdin)")
    screen.add_argument(
        "--db", metavar="URL", help="also read the finished games with people of this database"
    )
    screen.add_argument(
        "--workers", type=int, default=1, metavar="N", help="processes that screen games (1)"
    )
    screen.add_argument("--json", action="store_true", help="print tranque-fairplay/1 JSON")
    screen.add_argument(
        "--keep",
        action="store_true",
        help="with --db: keep the flags in that database, for the moderators' page",
    )
    screen.set_defaults(func=run_screen)

    bench = bench_subparsers(subparsers).add_parser(
        "fairplay",
        help="calibrate the fair-play screen on bot self-play; recall and false flags",
        description=(
            "Play honest games (facil, heuristic, strong, mixed partners) and games of "
            "colluding pairs (one that knows its partner's tiles, one that knows every hand) "
            "against honest pairs of each kind; screen them all; print the calibration, the "
            "cost per game, and how often each kind of pair is flagged after 20, 50 and 100 "
            "games (docs/fairplay.md)."
        ),
    )
    bench.add_argument("--honest", type=int, default=40, metavar="G", help="games per honest kind")
    bench.add_argument(
        "--colluding", type=int, default=20, metavar="G", help="games per colluding configuration"
    )
    bench.add_argument("--samples", type=int, default=1000, metavar="K", help="draws per cell")
    bench.add_argument("--seed", type=int, default=1, metavar="S", help="the games' seed (1)")
    bench.add_argument("--workers", type=int, default=1, metavar="N", help="processes (1)")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.add_argument(
        "--constants",
        action="store_true",
        help="judge the flags by the screen's calibration constants, not this run's own",
    )
    bench.add_argument(
        "--from",
        dest="load",
        nargs="+",
        metavar="FILE",
        help="play nothing: summarise the games that earlier runs saved with --save, together",
    )
    bench.add_argument(
        "--judge-by",
        nargs="+",
        metavar="FILE",
        help="with --from: judge the flags by the calibration of these saved games",
    )
    bench.add_argument(
        "--save", metavar="FILE", help="also write every game's sums there (JSON), to recalibrate"
    )
    bench.set_defaults(func=run_bench)


# --------------------------------------------------------------------------------------------
# screen


def run_screen(args: argparse.Namespace) -> int:
    if not args.files and not args.db:
        raise CommandError("give record files, --db URL, or both")
    if args.keep and not args.db:
        raise CommandError("--keep writes the flags into the database of --db: give --db")
    if not 1 <= args.workers <= 64:
        raise CommandError(f"--workers must be 1 to 64, not {args.workers}")
    records = [(name, _record(name)) for name in args.files]
    if args.db:
        records += [(f"table {t}", r) for t, r in _db_records(args.db)]
    from tranque.fairplay.stats import report

    screened = screen_all(records, args.workers)
    result = report(screened)
    result["records_without_players"] = sum(1 for s in screened if s["players"] is None)
    result["screen_cpu_seconds"] = round(sum(s["cpu_seconds"] for s in screened), 2)
    if args.keep:
        _keep_flags(args.db, result)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for line in report_lines(result):
            print(line)
    return 0


def _record(name: str) -> dict[str, Any]:
    from tranque.rules.errors import RulesError
    from tranque.rules.record import FORMATS, HAND_FORMAT, players_of

    record = parse_json(read_text(name), name)
    if not isinstance(record, dict) or record.get("format") not in FORMATS:
        raise CommandError(f"{name} is not a tranque record")
    if record["format"] == HAND_FORMAT:
        raise CommandError(f"{name} is a hand record: the screen reads game or match records")
    try:
        players_of(record)
    except RulesError as exc:
        raise CommandError(f"{name}: {exc}") from None
    return record


def _db_records(url: str) -> list[tuple[str, dict[str, Any]]]:
    import asyncio
    from pathlib import Path

    import sqlalchemy as sa

    from tranque.store.db import open_store
    from tranque.store.games import SqlGames

    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        raise CommandError(f"--db must be a sqlite:/// or postgresql:// URL, not {url!r}") from None
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        raise CommandError(f"there is no database at {url!r}")

    async def go() -> list[tuple[str, dict[str, Any]]]:
        try:
            store = await open_store(url, migrate=False)  # a reader changes nothing
        except Exception as exc:
            why = getattr(exc, "orig", None) or exc
            raise CommandError(f"the database {url!r} cannot be opened: {why}") from None
        out: list[tuple[str, dict[str, Any]]] = []
        try:
            games = SqlGames(store)
            cursor = None
            while True:
                try:
                    page = await games.finished_with_people(cursor, PAGE)
                except sa.exc.DBAPIError as exc:
                    raise CommandError(
                        f"the database {url!r} has no finished games to read: {exc.orig}"
                    ) from None
                out += [(c.table, r) for c, r in page]
                if len(page) < PAGE:
                    return out
                cursor = page[-1][0]
        finally:
            await store.close()

    return asyncio.run(go())


def _keep_flags(url: str, result: Mapping[str, Any]) -> None:
    """The flagged people and partnerships of this run, into the database's ``screen_flags``
    (store.moderation): what the moderators' page lists. The only thing the command writes."""
    import asyncio
    import time

    import sqlalchemy as sa

    from tranque.store.db import open_store
    from tranque.store.moderation import SqlModeration

    flagged = [x for key in ("people", "partnerships") for x in result[key] if x["flag"]]

    async def go() -> None:
        store = await open_store(url, migrate=False)
        try:
            await SqlModeration(store).save_flags(flagged, time.time())
        except sa.exc.DBAPIError as exc:
            raise CommandError(
                f"the database {url!r} cannot keep flags (migrate it first): {exc.orig}"
            ) from None
        finally:
            await store.close()

    asyncio.run(go())


def _screen_one(item: tuple[str, Mapping[str, Any]]) -> dict[str, Any]:
    from tranque.fairplay.screen import screen_record
    from tranque.rules.errors import RulesError

    name, record = item
    try:
        return screen_record(record)
    except RulesError as exc:
        return {"error": f"{name}: {exc}"}


def screen_all(
    records: Sequence[tuple[str, Mapping[str, Any]]], workers: int
) -> list[dict[str, Any]]:
    """Every record screened, in order: here, or in ``workers`` processes. The first that does
    not replay is one CommandError line."""
    if workers <= 1 or len(records) <= 1:
        done: Iterator[dict[str, Any]] = map(_screen_one, records)
        out = list(done)
    else:
        ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with ctx.Pool(min(workers, len(records))) as pool:
            out = pool.map(_screen_one, records, chunksize=1)
    for s in out:
        if "error" in s:
            raise CommandError(s["error"])
    return out


def report_lines(result: Mapping[str, Any]) -> list[str]:
    """The readable report: people, then partnerships, flags marked."""
    cal = result["calibration"]
    lines = [
        f"{result['games']} games screened ({result['records_without_players']} without "
        f"players); flag at z >= {cal['z_flag']} after {cal['min_decisions']} decisions "
        f"(strength, partner edge) or {cal['min_edge_decisions']} exact decisions (edge); "
        f"calibration: {cal['source']}",
        "people: games, decisions, loss per decision, top choice, z strength, z sudden",
    ]
    for p in result["people"]:
        mark = "FLAG " + ",".join(p["reasons"]) if p["flag"] else ""
        z = f"{p['z_strength']:+6.2f} {p['z_sudden']:+6.2f}"
        lines.append(
            f"  {p['id']:24} {p['games']:5d} {p['decisions']:6d} {p['loss_per_decision']:6.2f} "
            f"{p['top_choice_rate']:6.3f} {z}  {mark}".rstrip()
        )
    lines.append(
        "partnerships: games, exact decisions, hindsight edge per decision, z edge, "
        "decisions, partner edge per decision, z partner"
    )
    for p in result["partnerships"]:
        mark = "FLAG " + ",".join(p["reasons"]) if p["flag"] else ""
        who = " + ".join(p["ids"])
        lines.append(
            f"  {who:36} {p['games']:5d} {p['edge_decisions']:6d} {p['hindsight_edge']:+7.2f} "
            f"{p['z_edge']:+6.2f} {p['decisions']:6d} {p['partner_edge']:+6.2f} "
            f"{p['z_partner']:+6.2f}  {mark}".rstrip()
        )
    return lines


# --------------------------------------------------------------------------------------------
# bench fairplay


def _saved_games(name: str) -> list[dict[str, Any]]:
    """The games a ``bench fairplay --save`` wrote, or one CommandError line."""
    data = parse_json(read_text(name), name)
    games = data.get("games") if isinstance(data, dict) else None
    if not isinstance(games, list) or not all(
        isinstance(g, dict) and {"pair", "opponents", "seats", "sums"} <= set(g) for g in games
    ):
        raise CommandError(f"{name} is not what bench fairplay --save writes")
    return games


def run_bench(args: argparse.Namespace) -> int:
    for flag, value, top in (
        ("--honest", args.honest, 1000),
        ("--colluding", args.colluding, 1000),
        ("--samples", args.samples, 100_000),
        ("--workers", args.workers, 64),
    ):
        if not 1 <= value <= top:
            raise CommandError(f"{flag} must be 1 to {top}, not {value}")
    from tranque.fairplay.measure import calibrate, lines, measure, summarise

    if args.judge_by and not args.load:
        raise CommandError("--judge-by goes with --from")
    if args.load:
        games = [g for name in args.load for g in _saved_games(name)]
        if not games:
            raise CommandError("the saved runs hold no games")
        args.honest = sum(1 for g in games if g["pair"] == "facil")
        args.colluding = sum(
            1 for g in games if g["pair"] == "all-seers" and g["opponents"] == "facil"
        )
        judge = None
        if args.judge_by:
            judge = calibrate([g for name in args.judge_by for g in _saved_games(name)])
        result = summarise(
            games, args.honest, args.colluding, args.seed, args.samples,
            constants=args.constants, judge=judge,
        )  # fmt: skip
    else:
        result = measure(
            args.honest, args.colluding, args.seed, args.workers, args.samples,
            constants=args.constants,
        )  # fmt: skip
    if args.save:
        try:
            with open(args.save, "w", encoding="utf-8") as out:
                json.dump(result, out)
        except OSError as exc:
            raise CommandError(f"cannot write {args.save}: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "games"}, indent=1))
    else:
        for line in lines(result):
            print(line)
    return 0
