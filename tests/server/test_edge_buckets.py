"""The rate limits' buckets in memory (``server.edge.LocalBuckets``) are bounded: a bucket is
forgotten once it is full again, the table never holds more than its cap, and a long key is kept
as its hash (issue 28, finding 3). On a clock the test moves."""

from __future__ import annotations

import asyncio
import types

import pytest

from tranque.server import edge


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(edge, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    return now


def _take(b: edge.LocalBuckets, key: str, rate: float = 1.0, burst: float = 5.0) -> float:
    return asyncio.run(b.take("t", key, rate, burst))


def test_a_bucket_is_forgotten_once_it_is_full_again(clock: list[float]) -> None:
    b = edge.LocalBuckets()
    for i in range(1000):  # one token each, back in a second
        _take(b, f"10.0.{i // 250}.{i % 250}")
    for _ in range(5):  # five tokens at one every ten seconds: back in 50 s
        _take(b, "spent", rate=0.1)
    assert len(b.buckets) == 1001
    clock[0] += 0.5  # not full yet: all kept, and their limits hold
    _take(b, "10.9.9.9")
    assert len(b.buckets) == 1002
    assert _take(b, "spent", rate=0.1) > 0
    clock[0] += 1 + b.SLOT  # full again, and forgotten within a slot of that
    _take(b, "10.9.9.8")
    assert set(b.buckets) == {("t", "spent"), ("t", "10.9.9.8")}
    assert _take(b, "spent", rate=0.1) > 0  # still spent: still counted
    clock[0] += 60 + b.SLOT
    _take(b, "10.9.9.7")
    assert set(b.buckets) == {("t", "10.9.9.7")}


def test_the_table_has_a_cap_and_the_oldest_goes_first(clock: list[float]) -> None:
    b = edge.LocalBuckets(max_keys=100)
    for i in range(1000):
        _take(b, f"client-{i}")
        clock[0] += 0.001
    assert len(b.buckets) == 100
    assert ("t", "client-999") in b.buckets and ("t", "client-899") not in b.buckets
    assert sum(len(s) for s in b._slots.values()) == 100  # the expiry slots follow


def test_a_long_key_is_kept_as_its_hash(clock: list[float]) -> None:
    b = edge.LocalBuckets()
    long = "x" * 1_000_000
    for _ in range(5):
        assert _take(b, long) == 0
    assert _take(b, long) > 0  # the same bucket every time
    assert _take(b, long[:-1] + "y") == 0  # another key, another bucket
    assert max(len(k) for _, k in b.buckets) <= 64
