"""The command line of ``tranque serve`` and ``tranque migrate``: the flags.

Every setting of ``serve`` is a flag, and most have an environment variable (``TRANQUE_*``) that
sets the default. Checking the values (a bad one exits with code 2 and one line, before anything
starts) is ``server.settings``; running the commands (the app built from the checked values,
uvicorn) is ``server.serve``. Three modules, one way: this one names ``serve``'s functions, and
``serve`` reads ``settings``, never this module.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from tranque.commandline import BUS_LINGER_MS
from tranque.server.serve import run_migrate, run_serve
from tranque.server.settings import ENV as _ENV

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
        "--tournament-minute", default="60", metavar="S",
        help="seconds a tournament's minute lasts (a Swiss's time cap, an arena's clock): for "
        "tests that run a tournament in seconds (0.01-60; 60)",
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
