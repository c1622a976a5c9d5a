"""argon2 in threads of its own (``club.passwords.PasswordWork``): at most ``threads`` at once,
at most ``waiting`` more queued, and the event loop free meanwhile (issue 28, finding 2)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from tranque.club.passwords import PasswordsBusy, PasswordWork


def test_at_most_threads_hash_at_once_and_the_rest_wait_or_are_refused() -> None:
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
        hashing = [t for t in threading.enumerate() if t.name.startswith("argon2")]
        assert len(hashing) <= 2
        work.close()
        return got, max(gaps)

    got, gap = asyncio.run(go())
    assert sum(isinstance(g, str) and g.startswith("$argon2id$") for g in got) == 5
    assert sum(isinstance(g, PasswordsBusy) for g in got) == 3
    assert gap < 0.5, gap  # the loop went on while they hashed (each hash is ~20 ms of CPU)


def test_a_right_and_a_wrong_password_and_nobodys() -> None:
    async def go() -> None:
        work = PasswordWork(threads=1)
        stored = await work.hash("el-doble-blanco")
        assert await work.verify(stored, "el-doble-blanco")
        assert not await work.verify(stored, "el-doble-seis")
        assert not await work.verify(None, "el-doble-blanco")
        with pytest.raises(PasswordsBusy):
            busy = PasswordWork(threads=1, waiting=0)
            await asyncio.gather(busy.hash("a-password-1"), busy.hash("a-password-2"))
        work.close()

    asyncio.run(go())
