"""The login limit: delays that grow with the failures against a name, on the ``Buckets`` port
(here the in-process buckets, on a clock the test moves)."""

from __future__ import annotations

import asyncio
import types

import pytest

from tranque.club.accounts import AccountError, LoginGuard
from tranque.server import edge


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(edge, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    return now


def _wait(guard: LoginGuard, name: str, client: str) -> int:
    """0 if an attempt is let through now, else the Retry-After it gets."""
    try:
        asyncio.run(guard.admit(name, client))
    except AccountError as exc:
        assert exc.code == "login_limited" and exc.retry_after is not None
        return exc.retry_after
    return 0


def test_delays_grow_with_the_failures_against_a_name(clock: list[float]) -> None:
    guard = LoginGuard(edge.LocalBuckets())
    waits = []
    for _ in range(28):
        wait = _wait(guard, "ana", "1.2.3.4")
        waits.append(wait)
        if wait:
            clock[0] += wait  # the client waits as told, then tries (and fails) again
            assert _wait(guard, "ana", "1.2.3.4") == 0
        asyncio.run(guard.failed("ana", "1.2.3.4"))
    assert waits[:5] == [0] * 5  # five quick tries
    assert set(waits[5:10]) == {1}  # then one a second
    assert min(waits[11:20]) >= 25  # then one every 30 s
    assert min(waits[22:]) >= 250  # then one every five minutes
    # Another name from another client is not held up; the same client is, by its own tiers
    # only much later (it is ten times as patient).
    assert _wait(guard, "pepe", "5.6.7.8") == 0
    assert _wait(guard, "pepe", "1.2.3.4") == 0


def test_the_attempts_themselves_are_limited_per_name(clock: list[float]) -> None:
    guard = LoginGuard(edge.LocalBuckets())
    # Right passwords (no failure) still spend the name's attempts: 30 at once, then a wait.
    assert [_wait(guard, "ana", f"10.0.0.{i}") for i in range(30)] == [0] * 30
    assert _wait(guard, "ana", "10.0.0.99") == 2
    clock[0] += 2.0
    assert _wait(guard, "ana", "10.0.0.99") == 0
