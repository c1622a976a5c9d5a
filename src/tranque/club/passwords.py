"""Password hashes: argon2id (argon2-cffi), off the event loop.

The parameters are OWASP's for argon2id (19 MiB, two passes, one lane): about 20 ms on one core,
which is cheap for a person logging in and dear for someone guessing. Hashing runs in a thread
(argon2-cffi releases the GIL), never on the loop, so a login never stalls a table. A name that
does not exist is checked against a dummy hash, so the answer takes as long either way and does
not tell which names exist. A hash is only ever compared here: it is never logged nor sent.
"""

from __future__ import annotations

import asyncio

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
_DUMMY = HASHER.hash("not a password anybody has")


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(HASHER.hash, password)


def _verify(stored: str | None, password: str) -> bool:
    try:
        return HASHER.verify(stored or _DUMMY, password) and stored is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


async def verify_password(stored: str | None, password: str) -> bool:
    """Whether ``password`` matches ``stored`` (None: no such account, always False)."""
    return await asyncio.to_thread(_verify, stored, password)


def needs_rehash(stored: str) -> bool:
    """The hash was made with other parameters: rehash it at the next good login."""
    return HASHER.check_needs_rehash(stored)
