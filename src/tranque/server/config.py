"""``ServerConfig``: everything a server is made with (``tranque serve``'s flags, checked by
``server.settings``, or a test's own).

Apart from the app (server/app.py) because it is plain data that the command line, the tests
and the benchmarks build, while the app is what runs; the route groups read only the part that
``server.state`` names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tranque.club.accounts import LoginLimits
from tranque.club.matching import FILL
from tranque.commandline import BUS_LINGER_MS
from tranque.server.analyst import QUEUE as ANALYSIS_QUEUE
from tranque.server.edge import Limits
from tranque.server.identity import DEFAULT_MAX_AGE
from tranque.table.ports import Thinker
from tranque.table.service import TableSettings


@dataclass
class ServerConfig:
    defaults: TableSettings = field(default_factory=TableSettings)
    test_seed: bytes | None = None  # reproducible server seeds and table ids: tests only
    rate: float = 20.0  # messages per second per connection, sustained
    burst: float = 40.0
    strikes: int = 20  # messages refused for the rate before the connection is closed
    # Bytes of frames that may wait for a socket that reads too slowly before it is dropped
    # (server.ws.Connection); a frame is never refused while nothing waits ahead of it.
    queue_bytes: int = 512 * 1024
    # Seconds between pings of each socket, and for its pong (server.keepalive): the sockets
    # uvicorn was told not to ping itself (``tranque serve``, the sans-I/O protocol).
    ws_ping: float = 20.0
    limits: Limits = field(default_factory=Limits)
    secret: str | None = None  # the signing secret; None: the one kept in the database
    old_secrets: tuple[str, ...] = ()  # still accepted, during a rotation
    token_max_age: int = DEFAULT_MAX_AGE  # seconds a guest token is valid after it is signed
    table_expiry: float = 3600.0  # seconds from creation for a table to start, or it expires
    finished_linger: float = 300.0  # seconds a finished table stays in memory (at least)
    # Where bots think (``runtime.pool.WorkerPool`` for ``tranque serve``; None: a thread of
    # this process). Started and closed with the app if it has ``start`` / ``close``.
    thinker: Thinker | None = None
    # A node of a cluster: its name and the Redis URL of the bus between nodes (None: one node,
    # every table in this process). The database (PostgreSQL) holds the leases.
    node: str | None = None
    redis: str | None = None
    lease_ttl: float = 5.0  # seconds a dead node's tables wait before another takes them
    bus_linger: float = BUS_LINGER_MS / 1000  # seconds a message to another node may wait
    db_url: str = ""  # names the cluster on Redis (every key and channel is under its hash)
    fill_time: float = FILL  # seconds a quick match waits for people before bots fill it
    # The seconds a tournament's minute lasts (a Swiss's time cap, an arena's clock,
    # docs/tournaments.md): 60, but a test server plays them in seconds (``--tournament-minute``;
    # an arena's ``minutes`` stay 30 to 180 for people).
    tournament_minute: float = 60.0
    login_limits: LoginLimits = field(default_factory=LoginLimits)  # club.accounts
    # Tables rebuilt from their logs off the loop (server.replays): how many are kept for the
    # next request, and how many may wait for the replay thread before requests get 503 busy.
    replays_kept: int = 32
    replays_waiting: int = 32
    # argon2 (club.passwords.PasswordWork): threads hashing at once (None: half the cores), and
    # how many more may wait for one before a login or claim is told 503 busy.
    hash_threads: int | None = None
    hash_waiting: int = 64
    analysis_queue: int = ANALYSIS_QUEUE  # parts this node analyses or keeps waiting, at most
