"""The command line of ``tranque serve``, ``tranque migrate`` and ``tranque bench server``: the
flags, and the checking of ``serve``'s values.

Every setting of ``serve`` is a flag, and most have an environment variable (``TRANQUE_*``) that
sets the default; a bad value exits with code 2 and one line, before anything starts. Running the
commands (the app built from the checked values, uvicorn) is ``server.serve``: apart, so that
this module stays the command line and nothing more.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import socket
from pathlib import Path
from typing import Any

from tranque.commands import BUS_LINGER_MS, CommandError, bench_subparsers

# The flags whose default comes from an environment variable, and that variable.
_ENV = {
    "guests_per_minute": "TRANQUE_GUESTS_PER_MINUTE",
    "guest_burst": "TRANQUE_GUEST_BURST",
    "tables_per_minute": "TRANQUE_TABLES_PER_MINUTE",
    "table_burst": "TRANQUE_TABLE_BURST",
    "max_open_tables": "TRANQUE_MAX_OPEN_TABLES",
    "max_spectators": "TRANQUE_MAX_SPECTATORS",
    "max_sockets_per_ip": "TRANQUE_MAX_SOCKETS_PER_IP",
    "api_gets_per_minute": "TRANQUE_API_GETS_PER_MINUTE",
    "api_get_burst": "TRANQUE_API_GET_BURST",
    "max_http_per_ip": "TRANQUE_MAX_HTTP_PER_IP",
    "http_header_timeout": "TRANQUE_HTTP_HEADER_TIMEOUT",
    "http_body_timeout": "TRANQUE_HTTP_BODY_TIMEOUT",
    "ws_queue_bytes": "TRANQUE_WS_QUEUE_BYTES",
    "claims_per_minute": "TRANQUE_CLAIMS_PER_MINUTE",
    "claim_burst": "TRANQUE_CLAIM_BURST",
    "rate_keys": "TRANQUE_RATE_KEYS",
    "hash_threads": "TRANQUE_HASH_THREADS",
    "hash_waiting": "TRANQUE_HASH_WAITING",
    "token_days": "TRANQUE_TOKEN_DAYS",
    "secret_file": "TRANQUE_SECRET_FILE",
    "redis": "TRANQUE_REDIS",
    "node": "TRANQUE_NODE",
    "lease_ttl": "TRANQUE_LEASE_TTL",
    "bus_linger": "TRANQUE_BUS_LINGER",
    "analysis_queue": "TRANQUE_ANALYSIS_QUEUE",
}


_LIMIT_FLAGS = [
    ("guests_per_minute", "10", "new guests per minute per client address"),
    ("guest_burst", "20", "new guests at once per client address"),
    ("tables_per_minute", "30", "new tables per minute per client address"),
    ("table_burst", "30", "new tables at once per client address"),
    ("max_open_tables", "5", "unfinished tables one guest may host"),
    ("max_spectators", "50", "spectators per table"),
    ("max_sockets_per_ip", "64", "open WebSockets per client address"),
    ("api_gets_per_minute", "600", "GETs of /api/ per minute per client address"),
    ("api_get_burst", "60", "GETs of /api/ at once per client address"),
    (
        "max_http_per_ip",
        "64",
        "HTTP connections at once per peer address (a proxy uvicorn trusts is not counted)",
    ),
    ("claims_per_minute", "5", "account claims per minute per client address"),
    ("claim_burst", "10", "account claims at once per client address"),
]


def _env(dest: str, default: str | None) -> str | None:
    return os.environ.get(_ENV[dest], default)


def register(subparsers: Any) -> None:
    # Not at the top: ``server.serve`` imports this module's checks.
    from tranque.server.serve import run_migrate, run_serve

    serve = subparsers.add_parser(
        "serve",
        help="run the online table server (WebSocket + HTTP)",
        description="Serve tables over WebSocket on uvicorn; every event is kept in the database.",
    )
    # Values are parsed by ``_settings`` rather than argparse's ``type=``, so that a bad one is
    # one line on standard error, like every other error of the command.
    add = serve.add_argument
    add("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    add("--port", default="8000", help="port (8000; 0 picks a free one)")
    add("--db", default="sqlite:///tranque.db", help="database URL (sqlite:///tranque.db)")
    add("--move-clock", default="25", metavar="S", help="default seconds per play (0.5-600; 25)")
    add("--pass-delay", default="1", metavar="S", help="default 1")
    add("--bot-delay", default="0.8", metavar="S", help="default 0.8")
    add("--between-hands", default="4", metavar="S", help="default 4")
    add(
        "--reading-wait", default="20", metavar="S",
        help="seconds more the next hand may wait for a person still reading the last (20)",
    )  # fmt: skip
    add("--grace", default="60", metavar="S", help="default 60")
    add(
        "--arrival-window", default="30", metavar="S",
        help="a seated person with no connection at a table S seconds after its start never "
        "came: he is away and a bot plays for him at once (0-3600; 30)",
    )  # fmt: skip
    add(
        "--abandon-after", default="300", metavar="S",
        help="a started table whose people have all been away S seconds ends, unrated, every "
        "chip back (0.1-86400; 300)",
    )  # fmt: skip
    add("--fair-window", default="3", metavar="S", help="default 3")
    add("--choose-window", default="15", metavar="S")
    add(
        "--redeal-window", default="3", metavar="S",
        help="seconds every deal stays on show before the lead, at a table with a person: a "
        "seat with five doubles may ask for a redeal meanwhile; the same every hand, so that "
        "nobody learns who may ask (3)",
    )  # fmt: skip
    add(
        "--bot", default="heuristic",
        help="bot for empty seats, takeovers and clocks: a level (facil, normal, fuerte) or a "
        "bot's name (random, heuristic, strong, ...); default heuristic",
    )  # fmt: skip
    add("--rate", default="20", help="messages/s per connection (20)")
    add(
        "--ws-impl",
        default="websockets-sansio",
        choices=["websockets-sansio", "websockets"],
        help="uvicorn's WebSocket protocol: the sans-I/O one (default) or the older one",
    )
    add(
        "--ws-ping", default="20", metavar="S",
        help="seconds between the server's pings of each WebSocket; one still unanswered a "
        "ping later closes the socket (1011) (0.1-3600; 20)",
    )  # fmt: skip
    add(
        "--ws-queue-bytes", default=_env("ws_queue_bytes", "524288"), metavar="N",
        help="bytes of frames that may wait for a socket that reads too slowly; past them it "
        "is closed with 1008 (4096 or more; 524288; TRANQUE_WS_QUEUE_BYTES)",
    )  # fmt: skip
    add(
        "--http-header-timeout", default=_env("http_header_timeout", "10"), metavar="S",
        help="seconds a request's headers may take from its first byte, else 408 and closed "
        "(0: none; 10; TRANQUE_HTTP_HEADER_TIMEOUT)",
    )  # fmt: skip
    add(
        "--http-body-timeout", default=_env("http_body_timeout", "30"), metavar="S",
        help="seconds a request's body may take after its headers, else 408 and closed "
        "(0: none; 30; TRANQUE_HTTP_BODY_TIMEOUT)",
    )  # fmt: skip
    add(
        "--ws-compression",
        action="store_true",
        help="compress WebSocket frames (permessage-deflate): fewer bytes, more CPU per frame",
    )
    limits = serve.add_argument_group("limits per client (0: no limit)")
    for dest, default, what in _LIMIT_FLAGS:
        limits.add_argument(
            "--" + dest.replace("_", "-"),
            default=_env(dest, default),
            metavar="N",
            help=f"{what} ({default}; {_ENV[dest]})",
        )
    add(
        "--rate-keys", default=_env("rate_keys", "50000"), metavar="N",
        help="rate-limit buckets one node keeps in memory at most; the least recently used "
        "goes first (100-10000000; 50000; TRANQUE_RATE_KEYS)",
    )  # fmt: skip
    add(
        "--hash-threads", default=_env("hash_threads", None), metavar="N",
        help="threads hashing and checking passwords (argon2) at once (1-64; default: half "
        "the cores, at least 1; TRANQUE_HASH_THREADS)",
    )  # fmt: skip
    add(
        "--hash-waiting", default=_env("hash_waiting", "64"), metavar="N",
        help="logins and claims that may wait for a hashing thread; past them 503 busy "
        "(0-100000; 64; TRANQUE_HASH_WAITING)",
    )  # fmt: skip
    add(
        "--table-expiry", default="3600", metavar="S",
        help="a table that has not started S seconds after its creation expires (3600)",
    )  # fmt: skip
    add(
        "--finished-linger", default="300", metavar="S",
        help="a finished table leaves memory S s after its end, once nobody has it open (300)",
    )  # fmt: skip
    add(
        "--replays-kept", default="32", metavar="N",
        help="tables rebuilt from their logs (another node's, for their info and record) "
        "kept in memory for the next request (1-10000; 32)",
    )  # fmt: skip
    add(
        "--replays-waiting", default="32", metavar="N",
        help="tables that may wait to be rebuilt from their logs; past that a request gets "
        "503 busy (1-10000; 32)",
    )  # fmt: skip
    add(
        "--fill-time", default="15", metavar="S",
        help="seconds a quick match waits for people before bots of level normal take the "
        "empty seats (0-600; 15)",
    )  # fmt: skip
    add(
        "--workers", default=None, metavar="N",
        help="worker processes where bots think (default: the number of cores)",
    )  # fmt: skip
    add(
        "--analysis", default=None, metavar="N",
        help="of those workers, how many may analyse finished games at once (default: all but "
        "one, at least one; 0: this node analyses none, another node of the cluster does)",
    )  # fmt: skip
    add(
        "--analysis-queue", default=_env("analysis_queue", "32"), metavar="N",
        help="analyses this node holds at once, running or waiting for a worker; a hindsight "
        "asked past them is refused (503 analysis_busy) (1-10000; 32; TRANQUE_ANALYSIS_QUEUE)",
    )  # fmt: skip
    add(
        "--think-timeout", default="30", metavar="S",
        help="seconds a bot's decision may take before its worker is replaced and the decision "
        "sent to another (30)",
    )  # fmt: skip
    add(
        "--test-think-gate",
        metavar="PATH",
        help=argparse.SUPPRESS,  # tests only: bot decisions wait until the file PATH exists
    )
    sec = serve.add_argument_group("origins and tokens")
    sec.add_argument(
        "--allow-origin",
        action="append",
        default=None,
        metavar="ORIGIN",
        help="a browser Origin allowed on /ws besides the server's own (repeatable; "
        "TRANQUE_ALLOW_ORIGINS, comma-separated)",
    )
    sec.add_argument(
        "--token-days", default=_env("token_days", "30"), metavar="D",
        help="days a guest token is valid after it is signed or renewed (30)",
    )  # fmt: skip
    sec.add_argument(
        "--secret-file", default=_env("secret_file", None), metavar="PATH",
        help="the token signing secret (first line) and old ones still accepted (later lines); "
        "else TRANQUE_SECRET and TRANQUE_OLD_SECRETS, else the database's",
    )  # fmt: skip
    add(
        "--test-seed",
        metavar="HEX",
        help=argparse.SUPPRESS,  # reproducible server seeds and table ids: tests only, insecure
    )
    cluster = serve.add_argument_group("many nodes (docs/deploy.md)")
    cluster.add_argument(
        "--redis", default=_env("redis", None), metavar="URL",
        help="redis://HOST:PORT/N: run as one node of a cluster, with the other nodes on the "
        "same PostgreSQL --db and this Redis (TRANQUE_REDIS); without it, one node",
    )  # fmt: skip
    cluster.add_argument(
        "--node", default=_env("node", None), metavar="NAME",
        help="this node's name, unique in the cluster (TRANQUE_NODE; default: host name and port)",
    )  # fmt: skip
    cluster.add_argument(
        "--lease-ttl", default=_env("lease_ttl", "5"), metavar="S",
        help="seconds a node's tables wait after it stops renewing before another node takes "
        "them (1-60; 5; TRANQUE_LEASE_TTL)",
    )  # fmt: skip
    cluster.add_argument(
        "--bus-linger", default=_env("bus_linger", f"{BUS_LINGER_MS:g}"), metavar="MS",
        help="milliseconds a message to another node may wait for others to go with it "
        "(0-50; 5; 0: each turn of the loop; TRANQUE_BUS_LINGER)",
    )  # fmt: skip
    add("--log-level", default="warning")
    serve.set_defaults(func=run_serve)

    mig = subparsers.add_parser(
        "migrate",
        help="create or upgrade the database's schema (nodes also do it themselves at start)",
        description="Upgrade the schema of --db to the newest migration, under PostgreSQL's "
        "advisory lock (safe while nodes start), then print the revision.",
    )
    mig.add_argument("--db", default="sqlite:///tranque.db", help="database URL")
    mig.set_defaults(func=run_migrate)

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

    from tranque.server.bench_cluster import register as register_bench_cluster
    from tranque.server.bench_queue import register as register_bench_queue

    register_bench_cluster(bench)
    register_bench_queue(bench)


def _run_bench(args: argparse.Namespace) -> int:
    if not 0 < args.seconds <= 3600 or not 0 <= args.warmup <= 600:
        raise CommandError("--seconds must be more than 0 (at most 3600), --warmup 0 to 600")
    if not 0 <= args.spread <= 600:
        raise CommandError(f"--spread must be 0 to 600 seconds, not {args.spread:g}")
    if args.rate < 0:
        raise CommandError(f"--rate must be 0 (flat out) or more, not {args.rate:g}")
    if args.bot_delay < 0 or (args.pass_delay is not None and args.pass_delay < 0):
        raise CommandError("--bot-delay and --pass-delay are 0 seconds or more")
    from tranque.server.bench import run_bench

    return int(run_bench(args))


def _run_bench_memory(args: argparse.Namespace) -> int:
    from tranque.server.bench_memory import run_memory

    return int(run_memory(args))


def _flag(dest: str) -> str:
    """The flag's name for a message, with its environment variable if it has one."""
    flag = "--" + dest.replace("_", "-")
    return f"{flag} ({_ENV[dest]})" if dest in _ENV else flag


