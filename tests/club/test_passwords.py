"""argon2 off the event loop (``club.passwords.PasswordWork``): at most ``threads`` at once, at
most ``waiting`` more queued, and the event loop free meanwhile (issue 28, finding 2)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from tranque.club import passwords
from tranque.club.passwords import PasswordsBusy, PasswordWork


def test_at_most_threads_hash_at_once_and_the_rest_wait_or_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    running, most = [0], [0]
    lock = threading.Lock()
    hash_one = passwords._hash

    def counted(password: str) -> str:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            return hash_one(password)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(passwords, "_hash", counted)

    async def go() -> tuple[list[str | BaseException], float]:
        work = PasswordWork(threads=2, waiting=3)
        gaps: list[float] = []
        stop = asyncio.Event()

        async def ticker() -> None:
            last = time.monotonic()
            while not stop.is_set():
                await asyncio.sleep(0.005)
                now = time.monotonic()
                gaps.append(now - last)
                last = now

        tick = asyncio.create_task(ticker())
        got = await asyncio.gather(
            *(work.hash(f"password-{i}") for i in range(8)), return_exceptions=True
        )
        stop.set()
        await tick
        assert work.pending == 0
        return got, max(gaps)

    got, gap = asyncio.run(go())
    assert most[0] == 2  # two at once, never more
    assert sum(isinstance(g, str) and g.startswith("$argon2id$") for g in got) == 5
    assert sum(isinstance(g, PasswordsBusy) for g in got) == 3
    assert gap < 0.5, gap  # the loop went on while they hashed (each hash is ~20 ms of CPU)


def test_a_caller_that_stops_waiting_keeps_its_slot_until_its_hash_is_done() -> None:
    async def go() -> None:
        work = PasswordWork(threads=1, waiting=0)
        first = asyncio.create_task(work.hash("a-password-1"))
        await asyncio.sleep(0)  # it has the slot and its thread runs
        first.cancel()
        with pytest.raises(PasswordsBusy):
            await work.hash("a-password-2")  # the cancelled one's thread still runs
        while work.pending:
            await asyncio.sleep(0.005)
        assert (await work.hash("a-password-3")).startswith("$argon2id$")

    asyncio.run(go())


def test_a_right_and_a_wrong_password_and_nobodys() -> None:
    async def go() -> None:
        work = PasswordWork(threads=1)
        stored = await work.hash("el-doble-blanco")
        assert await work.verify(stored, "el-doble-blanco")
        assert not await work.verify(stored, "el-doble-seis")
        assert not await work.verify(None, "el-doble-blanco")
        busy = PasswordWork(threads=1, waiting=0)
        with pytest.raises(PasswordsBusy):
            await asyncio.gather(busy.hash("a-password-1"), busy.hash("a-password-2"))

    asyncio.run(go())
