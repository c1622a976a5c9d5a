"""Password hashes: argon2id (argon2-cffi), in a few threads at a time, never on the loop.

The parameters are OWASP's for argon2id (19 MiB, two passes, one lane): about 20 ms on one core,
which is cheap for a person logging in and dear for someone guessing. That cost is also what a
flood of logins or claims would spend, so every hash and every check goes through
``PasswordWork``: it runs in a thread (argon2-cffi releases the GIL, so the loop goes on
meanwhile), at most ``threads`` at once (a semaphore: the rest of the cores stay for the tables),
with at most ``waiting`` more queued; past that, ``PasswordsBusy`` (503, try again in a moment)
rather than a queue that grows without end. A slot is given back when its thread is done, not
when its caller stops waiting, so a request that goes away never lets more hashes run at once.
A name that does not exist is checked against a dummy hash, so the answer takes as long either
way and does not tell which names exist. A hash is only ever compared here: it is never logged
nor sent.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
_DUMMY = HASHER.hash("not a password anybody has")

T = TypeVar("T")


def default_threads() -> int:
    """Half the cores, at least one: the other half keeps the event loop and the bots going."""
    return max(1, (os.cpu_count() or 2) // 2)


class PasswordsBusy(Exception):
    """Every hashing thread is busy and the wait is full: try again in a moment."""


def _hash(password: str) -> str:
    return HASHER.hash(password)


def _verify(stored: str | None, password: str) -> bool:
    try:
        return HASHER.verify(stored or _DUMMY, password) and stored is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


class PasswordWork:
    """argon2 off the event loop: at most ``threads`` at once, at most ``waiting`` queued."""

    def __init__(self, threads: int | None = None, waiting: int = 64) -> None:
        self.threads = threads or default_threads()
        self.waiting = waiting
        self.pending = 0  # running and waiting
        self._slots = asyncio.Semaphore(self.threads)

    async def _run(self, work: Callable[..., T], *args: object) -> T:
        if self.pending >= self.threads + self.waiting:
            raise PasswordsBusy
        self.pending += 1
        try:
            await self._slots.acquire()
        except BaseException:
            self.pending -= 1
            raise

        def done(_: Any) -> None:
            self._slots.release()
            self.pending -= 1

        running = asyncio.get_running_loop().run_in_executor(None, work, *args)
        running.add_done_callback(done)
        return await asyncio.shield(running)

    async def hash(self, password: str) -> str:
        return await self._run(_hash, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored`` (None: no such account, always False)."""
        return await self._run(_verify, stored, password)


def needs_rehash(stored: str) -> bool:
    """The hash was made with other parameters: rehash it at the next good login."""
    return HASHER.check_needs_rehash(stored)