def _number(args: argparse.Namespace, dest: str, low: float, high: float = math.inf) -> float:
    flag = _flag(dest)
    raw = getattr(args, dest)
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise CommandError(f"{flag} must be a number, not {raw!r}") from None
    if not low <= value <= high:
        top = "" if high == math.inf else f" to {high:g}"
        raise CommandError(f"{flag} must be {low:g}{top or ' or more'}, not {raw}")
    return value


def _integer(args: argparse.Namespace, dest: str, low: int, high: int | None = None) -> int:
    flag = _flag(dest)
    raw = getattr(args, dest)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise CommandError(f"{flag} must be a whole number, not {raw!r}") from None
    if value < low or (high is not None and value > high):
        top = f" to {high}" if high is not None else " or more"
        raise CommandError(f"{flag} must be {low}{top}, not {raw}")
    return value


def check_db_url(url: str) -> None:
    """A CommandError naming what is wrong with ``url`` before the server tries to open it."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        raise CommandError(f"--db must be a sqlite:/// or postgresql:// URL, not {url!r}") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        path = parsed.database or ""
        if path and path != ":memory:" and not path.startswith("file:"):
            parent = Path(path).expanduser().absolute().parent
            if not parent.is_dir():
                raise CommandError(f"--db: the directory {parent} does not exist")
            if not os.access(parent, os.W_OK):
                raise CommandError(f"--db: the directory {parent} is not writable")
    elif backend in ("postgresql", "postgres"):
        if importlib.util.find_spec("asyncpg") is None:
            raise CommandError(
                "--db postgresql:// needs the asyncpg driver: install the postgres extra "
                "(pip install 'tranque[postgres]')"
            )
    else:
        raise CommandError(f"--db must be a sqlite:/// or postgresql:// URL, not {url!r}")


def _secrets(args: argparse.Namespace) -> tuple[str | None, tuple[str, ...]]:
    """(signing secret, old secrets) from --secret-file, else the environment; (None, ()) if
    neither is set: the database's secret then."""
    if args.secret_file:
        try:
            lines = Path(args.secret_file).read_text().splitlines()
        except OSError as exc:
            raise CommandError(f"--secret-file: cannot read {args.secret_file}: {exc}") from None
        keys = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
        if not keys:
            raise CommandError(f"--secret-file: {args.secret_file} has no secret in it")
        return keys[0], tuple(keys[1:])
    secret = os.environ.get("TRANQUE_SECRET", "").strip()
    old = tuple(
        s.strip() for s in os.environ.get("TRANQUE_OLD_SECRETS", "").split(",") if s.strip()
    )
    if not secret:
        if old:
            raise CommandError("TRANQUE_OLD_SECRETS is set but TRANQUE_SECRET is not")
        return None, ()
    return secret, old


