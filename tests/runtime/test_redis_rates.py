"""The rate limits' buckets on Redis (``runtime.redis_rates.RedisBuckets``): every key expires
and is short, whatever the client sent (issue 28, finding 3)."""

from __future__ import annotations

import asyncio
import secrets

import redis

from tranque.runtime.redis_rates import RedisBuckets


def test_every_key_has_a_ttl_and_a_bounded_length(redis_url: str) -> None:
    ns = "test-" + secrets.token_hex(4)

    async def go() -> None:
        b = RedisBuckets(redis_url, ns)
        try:
            for i in range(20):
                await b.take("login-fail-pair-0", f"127.0.0.1 {i:02d}" + "x" * 1_000_000, 1.0, 5)
                await b.take("new guests", f"10.0.0.{i}", 1 / 6, 20)
            for _ in range(5):
                assert await b.take("login-client", "y" * 500, 1.0, 5) == 0
            assert await b.take("login-client", "y" * 500, 1.0, 5) > 0  # one bucket for it
            assert await b.peek("login-client", "y" * 500, 1.0, 5) > 0
        finally:
            await b.close()

    asyncio.run(go())
    r = redis.Redis.from_url(redis_url)
    try:
        keys = list(r.scan_iter(f"tranque:{ns}:rate:*"))
        assert len(keys) == 41
        for key in keys:
            assert len(key) <= 120, key[:120]
            assert 0 < r.pttl(key) <= 130_000, (key, r.pttl(key))  # full again within that
    finally:
        for key in r.scan_iter(f"tranque:{ns}:*"):
            r.delete(key)
        r.close()
