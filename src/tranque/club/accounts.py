"""Accounts: a guest claims a name that lasts, logs in and out, changes the password.

An account *is* the guest that claimed it: it keeps the guest's id, so every seat, game and
rating the guest had is the account's without moving a row. A session is a row the account's
tokens name (``"s"`` in the signed token, ``server.identity``): logging out here deletes that
row, logging out everywhere deletes them all, and every use of a token checks its row, so a
token outlives neither. A plain guest token (no session) of a guest that has become an account
is refused: after a claim only the account's sessions speak for it.

The logic is here; the rows are behind ``AccountStore`` (``store.accounts``) and the login
limits behind ``Buckets`` (in memory on one node, Redis on many).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from tranque.club.names import BadName, WeakPassword, check_name, check_password, name_key
from tranque.club.passwords import hash_password, needs_rehash, verify_password


class AccountError(Exception):
    """A refused request: an HTTP status, a code for programs and a sentence for people."""

    def __init__(
        self, status: int, code: str, message: str, retry_after: int | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class Account:
    guest: str  # the id of the guest that claimed it, for good
    name: str
    created: float
    password_hash: str  # never logged, never sent: only ``passwords`` compares it


class NameTaken(Exception):
    """The store's answer when the name's key is someone else's."""


class AccountStore(Protocol):
    async def create_account(
        self, guest: str, name: str, key: str, password_hash: str, session: str, ts: float
    ) -> None:
        """The account and its first session, in one transaction; NameTaken if the key is
        taken (or the guest is an account already)."""
        ...

    async def account_by_key(self, key: str) -> Account | None: ...

    async def account_of(self, guest: str) -> Account | None: ...

    async def set_password(self, guest: str, password_hash: str, keep: str | None) -> None:
        """The new hash; every session of the account but ``keep`` is deleted."""
        ...

    async def add_session(self, guest: str, session: str, ts: float) -> None: ...

    async def drop_sessions(self, guest: str, session: str | None = None) -> int:
        """Delete one session (or all of them with None); how many went."""
        ...

    async def session_state(self, guest: str, session: str | None) -> str:
        """``"guest"``: no account; ``"ok"``: the account's session exists; ``"gone"``: the
        guest is an account and the token names no live session of it."""
        ...


class Buckets(Protocol):
    """Token buckets shared by every node (``server.edge.Buckets``)."""

    async def take(self, name: str, key: str, rate: float, burst: float) -> float: ...

    async def peek(self, name: str, key: str, rate: float, burst: float) -> float:
        """The seconds until the bucket has a token (0.0 now), taking none."""
        ...


@dataclass(frozen=True, slots=True)
class Tier:
    burst: float
    per_second: float


@dataclass(frozen=True, slots=True)
class LoginLimits:
    """Attempts per name and per client address, and the delays that grow with failures: each
    failure spends a token of every tier; a tier that is empty makes the next attempt wait for
    its refill. With the defaults, a name takes 5 quick failures, then one a second up to 10,
    one every 30 s up to 20, then one every 5 minutes; a client address ten times as many."""

    per_name: Tier = Tier(30, 30 / 60)
    per_client: Tier = Tier(60, 1.0)
    name_failures: Sequence[Tier] = (Tier(5, 1.0), Tier(10, 1 / 30), Tier(20, 1 / 300))
    client_failures: Sequence[Tier] = (Tier(50, 10.0), Tier(100, 1 / 3), Tier(200, 1 / 30))


class LoginGuard:
    def __init__(self, buckets: Buckets, limits: LoginLimits | None = None) -> None:
        self.buckets = buckets
        self.limits = limits or LoginLimits()

    def _tiers(self, key: str, client: str) -> list[tuple[str, str, Tier]]:
        lim = self.limits
        out = [(f"login-fail-name-{i}", key, t) for i, t in enumerate(lim.name_failures)]
        out += [(f"login-fail-client-{i}", client, t) for i, t in enumerate(lim.client_failures)]
        return out

    async def admit(self, key: str, client: str) -> None:
        """Take an attempt for the name and the client, or AccountError 429."""
        wait = 0.0
        for bucket, k, tier in self._tiers(key, client):
            wait = max(wait, await self.buckets.peek(bucket, k, tier.per_second, tier.burst))
        lim = self.limits
        if wait <= 0:
            for bucket, k, tier in (
                ("login-name", key, lim.per_name),
                ("login-client", client, lim.per_client),
            ):
                wait = max(wait, await self.buckets.take(bucket, k, tier.per_second, tier.burst))
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise AccountError(
                429, "login_limited", f"too many logins: try again in {seconds} s", seconds
            )

    async def failed(self, key: str, client: str) -> None:
        for bucket, k, tier in self._tiers(key, client):
            await self.buckets.take(bucket, k, tier.per_second, tier.burst)


@dataclass(frozen=True, slots=True)
class Session:
    """Who a token of a logged-in account speaks for, and which session row it names."""

    guest: str
    name: str
    session: str


def new_session_id() -> str:
    return secrets.token_urlsafe(16)


class Accounts:
    def __init__(self, store: AccountStore, guard: LoginGuard) -> None:
        self.store = store
        self.guard = guard

    async def claim(self, guest: str, name: str, password: str, now: float) -> Session:
        """The guest becomes the account ``name``; its first session."""
        shown = _checked_name(name)
        _checked_password(password, shown)
        if await self.store.account_of(guest) is not None:
            raise AccountError(409, "already_claimed", "this guest has an account already")
        session = new_session_id()
        hashed = await hash_password(password)
        try:
            await self.store.create_account(guest, shown, name_key(shown), hashed, session, now)
        except NameTaken:
            raise AccountError(409, "name_taken", f"the name {shown!r} is taken") from None
        return Session(guest, shown, session)

    async def login(self, name: str, password: str, client: str, now: float) -> Session:
        key = name_key(name.strip())
        await self.guard.admit(key, client)
        account = await self.store.account_by_key(key)
        good = await verify_password(account.password_hash if account else None, password)
        if account is None or not good:
            await self.guard.failed(key, client)
            raise AccountError(401, "bad_login", "that name and password do not match")
        if needs_rehash(account.password_hash):
            await self.store.set_password(account.guest, await hash_password(password), None)
        session = new_session_id()
        await self.store.add_session(account.guest, session, now)
        return Session(account.guest, account.name, session)

    async def change_password(self, who: Session, old: str, new: str, client: str) -> None:
        """The new password; every other session of the account ends."""
        account = await self.store.account_of(who.guest)
        if account is None:
            raise AccountError(401, "logged_out", "log in again")
        key = name_key(account.name)
        await self.guard.admit(key, client)
        if not await verify_password(account.password_hash, old):
            await self.guard.failed(key, client)
            raise AccountError(403, "bad_password", "the current password is not that")
        _checked_password(new, account.name)
        await self.store.set_password(who.guest, await hash_password(new), who.session)

    async def logout(self, who: Session, everywhere: bool = False) -> int:
        return await self.store.drop_sessions(who.guest, None if everywhere else who.session)


def _checked_name(name: str) -> str:
    try:
        return check_name(name)
    except BadName as exc:
        raise AccountError(400, exc.code, exc.message) from None


def _checked_password(password: str, name: str) -> None:
    try:
        check_password(password, name)
    except WeakPassword as exc:
        raise AccountError(400, exc.code, exc.message) from None