def serve_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Every value of ``serve``, checked: a CommandError for the first bad one."""
    from tranque.server.edge import Limits

    out: dict[str, Any] = {}
    out["port"] = _integer(args, "port", 0, 65535)
    check_db_url(args.db)
    out["move_clock"] = _number(args, "move_clock", 0.5, 600)
    for dest in ("pass_delay", "bot_delay", "between_hands", "fair_window", "reading_wait"):
        out[dest] = _number(args, dest, 0, 600)
    for dest in ("grace", "choose_window", "redeal_window", "arrival_window"):
        out[dest] = _number(args, dest, 0, 3600)
    out["abandon_after"] = _number(args, "abandon_after", 0.1, 86400)
    out["rate"] = _number(args, "rate", 0.1, 100_000)
    out["ws_ping"] = _number(args, "ws_ping", 0.1, 3600)
    out["ws_queue_bytes"] = _integer(args, "ws_queue_bytes", 4096)
    out["table_expiry"] = _number(args, "table_expiry", 0.001, 30 * 86400)
    out["finished_linger"] = _number(args, "finished_linger", 0, 86400)
    out["fill_time"] = _number(args, "fill_time", 0, 600)
    out["replays_kept"] = _integer(args, "replays_kept", 1, 10_000)
    out["replays_waiting"] = _integer(args, "replays_waiting", 1, 10_000)
    from tranque.bots.base import resolve_bot

    try:
        resolve_bot(args.bot)
    except ValueError as exc:
        raise CommandError(f"--bot: {exc}") from None
    cores = os.cpu_count() or 1
    out["workers"] = cores if args.workers is None else _integer(args, "workers", 1, 256)
    out["analysis"] = (
        None if args.analysis is None else _integer(args, "analysis", 0, out["workers"])
    )
    out["analysis_queue"] = _integer(args, "analysis_queue", 1, 10_000)
    out["think_timeout"] = _number(args, "think_timeout", 0.01, 3600)
    origins = list(args.allow_origin or [])
    env_origins = os.environ.get("TRANQUE_ALLOW_ORIGINS", "")
    origins += [o.strip() for o in env_origins.split(",") if o.strip()]
    for origin in origins:
        if not origin.startswith(("http://", "https://")):
            raise CommandError(f"--allow-origin is scheme://host[:port], not {origin!r}")
    out["limits"] = Limits(
        guests_per_minute=_number(args, "guests_per_minute", 0),
        guest_burst=_integer(args, "guest_burst", 1),
        tables_per_minute=_number(args, "tables_per_minute", 0),
        table_burst=_integer(args, "table_burst", 1),
        max_open_tables=_integer(args, "max_open_tables", 0),
        max_spectators=_integer(args, "max_spectators", 0),
        max_sockets_per_ip=_integer(args, "max_sockets_per_ip", 0),
        api_gets_per_minute=_number(args, "api_gets_per_minute", 0),
        api_get_burst=_integer(args, "api_get_burst", 1),
        claims_per_minute=_number(args, "claims_per_minute", 0),
        claim_burst=_integer(args, "claim_burst", 1),
        rate_keys=_integer(args, "rate_keys", 100, 10_000_000),
        allow_origins=tuple(origins),
    )
    from tranque.server.http_guard import HttpGuard

    out["http_guard"] = HttpGuard(
        header_timeout=_number(args, "http_header_timeout", 0, 3600),
        body_timeout=_number(args, "http_body_timeout", 0, 3600),
        max_per_address=_integer(args, "max_http_per_ip", 0),
    )
    out["hash_threads"] = (
        None if args.hash_threads is None else _integer(args, "hash_threads", 1, 64)
    )
    out["hash_waiting"] = _integer(args, "hash_waiting", 0, 100_000)
    out["token_max_age"] = max(1, round(_number(args, "token_days", 1e-5, 3650) * 86400))
    out["secret"], out["old_secrets"] = _secrets(args)
    out["lease_ttl"] = _number(args, "lease_ttl", 1, 60)
    out["bus_linger"] = _number(args, "bus_linger", 0, 50) / 1000
    out["redis"], out["node"] = _cluster(args, out["port"])
    return out


def _cluster(args: argparse.Namespace, port: int) -> tuple[str | None, str | None]:
    """(Redis URL, node name) of a cluster's node, checked; (None, None) for one node."""
    if not args.redis:
        return None, None
    if not args.redis.startswith(("redis://", "rediss://", "unix://")):
        raise CommandError(f"--redis must be a redis://HOST:PORT/N URL, not {args.redis!r}")
    if args.db.startswith("sqlite"):
        raise CommandError(
            "--redis needs a PostgreSQL --db shared by every node: SQLite is one node's file"
        )
    if importlib.util.find_spec("redis") is None or importlib.util.find_spec("hiredis") is None:
        raise CommandError("--redis needs the cluster extra (pip install 'tranque[cluster]')")
    node = args.node or f"{socket.gethostname()}:{port}"
    if not 1 <= len(node) <= 64 or any(c.isspace() for c in node):
        raise CommandError(f"--node is 1 to 64 characters without spaces, not {node!r}")
    return args.redis, node
