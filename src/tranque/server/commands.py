"""``tranque serve`` and ``tranque bench server``: the server on uvicorn, and its benchmark.

This module is the composition root: it plugs the SQL store into the app's ``TableStore`` port and
the pool of worker processes (``runtime.pool``) into the tables' ``Thinker`` port.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import socket
from dataclasses import replace
from typing import Any

from tranque.commands import CommandError


def register(subparsers: Any) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="run the online table server (WebSocket + HTTP)",
        description="Serve tables over WebSocket on uvicorn; every event is kept in the database.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (8000; 0 picks a free one)")
    serve.add_argument(
        "--db", default="sqlite:///tranque.db", help="database URL (sqlite:///tranque.db)"
    )
    serve.add_argument("--move-clock", type=float, default=25.0, metavar="S", help="default 25")
    serve.add_argument("--pass-delay", type=float, default=1.0, metavar="S", help="default 1")
    serve.add_argument("--bot-delay", type=float, default=0.8, metavar="S", help="default 0.8")
    serve.add_argument("--between-hands", type=float, default=4.0, metavar="S", help="default 4")
    serve.add_argument("--grace", type=float, default=60.0, metavar="S", help="default 60")
    serve.add_argument("--fair-window", type=float, default=3.0, metavar="S", help="default 3")
    serve.add_argument("--choose-window", type=float, default=15.0, metavar="S")
    serve.add_argument("--redeal-window", type=float, default=15.0, metavar="S")
    serve.add_argument(
        "--bot",
        default="heuristic",
        help="bot for empty seats, takeovers and clocks: a level (facil, normal, fuerte) or a "
        "bot's name (random, heuristic, strong, ...); default heuristic",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes where bots think (default: the number of cores)",
    )
    serve.add_argument(
        "--think-timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds a bot's decision may take before its worker is replaced and the decision "
        "sent to another (default 30)",
    )
    serve.add_argument(
        "--test-think-gate",
        metavar="PATH",
        help=argparse.SUPPRESS,  # tests only: bot decisions wait until the file PATH exists
    )
    serve.add_argument("--rate", type=float, default=20.0, help="messages/s per connection")
    serve.add_argument(
        "--test-seed",
        metavar="HEX",
        help=argparse.SUPPRESS,  # reproducible server seeds and table ids: tests only, insecure
    )
    serve.add_argument("--log-level", default="warning")
    serve.set_defaults(func=run_serve)

    bench = _bench_parser(subparsers)
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
    sb.add_argument("--db", default=None, help="database URL (a temporary SQLite file)")
    sb.add_argument("--json", action="store_true", help="print the figures as JSON")
    sb.set_defaults(func=_run_bench)


def _bench_parser(subparsers: Any) -> Any:
    """The ``bench`` command's subparsers, whoever created ``bench`` first."""
    existing = subparsers.choices.get("bench")
    if existing is None:
        existing = subparsers.add_parser("bench", help="benchmarks that print figures")
        existing.set_defaults(func=lambda args: existing.print_help() or 2)
    for action in existing._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return existing.add_subparsers(dest="bench_command", metavar="BENCH")


def _run_bench(args: argparse.Namespace) -> int:
    from tranque.server.bench import run_bench

    return int(run_bench(args))


def build_app(args: argparse.Namespace) -> Any:
    from tranque.bots.base import resolve_bot
    from tranque.runtime.pool import WorkerPool
    from tranque.server.app import ServerConfig, create_app
    from tranque.store import open_store
    from tranque.table.service import TableSettings

    try:
        resolve_bot(args.bot)
    except ValueError as exc:
        raise CommandError(f"--bot: {exc}") from None
    workers = args.workers if args.workers is not None else os.cpu_count() or 1
    if workers < 1:
        raise CommandError("--workers is at least 1")
    if not args.think_timeout > 0:
        raise CommandError("--think-timeout is a number of seconds above 0")

    defaults = replace(
        TableSettings(),
        move_clock=args.move_clock,
        pass_delay=args.pass_delay,
        bot_delay=args.bot_delay,
        between_hands=args.between_hands,
        grace=args.grace,
        fair_window=args.fair_window,
        choose_window=args.choose_window,
        redeal_window=args.redeal_window,
        bot=args.bot,
    )
    seed = None
    if args.test_seed:
        try:
            seed = bytes.fromhex(args.test_seed)
        except ValueError:
            raise CommandError("--test-seed is hex") from None
    # Bots think in worker processes, never on the event loop; the app starts and closes them.
    pool = WorkerPool(workers, timeout=args.think_timeout, test_gate=args.test_think_gate)
    config = ServerConfig(
        defaults=defaults, test_seed=seed, rate=args.rate, burst=3 * args.rate, thinker=pool
    )
    config.on_ready = getattr(args, "on_ready", None)
    url = args.db

    async def store_factory() -> Any:
        return await open_store(url)

    return create_app(config, store_factory)


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    if not args.db.startswith(("sqlite:", "postgresql:", "postgres:", "sqlite+", "postgresql+")):
        raise CommandError(f"--db must be a sqlite:/// or postgresql:// URL, not {args.db!r}")
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    address: list[str] = []
    args.on_ready = lambda: print(
        f"tranque: serving at {address[0]}  (database {args.db})", flush=True
    )
    app = build_app(args)
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
    except OSError as exc:
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {exc}") from None
    sock.set_inheritable(True)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        log_level=args.log_level,
        ws_max_size=64 * 1024,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        lifespan="on",
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)
    # Fewer, later collections: a full collection over many live tables is a latency spike.
    gc.freeze()
    gc.set_threshold(50_000, 50, 1000)
    host = f"[{args.host}]" if ":" in args.host else args.host
    address.append(f"http://{host}:{port}/")
    server.run(sockets=[sock])
    return 0
