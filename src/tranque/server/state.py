"""What the route groups read of the server, as protocol types: the way Starlette hands a route
``request.app.state`` rather than the app itself.

``Server`` (server/app.py) builds the route groups (``Sockets``, ``GameRoutes``, ``Club``...)
and passes itself to them; they in turn read a few of its parts. Typed against ``Server`` they
would import app.py, which imports them: a circle of six modules. Typed against these protocols
they depend on this small module only, and app.py on them. A route group that needs something
more of the server adds it here, never an import of app.py.
"""

from __future__ import annotations

from typing import Protocol

from tranque.club.lobby import LobbyBoard
from tranque.club.quickmatch import QuickMatch
from tranque.server.caps import TableCaps
from tranque.server.club import Club
from tranque.server.edge import Limits
from tranque.server.identity import Identity
from tranque.server.pairs import PairRoutes
from tranque.store.chips import SqlChips
from tranque.table.lobby import Lobby
from tranque.table.ports import Thinker
from tranque.table.service import TableSettings


class Settings(Protocol):
    """What the routes read of ``ServerConfig``: the tables' defaults, the limits per client,
    each socket's rate, queue and pings, the bots' thinker and the node's name."""

    defaults: TableSettings
    limits: Limits
    rate: float
    burst: float
    strikes: int
    queue_bytes: int
    ws_ping: float
    thinker: Thinker | None
    node: str | None


class ServerState(Protocol):
    """The server's parts that the sockets and the games' routes use; None until the lifespan
    has built them (the sockets and routes only run inside it)."""

    @property
    def config(self) -> Settings: ...
    @property
    def club(self) -> Club | None: ...
    @property
    def lobby(self) -> Lobby | None: ...
    @property
    def board(self) -> LobbyBoard | None: ...
    @property
    def quick(self) -> QuickMatch | None: ...
    @property
    def identity(self) -> Identity | None: ...
    @property
    def caps(self) -> TableCaps: ...
    @property
    def chips(self) -> SqlChips | None: ...
    @property
    def pair_routes(self) -> PairRoutes | None: ...


class HasLobby(Protocol):
    """A server with its tables (``Club.table_players`` reads a live table's seats)."""

    @property
    def lobby(self) -> Lobby | None: ...
