"""The ``bench`` subcommands that load a real server: ``server``, ``memory``, ``cluster``,
``queue`` and ``compare``, each in its own module of this room.

Registering them imports nothing of the server: each command loads its module when it runs, so
``tranque --help`` stays on the bare core. Nothing in the product imports this room.
"""

from __future__ import annotations

import argparse
from typing import Any

from tranque.commandline import CommandError, bench_subparsers


def register(subparsers: Any) -> None:
    bench = bench_subparsers(subparsers)
    sb = bench.add_parser(
        "server",
        help="N tables of four WebSocket clients against a real server process",
        description="Start the server in its own process and N tables of 4 clients in another.",
    )
    sb.add_argument("--tables", type=int, default=50, metavar="N")
    sb.add_argument(
        "--rate", type=float, default=0.0, metavar="R", help="moves/s per table (0: flat out)"
    )
    sb.add_argument("--seconds", type=float, default=20.0, help="measuring time (20)")
    sb.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring (3)")
    sb.add_argument(
        "--spread",
        type=float,
        default=0.0,
        metavar="S",
        help="the people tables start within S seconds, not together; the warm-up follows (0)",
    )
    sb.add_argument(
        "--practice",
        type=int,
        default=0,
        metavar="K",
        help="practice tables beside them: one fast player and three bots each (0)",
    )
    sb.add_argument(
        "--bot-level",
        default="fuerte",
        help="the practice tables' bots: facil, normal or fuerte (fuerte)",
    )
    sb.add_argument("--bot-delay", type=float, default=0.0, metavar="S", help="the bots' pause (0)")
    sb.add_argument(
        "--pass-delay",
        type=float,
        default=None,
        metavar="S",
        help="forced passes' pause (0 flat out, else one move's time at --rate)",
    )
    sb.add_argument("--workers", type=int, default=None, help="the server's bot workers")
    sb.add_argument(
        "--analysis",
        type=int,
        default=None,
        metavar="N",
        help="the server's workers that may analyse finished games (its default: all but one)",
    )
    sb.add_argument(
        "--ws-impl",
        default=None,
        choices=["websockets-sansio", "websockets"],
        help="the server's WebSocket protocol (its default: websockets-sansio)",
    )
    sb.add_argument("--db", default=None, help="database URL (a temporary SQLite file)")
    sb.add_argument(
        "--profile",
        default=None,
        metavar="FILE",
        help="sample the server with py-spy (on PATH) during the measured seconds; "
        "collapsed stacks to FILE",
    )
    sb.add_argument("--json", action="store_true", help="print the figures as JSON")
    sb.set_defaults(func=_run_bench)

    mem = bench.add_parser(
        "memory",
        help="the server's memory per idle and per playing table",
        description="Start the server in its own process, create N idle (waiting) tables, then N "
        "practice tables in play, and read the server's RSS before and after each batch.",
    )
    mem.add_argument("--tables", type=int, default=200, metavar="N", help="tables per kind (200)")
    mem.add_argument("--json", action="store_true", help="print the figures as JSON")
    mem.set_defaults(func=_run_bench_memory)

    from tranque.bench.arena import register as register_bench_arena
    from tranque.bench.cluster import register as register_bench_cluster
    from tranque.bench.compare import register as register_bench_compare
    from tranque.bench.presence import register as register_bench_presence
    from tranque.bench.queue import register as register_bench_queue

    register_bench_cluster(bench)
    register_bench_queue(bench)
    register_bench_presence(bench)
    register_bench_compare(bench)
    register_bench_arena(bench)


def _run_bench(args: argparse.Namespace) -> int:
    if not 0 < args.seconds <= 3600 or not 0 <= args.warmup <= 600:
        raise CommandError("--seconds must be more than 0 (at most 3600), --warmup 0 to 600")
    if not 0 <= args.spread <= 600:
        raise CommandError(f"--spread must be 0 to 600 seconds, not {args.spread:g}")
    if args.rate < 0:
        raise CommandError(f"--rate must be 0 (flat out) or more, not {args.rate:g}")
    if args.bot_delay < 0 or (args.pass_delay is not None and args.pass_delay < 0):
        raise CommandError("--bot-delay and --pass-delay are 0 seconds or more")
    from tranque.bench.server import run_bench

    return int(run_bench(args))


def _run_bench_memory(args: argparse.Namespace) -> int:
    from tranque.bench.memory import run_memory

    return int(run_memory(args))
