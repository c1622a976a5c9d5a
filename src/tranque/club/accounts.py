"""Accounts: a guest claims a name that lasts, logs in and out, changes the password.

An account *is* the guest that claimed it: it keeps the guest's id, so every seat, game and
rating the guest had is the account's without moving a row. A session is a row the account's
tokens name (``"s"`` in the signed token, ``server.identity``): logging out here deletes that
row, logging out everywhere deletes them all, and every use of a token checks its row, so a
token outlives neither. A plain guest token (no session) of a guest that has become an account
is refused: after a claim only the account's sessions speak for it.

The logic is here; the rows are behind ``AccountStore`` (``store.club``), the login limits
behind ``Buckets`` (in memory on one node, Redis on many) and argon2 behind ``PasswordWork``
(a few threads at a time). Everything cheap is checked before anything is hashed: a claim of a
name that is bad, reserved or taken is refused without spending argon2 on it.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from tranque.club.names import BadName, WeakPassword, check_name, check_password, name_key
from tranque.club.passwords import PasswordsBusy, PasswordWork, needs_rehash
from tranque.club.skeleton import name_skeleton


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
    closed: bool = False  # closed by a moderator: no login any more


class NameTaken(Exception):
    """The store's answer when the name's key is someone else's."""


class AccountStore(Protocol):
    async def create_account(
        self,
        guest: str,
        name: str,
        key: str,
        skeleton: str,
        password_hash: str,
        session: str,
        ts: float,
    ) -> None:
        """The account and its first session, in one transaction; NameTaken if the key or the
        skeleton is taken (or the guest is an account already)."""
        ...

    async def account_by_name(self, key: str, skeleton: str) -> Account | None:
        """The account whose casefolded key is ``key``, else the one whose skeleton is
        ``skeleton`` (``club.skeleton``), else None."""
        ...

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
    """Attempts per client address, and delays that grow with the failures of a client against
    a name and of a client against any name: each failure spends a token of every tier of its
    (name, client) pair and of its client; a tier that is empty makes that pair's (or that
    client's) next attempt wait for its refill. With the defaults, a client takes 5 quick
    failures against a name, then one a second up to 10, one every 30 s up to 20, then one every
    5 minutes; against all names together ten times as many."""

    per_client: Tier = Tier(60, 1.0)
    pair_failures: Sequence[Tier] = (Tier(5, 1.0), Tier(10, 1 / 30), Tier(20, 1 / 300))
    client_failures: Sequence[Tier] = (Tier(50, 10.0), Tier(100, 1 / 3), Tier(200, 1 / 30))


class LoginGuard:
    """The login limit, per (name, client address) and per client address: OWASP's split.

    Failures slow down the client that fails, for the name it fails against and (ten times as
    patient) for every name, and nobody else: a right password from a client that has not been
    failing goes through however many wrong ones others sent for the name. There is no ceiling
    per name across every client. Any such ceiling is a lever to lock the owner out (finding 10
    of issue 28: five failures from anywhere held the right password back); one that spared the
    clients "not failing" would spare every fresh address of a spread-out guesser too (each one
    is not failing until its first guess), so it would stop little beyond what the per-client
    tiers do, for the cost of locking out an owner who mistyped once. What bounds a guesser with
    many addresses is the password policy (8 characters, none of the ~20,000 commonest:
    ``club.names``) against a few guesses per address and hour, and the argon2 threads
    (``PasswordWork``), which bound what the guessing costs the server. The name in a key is
    its skeleton (``club.skeleton``), so ``Ana``, ``ANA`` and ``Аna`` share their limits.
    """

    def __init__(self, buckets: Buckets, limits: LoginLimits | None = None) -> None:
        self.buckets = buckets
        self.limits = limits or LoginLimits()

    def _tiers(self, key: str, client: str) -> list[tuple[str, str, Tier]]:
        lim = self.limits
        pair = f"{client} {key}"
        out = [(f"login-fail-pair-{i}", pair, t) for i, t in enumerate(lim.pair_failures)]
        out += [(f"login-fail-client-{i}", client, t) for i, t in enumerate(lim.client_failures)]
        return out

    async def admit(self, key: str, client: str) -> None:
        """Take an attempt for the client against the name ``key``, or AccountError 429."""
        wait = 0.0
        for bucket, k, tier in self._tiers(key, client):
            wait = max(wait, await self.buckets.peek(bucket, k, tier.per_second, tier.burst))
        if wait <= 0:
            tier = self.limits.per_client
            wait = await self.buckets.take("login-client", client, tier.per_second, tier.burst)
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
    def __init__(
        self, store: AccountStore, guard: LoginGuard, work: PasswordWork | None = None
    ) -> None:
        self.store = store
        self.guard = guard
        self.work = work or PasswordWork()

    async def _hash(self, password: str) -> str:
        try:
            return await self.work.hash(password)
        except PasswordsBusy:
            raise _busy() from None

    async def _verify(self, stored: str | None, password: str) -> bool:
        try:
            return await self.work.verify(stored, password)
        except PasswordsBusy:
            raise _busy() from None

    async def claim(self, guest: str, name: str, password: str, now: float) -> Session:
        """The guest becomes the account ``name``; its first session. Everything that refuses
        the claim is looked at before the password is hashed (the costly part)."""
        shown = _checked_name(name)
        _checked_password(password, shown)
        if await self.store.account_of(guest) is not None:
            raise AccountError(409, "already_claimed", "this guest has an account already")
        key, skeleton = name_key(shown), name_skeleton(shown)
        if await self.store.account_by_name(key, skeleton) is not None:
            raise _taken(shown)
        session = new_session_id()
        hashed = await self._hash(password)
        try:
            await self.store.create_account(guest, shown, key, skeleton, hashed, session, now)
        except NameTaken:  # claimed by another in the meantime
            raise _taken(shown) from None
        return Session(guest, shown, session)

    async def login(self, name: str, password: str, client: str, now: float) -> Session:
        typed = name.strip()
        skeleton = name_skeleton(typed)
        await self.guard.admit(skeleton, client)
        account = await self.store.account_by_name(name_key(typed), skeleton)
        good = await self._verify(account.password_hash if account else None, password)
        if account is None or not good:
            await self.guard.failed(skeleton, client)
            raise AccountError(401, "bad_login", "that name and password do not match")
        if account.closed:  # told only to whoever knows the password
            raise AccountError(403, "account_closed", "this account has been closed")
        if needs_rehash(account.password_hash):
            await self.store.set_password(account.guest, await self._hash(password), None)
        session = new_session_id()
        await self.store.add_session(account.guest, session, now)
        return Session(account.guest, account.name, session)

    async def change_password(self, who: Session, old: str, new: str, client: str) -> None:
        """The new password; every other session of the account ends."""
        account = await self.store.account_of(who.guest)
        if account is None:
            raise AccountError(401, "logged_out", "log in again")
        key = name_skeleton(account.name)
        await self.guard.admit(key, client)
        _checked_password(new, account.name)  # before the old one costs a hash
        if not await self._verify(account.password_hash, old):
            await self.guard.failed(key, client)
            raise AccountError(403, "bad_password", "the current password is not that")
        await self.store.set_password(who.guest, await self._hash(new), who.session)

    async def logout(self, who: Session, everywhere: bool = False) -> int:
        return await self.store.drop_sessions(who.guest, None if everywhere else who.session)


def _taken(name: str) -> AccountError:
    return AccountError(
        409, "name_taken", f"the name {name!r} is taken (or one that looks like it)"
    )


def _busy() -> AccountError:
    return AccountError(
        503, "busy", "the server is checking many passwords: try again in a moment", 2
    )


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
