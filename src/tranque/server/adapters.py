"""Which adapter serves each port of a node: a cluster's leases, bus and rate limits, and the
club's queue and lobby directory, on PostgreSQL and Redis; this process's own on a single node.

A mixin of ``Server`` (server/app.py), apart from it because choosing the adapters is one concern
and the app's life and routing are another; it reads the node's settings and the rate limiters
the app made, and adds what it opened to ``_closing``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from tranque.club.ports import LobbyDirectory, LocalDirectory, LocalQueue, MatchQueue
from tranque.server.edge import Buckets, RateLimiter
from tranque.store.db import Store
from tranque.table.bus import Bus
from tranque.table.ports import Leases, TableStore

if TYPE_CHECKING:
    from tranque.server.config import ServerConfig


class ServerAdapters:
    """``_cluster`` and ``_club_ports`` of ``Server``."""

    config: ServerConfig
    buckets: Buckets
    guest_rate: RateLimiter
    table_rate: RateLimiter
    claim_rate: RateLimiter
    _closing: list[Callable[[], Awaitable[None]]]

    def _cluster(self, store: TableStore) -> tuple[Leases | None, Bus | None]:
        """A cluster's leases (in the database) and bus (on Redis); (None, None) on one node."""
        cfg = self.config
        if cfg.redis is None:
            return None, None
        from tranque.runtime.redis_bus import RedisBus, namespace
        from tranque.runtime.redis_rates import RedisBuckets
        from tranque.store.leases import SqlLeases

        node = cfg.node or "node"
        assert isinstance(store, Store)
        bus = RedisBus(cfg.redis, node, namespace(cfg.db_url), linger=cfg.bus_linger)
        # The rate limits count every node's requests (a client may hit any node).
        buckets = RedisBuckets(cfg.redis, namespace(cfg.db_url))
        self.buckets = self.guest_rate.buckets = self.table_rate.buckets = buckets
        self.claim_rate.buckets = buckets
        self._closing.append(buckets.close)
        return SqlLeases(store, node, cfg.lease_ttl), bus

    def _club_ports(self) -> tuple[MatchQueue, LobbyDirectory]:
        """The queue and the lobby's directory: every node's on Redis, else this process's."""
        cfg = self.config
        if cfg.redis is None:
            return LocalQueue(), LocalDirectory()
        from tranque.runtime.redis_bus import namespace
        from tranque.runtime.redis_club import RedisDirectory, RedisQueue

        queue = RedisQueue(cfg.redis, namespace(cfg.db_url))
        directory = RedisDirectory(cfg.redis, namespace(cfg.db_url))
        self._closing.extend([queue.close, directory.close])
        return queue, directory
