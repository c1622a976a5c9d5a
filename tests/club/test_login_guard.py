"""The login limit: delays that grow with the failures of a client against a name, and nobody
else held up by them, on the ``Buckets`` port (here the in-process buckets, on a clock the test
moves)."""

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


def test_delays_grow_with_a_clients_failures_against_a_name(clock: list[float]) -> None:
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
    # Nor is the same name from another client: the failures were that client's (finding 10).
    assert _wait(guard, "ana", "5.6.7.8") == 0


def test_nobody_can_hold_a_name_back_for_everyone(clock: list[float]) -> None:
    guard = LoginGuard(edge.LocalBuckets())
    # A hundred addresses fail against ana as fast as they are let.
    for i in range(100):
        for _ in range(5):
            assert _wait(guard, "ana", f"10.0.{i}.1") == 0
            asyncio.run(guard.failed("ana", f"10.0.{i}.1"))
        assert _wait(guard, "ana", f"10.0.{i}.1") >= 1
    # Ana, from her own address, is let through at once, and right passwords are never counted.
    assert [_wait(guard, "ana", "192.0.2.7") for _ in range(30)] == [0] * 30


def test_a_clients_attempts_are_limited_whatever_the_name(clock: list[float]) -> None:
    guard = LoginGuard(edge.LocalBuckets())
    # Sixty at once, then one a second, even without a failure.
    assert [_wait(guard, f"name{i}", "10.0.0.1") for i in range(60)] == [0] * 60
    assert _wait(guard, "name60", "10.0.0.1") == 1
    assert _wait(guard, "name60", "10.0.0.2") == 0  # another client is not held up
    clock[0] += 1.0
    assert _wait(guard, "name60", "10.0.0.1") == 0
