"""Running ``tranque serve`` and ``tranque migrate``: the server on uvicorn, from the values
``server.settings`` checked.

This module is the composition root: it plugs the SQL store into the app's ``TableStore`` port and
the pool of worker processes (``runtime.pool``) into the tables' ``Thinker`` port. It is apart
from the command line (``server.commands``: the flags; ``server.settings``: their checking)
because it is what runs once the values are good.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import socket
from dataclasses import replace
from typing import Any

from tranque.commandline import CommandError
from tranque.server import gclog
from tranque.server.settings import check_db_url, serve_settings


def run_migrate(args: argparse.Namespace) -> int:
    import asyncio

    check_db_url(args.db)
    from tranque.store import open_store

    async def migrate() -> str:
        store = await open_store(args.db)
        try:
            return await store.revision()
        finally:
            await store.close()

    try:
        revision = asyncio.run(migrate())
    except OSError as exc:
        raise CommandError(f"--db: cannot reach the database: {exc}") from None
    print(f"tranque: the database is at revision {revision}")
    return 0


def build_app(args: argparse.Namespace, settings: dict[str, Any] | None = None) -> Any:
    from tranque.runtime.pool import WorkerPool
    from tranque.server.app import create_app
    from tranque.server.config import ServerConfig
    from tranque.store import open_store
    from tranque.table.service import TableSettings

    v = settings if settings is not None else serve_settings(args)
    defaults = replace(
        TableSettings(),
        move_clock=v["move_clock"],
        pass_delay=v["pass_delay"],
        bot_delay=v["bot_delay"],
        between_hands=v["between_hands"],
        reading_wait=v["reading_wait"],
        grace=v["grace"],
        arrival_window=v["arrival_window"],
        abandon_after=v["abandon_after"],
        fair_window=v["fair_window"],
        choose_window=v["choose_window"],
        redeal_window=v["redeal_window"],
        bot=args.bot,
    )
    seed = None
    if args.test_seed:
        try:
            seed = bytes.fromhex(args.test_seed)
        except ValueError:
            raise CommandError("--test-seed is hex") from None
    config = ServerConfig(
        defaults=defaults,
        test_seed=seed,
        rate=v["rate"],
        burst=3 * v["rate"],
        ws_ping=v["ws_ping"],
        queue_bytes=v["ws_queue_bytes"],
        limits=v["limits"],
        secret=v["secret"],
        old_secrets=v["old_secrets"],
        token_max_age=v["token_max_age"],
        table_expiry=v["table_expiry"],
        finished_linger=v["finished_linger"],
        fill_time=v["fill_time"],
        tournament_minute=v["tournament_minute"],
        replays_kept=v["replays_kept"],
        replays_waiting=v["replays_waiting"],
        hash_threads=v["hash_threads"],
        hash_waiting=v["hash_waiting"],
        # Bots think in worker processes, never on the event loop; the app starts and closes them.
        thinker=WorkerPool(
            v["workers"],
            timeout=v["think_timeout"],
            test_gate=args.test_think_gate,
            analysis_slots=v["analysis"],
        ),
        analysis_queue=v["analysis_queue"],
        node=v["node"],
        redis=v["redis"],
        lease_ttl=v["lease_ttl"],
        bus_linger=v["bus_linger"],
        db_url=args.db,
    )
    url = args.db

    async def store_factory() -> Any:
        return await open_store(url)

    return create_app(config, store_factory)


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from tranque.server import keepalive
    from tranque.server.http_guard import guarded_protocol

    settings = serve_settings(args)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    app = build_app(args, settings)
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, settings["port"]))
    except OSError as exc:
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {exc}") from None
    sock.set_inheritable(True)
    # Listening before uvicorn's start-up: "serving at" is printed once the tables are rebuilt,
    # which is before uvicorn listens on the socket; a client that connects at once was refused.
    sock.listen(2048)
    port = sock.getsockname()[1]
    # uvicorn's pings are a timer per socket; with the sans-I/O protocol one timer pings them
    # all (server.keepalive), and uvicorn's own are off.
    ping = settings["ws_ping"]
    if args.ws_impl == "websockets-sansio" and keepalive.supported():
        ping = None
    config = uvicorn.Config(
        app,
        log_level=args.log_level,
        ws_max_size=64 * 1024,
        # Compressing each recipient's frame was the largest single cost of a move (docs/server.md).
        ws_per_message_deflate=args.ws_compression,
        ws_ping_interval=ping,
        ws_ping_timeout=ping,
        lifespan="on",
        timeout_graceful_shutdown=3,
        server_header=False,  # bytes on every answer, and it tells a scanner what to try
        # The sans-I/O protocol of websockets by default: about half the CPU per move of the
        # older one (docs/server.md, Figures); named, not left to "auto", so that an upgrade of
        # uvicorn cannot change it.
        ws=args.ws_impl,
        # uvicorn's HTTP protocol, with a deadline for each request's headers and body and a
        # cap of connections per address (server.http_guard).
        http=guarded_protocol(settings["http_guard"]),
    )
    host = f"[{args.host}]" if ":" in args.host else args.host
    line = f"tranque: serving at http://{host}:{port}/  (database {_safe(args.db)})"
    if settings["node"]:
        line += f"  (node {settings['node']}, bus {_safe(settings['redis'])})"
    server = _uvicorn_server()(config, app.state.server, line)
    # Fewer, later collections: a full collection over many live tables is a latency spike.
    gc.freeze()
    gc.set_threshold(50_000, 50, 1000)
    if os.environ.get(gclog.ENV):  # the bench's window on the collections' pauses
        gclog.install(os.environ[gclog.ENV])
    server.run(sockets=[sock])
    return 0


def _safe(url: str) -> str:
    """A URL to print: without its password."""
    from sqlalchemy.engine import make_url

    try:
        return str(make_url(url).render_as_string(hide_password=True))
    except Exception:
        return url.split("@")[-1] if "@" in url else url


def _uvicorn_server() -> type[Any]:
    import uvicorn

    class Uvicorn(uvicorn.Server):
        """uvicorn's server, with the start line once the socket listens and a stop that refuses
        new sockets (503), then closes every WebSocket with 1001 (going away), before uvicorn's
        own shutdown."""

        def __init__(self, config: uvicorn.Config, app_server: Any, line: str) -> None:
            super().__init__(config)
            self.app_server = app_server
            self.line = line

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started and not self.should_exit:
                # Only now: the listening socket accepts connections.
                print(self.line, flush=True)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            # Refuse first, then hand over: an upgrade that still comes (over a connection a
            # balancer keeps open to this node) gets a 503 and goes to another node, rather
            # than joining a table this node is about to give away.
            self.app_server.sockets.refuse_new()
            for listener in getattr(self, "servers", []):
                listener.close()  # no new connections while the open ones are told to go
            await self.app_server.drain()
            await super().shutdown(sockets=sockets)

    return Uvicorn
