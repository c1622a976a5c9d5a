"""``RedisBuckets``: the rate limits' token buckets (``server.edge.Buckets``) on Redis, so that a
client spreading its requests over many nodes meets one limit, not one per node.

One Lua script takes a token atomically and keeps each bucket as a small hash that expires once
it would be full again: an idle client costs nothing, and every key has a TTL. A key is made of
what a client sent, so one longer than ``rate_keys.MAX_KEY`` is stored as its hash: a key is
short whatever was sent. Time is Redis's own clock, the same for every node. If Redis cannot be
reached the request is let through (and logged): a limit must not take the service down with it.
"""

from __future__ import annotations

import logging
from typing import Any

import redis.asyncio as aioredis

from tranque.runtime.rate_keys import bucket_key

log = logging.getLogger("tranque.rates")

# KEYS[1]: the bucket; ARGV: rate (tokens/s), burst. Returns the seconds to wait (0: taken).
TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(b[1]) or burst, tonumber(b[2]) or now
tokens = math.min(burst, tokens + (now - at) * rate)
local wait = 0
if tokens < 1 then
  wait = (1 - tokens) / rate
else
  tokens = tokens - 1
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return tostring(wait)
"""

# The same bucket, looked at: the seconds until it has a token, taking none and writing nothing.
PEEK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(b[1]) or burst, tonumber(b[2]) or now
tokens = math.min(burst, tokens + (now - at) * rate)
if tokens < 1 then
  return tostring((1 - tokens) / rate)
end
return '0'
"""


class RedisBuckets:
    def __init__(self, url: str, ns: str) -> None:
        self.prefix = f"tranque:{ns}:rate:"
        self._client: Any = aioredis.Redis.from_url(url, socket_timeout=2)
        self._take = self._client.register_script(TAKE)
        self._peek = self._client.register_script(PEEK)

    def _key(self, name: str, key: str) -> str:
        return f"{self.prefix}{name}:{bucket_key(key)}"

    async def take(self, name: str, key: str, rate: float, burst: float) -> float:
        try:
            wait = await self._take(keys=[self._key(name, key)], args=[rate, burst])
        except Exception:
            log.warning("the rate limit could not reach Redis: request let through")
            return 0.0
        return float(wait)

    async def peek(self, name: str, key: str, rate: float, burst: float) -> float:
        try:
            wait = await self._peek(keys=[self._key(name, key)], args=[rate, burst])
        except Exception:
            log.warning("the rate limit could not reach Redis: request let through")
            return 0.0
        return float(wait)

    async def close(self) -> None:
        await self._client.aclose()
