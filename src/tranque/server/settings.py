"""The checking of ``tranque serve``'s values: each flag's text to the value the server takes,
or a ``CommandError`` naming the flag (and its environment variable) in one line, before anything
starts. The flags themselves are ``server.commands``; ``server.serve`` runs with what this
returns.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import socket
from pathlib import Path
from typing import Any

from tranque.commandline import CommandError

# The flags whose default comes from an environment variable, and that variable.
ENV = {
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


def _flag(dest: str) -> str:
    """The flag's name for a message, with its environment variable if it has one."""
    flag = "--" + dest.replace("_", "-")
    return f"{flag} ({ENV[dest]})" if dest in ENV else flag


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
    out["tournament_minute"] = _number(args, "tournament_minute", 0.01, 60)
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
