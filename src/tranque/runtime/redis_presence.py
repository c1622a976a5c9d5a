"""Presence on Redis, for every node of a cluster (``club.presence.PresenceDirectory``).

One hash per person (node -> the status of his sockets there, with the time it expires). A
node renews its people's entries every few seconds (``renew``); an entry past its time is
ignored by readers, so a node that died takes its people offline within ``TTL`` without
anybody cleaning up after it. The key itself expires too, a little later than its entries.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec
import redis.asyncio as aioredis

from tranque.club.friends import Status, best

TTL = 15.0  # seconds a node's status of a person lasts unless the node renews it


class _Entry(msgspec.Struct, array_like=True, frozen=True):
    where: str
    table: str | None
    until: float


_decode = msgspec.msgpack.Decoder(_Entry).decode
_encode = msgspec.msgpack.Encoder().encode


class RedisPresence:
    def __init__(self, url: str, ns: str) -> None:
        self.prefix = f"tranque:{ns}:presence:"
        self._client: Any = aioredis.Redis.from_url(url, socket_timeout=2)
        self._mine: dict[str, Status] = {}  # what this node wrote, to write again on renewal

    async def put(self, guest: str, node: str, status: Status | None) -> None:
        key = self.prefix + guest
        if status is None:
            self._mine.pop(guest, None)
            await self._client.hdel(key, node)
            return
        self._mine[guest] = status
        pipe = self._client.pipeline(transaction=False)
        pipe.hset(key, node, _encode(_Entry(status.where, status.table, time.time() + TTL)))
        pipe.expire(key, int(TTL * 2))
        await pipe.execute()

    async def statuses(self, guests: list[str]) -> dict[str, Status]:
        if not guests:
            return {}
        pipe = self._client.pipeline(transaction=False)
        for g in guests:
            pipe.hvals(self.prefix + g)
        now = time.time()
        out: dict[str, Status] = {}
        for g, values in zip(guests, await pipe.execute(), strict=True):
            entries = [_decode(v) for v in values]
            s = best(Status(e.where, e.table) for e in entries if e.until > now)
            if s is not None:
                out[g] = s
        return out

    async def renew(self, node: str, guests: list[str]) -> None:
        until = time.time() + TTL
        pipe = self._client.pipeline(transaction=False)
        for g in guests:
            s = self._mine.get(g)
            if s is not None:
                pipe.hset(self.prefix + g, node, _encode(_Entry(s.where, s.table, until)))
                pipe.expire(self.prefix + g, int(TTL * 2))
        await pipe.execute()

    async def close(self) -> None:
        await self._client.aclose()
