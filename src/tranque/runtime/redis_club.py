"""The club's shared state on Redis, for every node of a cluster: the quick-match queue
(``RedisQueue``, a ``club.ports.MatchQueue``) and the lobby's directory of public tables
(``RedisDirectory``, a ``club.ports.LobbyDirectory``).

The queue of a variant is one hash (guest -> ticket). Forming tables reads it under ``WATCH``,
runs the club's pure rule (``club.matching.form_tables``) and deletes the seated tickets in one
``MULTI``: if any node changed the queue meanwhile (a join, a leave, another node's take) the
transaction fails and is tried again on the fresh queue, so a ticket is seated at most once
however many nodes match at the same moment. Where each seated guest sits is kept a minute
under its own key, for the guest's node to read and tell him.

Both may be lost with Redis (a restart): the people waiting then see their queue end and
queue again, and every node writes its public tables again within a third of ``TTL``. Nothing
of a game is here.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import msgspec
import redis.asyncio as aioredis

from tranque.club.matching import Seating, Ticket, form_tables
from tranque.club.ports import Placement, party_mate

PLACED_FOR = 60  # seconds a seated guest's placement is kept for his node to read
TTL = 15.0  # seconds a table stays in the lobby unless its owner writes it again

_ticket = msgspec.json.Decoder(Ticket)
_placement = msgspec.json.Decoder(Placement)
_encode = msgspec.json.encode


class RedisQueue:
    def __init__(self, url: str, ns: str) -> None:
        self.prefix = f"tranque:{ns}:queue:"
        self._client: Any = aioredis.Redis.from_url(url, socket_timeout=2)

    def _key(self, variant: str) -> str:
        return f"{self.prefix}v:{variant}"

    @property
    def _where(self) -> str:
        return f"{self.prefix}where"  # guest -> the variant he waits for

    async def join(self, ticket: Ticket) -> str | None:
        key = self._key(ticket.variant)

        async def tx(pipe: Any) -> str | None:
            waiting = [_ticket.decode(v) for v in (await pipe.hvals(key))]
            mate = party_mate(waiting, ticket)  # QueueError party_full
            earlier = await pipe.hget(self._where, ticket.guest)
            pipe.multi()
            if earlier is not None and earlier.decode() != ticket.variant:
                pipe.hdel(self._key(earlier.decode()), ticket.guest)
            pipe.hset(key, ticket.guest, _encode(ticket))
            pipe.hset(self._where, ticket.guest, ticket.variant)
            pipe.delete(self._placed(ticket.guest))
            return mate

        mate: str | None = await self._client.transaction(
            tx, key, self._where, value_from_callable=True
        )
        return mate

    async def leave(self, guest: str) -> bool:
        variant = await self._client.hget(self._where, guest)
        if variant is None:
            return False
        pipe = self._client.pipeline(transaction=True)
        pipe.hdel(self._key(variant.decode()), guest)
        pipe.hdel(self._where, guest)
        removed, _ = await pipe.execute()
        return bool(removed)

    async def busy(self, variants: Iterable[str]) -> list[str]:
        return list(await self.counts(variants))

    async def counts(self, variants: Iterable[str]) -> dict[str, int]:
        variants = list(variants)
        pipe = self._client.pipeline(transaction=False)
        for variant in variants:
            pipe.hlen(self._key(variant))
        sizes = await pipe.execute()
        return {v: int(n) for v, n in zip(variants, sizes, strict=True) if n}

    async def take(self, variant: str, now: float, fill: float) -> list[Seating]:
        key = self._key(variant)

        async def tx(pipe: Any) -> list[Seating]:
            waiting = [_ticket.decode(v) for v in (await pipe.hvals(key))]
            tables = form_tables(waiting, now, fill=fill)
            seated = [t.guest for s in tables for t in s.people]
            pipe.multi()
            if seated:
                pipe.hdel(key, *seated)
                pipe.hdel(self._where, *seated)
            return tables

        tables: list[Seating] = await self._client.transaction(tx, key, value_from_callable=True)
        return tables

    async def take_singles(self, variant: str, n: int) -> list[Ticket]:
        key = self._key(variant)

        async def tx(pipe: Any) -> list[Ticket]:
            waiting = [_ticket.decode(v) for v in (await pipe.hvals(key))]
            alone = sorted(
                (t for t in waiting if t.party is None), key=lambda t: (t.since, t.guest)
            )
            taken = alone[:n]
            pipe.multi()
            if taken:
                pipe.hdel(key, *(t.guest for t in taken))
                pipe.hdel(self._where, *(t.guest for t in taken))
            return taken

        taken: list[Ticket] = await self._client.transaction(tx, key, value_from_callable=True)
        return taken

    def _placed(self, guest: str) -> str:
        return f"{self.prefix}placed:{guest}"

    async def place(self, placements: dict[str, Placement]) -> None:
        pipe = self._client.pipeline(transaction=False)
        for guest, where in placements.items():
            pipe.set(self._placed(guest), _encode(where), ex=PLACED_FOR)
        await pipe.execute()

    async def placed(self, guests: Iterable[str]) -> dict[str, Placement]:
        guests = list(guests)
        if not guests:
            return {}
        pipe = self._client.pipeline(transaction=False)
        for g in guests:
            pipe.getdel(self._placed(g))  # each placement is told once, by one node
        found = await pipe.execute()
        return {g: _placement.decode(v) for g, v in zip(guests, found, strict=True) if v}

    async def waiting(self, variant: str) -> int:
        return int(await self._client.hlen(self._key(variant)))

    async def present(self, guests: Iterable[str]) -> set[str]:
        guests = list(guests)
        if not guests:
            return set()
        found = await self._client.hmget(self._where, guests)
        return {g for g, v in zip(guests, found, strict=True) if v is not None}

    async def close(self) -> None:
        await self._client.aclose()


# KEYS: summaries (hash), expiries (zset), version. ARGV: table, summary, expires.
# The version moves only when the summary itself changed: refreshing costs the readers nothing.
PUT = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
if old ~= ARGV[2] then redis.call('INCR', KEYS[3]) end
return 1
"""

# KEYS as PUT's. ARGV: now. Drops the tables nobody wrote for TTL (their node died); returns
# the version.
SWEEP = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if #gone > 0 then
  redis.call('HDEL', KEYS[1], unpack(gone))
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('INCR', KEYS[3])
end
return tonumber(redis.call('GET', KEYS[3]) or '0')
"""


class RedisDirectory:
    ttl = TTL

    def __init__(self, url: str, ns: str) -> None:
        prefix = f"tranque:{ns}:lobby:"
        self.keys = [prefix + "tables", prefix + "expires", prefix + "version"]
        self._client: Any = aioredis.Redis.from_url(url, socket_timeout=2)
        self._put = self._client.register_script(PUT)
        self._sweep = self._client.register_script(SWEEP)

    async def put(self, table: str, summary: dict[str, Any]) -> None:
        await self._put(keys=self.keys, args=[table, _encode(summary), time.time() + self.ttl])

    async def remove(self, table: str) -> None:
        pipe = self._client.pipeline(transaction=True)
        pipe.hdel(self.keys[0], table)
        pipe.zrem(self.keys[1], table)
        pipe.incr(self.keys[2])
        await pipe.execute()

    async def version(self) -> int:
        return int(await self._sweep(keys=self.keys, args=[time.time()]))

    async def listing(self) -> tuple[int, list[dict[str, Any]]]:
        version = await self.version()
        values = await self._client.hvals(self.keys[0])
        return version, [msgspec.json.decode(v) for v in values]

    async def close(self) -> None:
        await self._client.aclose()
