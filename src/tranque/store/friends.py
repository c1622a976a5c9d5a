"""Friends, requests, privacy and notices on SQLAlchemy Core (``club.friends.FriendRows``), and
the reading side the routes need: account names of many guests, a page of notices.

A friendship is written as its two rows in the transaction that deletes the requests between
the two people, so an accepted request never leaves a half friendship nor a request behind.
"""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tranque.club.friends import Notice, Privacy
from tranque.store.db import Store
from tranque.store.schema import accounts, friend_requests, friendships, notices, privacy

_encode = msgspec.json.encode
_decode = msgspec.json.decode


class SqlFriends:
    """``FriendRows`` on the store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def relation(self, me: str, other: str) -> str | None:
        async with self.store._connect() as conn:
            q = sa.select(sa.func.count()).where(
                friendships.c.guest == me, friendships.c.friend == other
            )
            if (await conn.execute(q)).scalar_one():
                return "friends"
            q = sa.select(friend_requests.c.sender).where(
                sa.or_(
                    sa.and_(friend_requests.c.sender == me, friend_requests.c.recipient == other),
                    sa.and_(friend_requests.c.sender == other, friend_requests.c.recipient == me),
                )
            )
            senders = {r.sender for r in await conn.execute(q)}
        if me in senders:
            return "sent"
        return "received" if other in senders else None

    async def count(self, guest: str) -> int:
        async with self.store._connect() as conn:
            n = 0
            for q in (
                sa.select(sa.func.count()).where(friendships.c.guest == guest),
                sa.select(sa.func.count()).where(friend_requests.c.sender == guest),
                sa.select(sa.func.count()).where(friend_requests.c.recipient == guest),
            ):
                n += int((await conn.execute(q)).scalar_one())
        return n

    async def add_request(self, sender: str, recipient: str, ts: float) -> None:
        # Two asking at once: the primary key keeps one row; the second asker's insert fails
        # and his request stays the one that is there.
        try:
            async with self.store._begin() as conn:
                await conn.execute(
                    friend_requests.insert().values(sender=sender, recipient=recipient, created=ts)
                )
        except IntegrityError:
            pass

    async def drop_request(self, sender: str, recipient: str) -> bool:
        async with self.store._begin() as conn:
            q = friend_requests.delete().where(
                friend_requests.c.sender == sender, friend_requests.c.recipient == recipient
            )
            return bool((await conn.execute(q)).rowcount)

    async def befriend(self, a: str, b: str, ts: float) -> None:
        try:
            async with self.store._begin() as conn:
                await conn.execute(
                    friend_requests.delete().where(
                        sa.or_(
                            sa.and_(
                                friend_requests.c.sender == a, friend_requests.c.recipient == b
                            ),
                            sa.and_(
                                friend_requests.c.sender == b, friend_requests.c.recipient == a
                            ),
                        )
                    )
                )
                await conn.execute(
                    friendships.insert(),
                    [
                        {"guest": a, "friend": b, "since": ts},
                        {"guest": b, "friend": a, "since": ts},
                    ],
                )
        except IntegrityError:
            pass  # both accepted at once: the first one's rows are the friendship

    async def unfriend(self, a: str, b: str) -> bool:
        async with self.store._begin() as conn:
            q = friendships.delete().where(
                sa.or_(
                    sa.and_(friendships.c.guest == a, friendships.c.friend == b),
                    sa.and_(friendships.c.guest == b, friendships.c.friend == a),
                )
            )
            return bool((await conn.execute(q)).rowcount)

    async def friends_of(self, guest: str) -> list[str]:
        async with self.store._connect() as conn:
            q = sa.select(friendships.c.friend).where(friendships.c.guest == guest)
            return [r.friend for r in await conn.execute(q)]

    async def requests_of(self, guest: str) -> tuple[list[str], list[str]]:
        """(who asked me, whom I asked), oldest first."""
        async with self.store._connect() as conn:
            q = (
                sa.select(friend_requests.c.sender, friend_requests.c.recipient)
                .where(
                    sa.or_(friend_requests.c.sender == guest, friend_requests.c.recipient == guest)
                )
                .order_by(friend_requests.c.created)
            )
            rows = list(await conn.execute(q))
        return (
            [r.sender for r in rows if r.recipient == guest],
            [r.recipient for r in rows if r.sender == guest],
        )

    async def privacy_of(self, guest: str) -> Privacy:
        return (await self.privacies([guest])).get(guest, Privacy())

    async def privacies(self, guests: list[str]) -> dict[str, Privacy]:
        """Each of these people's privacy (the defaults for those who never changed it)."""
        if not guests:
            return {}
        async with self.store._connect() as conn:
            q = sa.select(privacy).where(privacy.c.guest.in_(guests))
            rows = list(await conn.execute(q))
        found = {r.guest: Privacy(r.invites, bool(r.show_online)) for r in rows}
        return {g: found.get(g, Privacy()) for g in guests}

    async def set_privacy(self, guest: str, p: Privacy) -> None:
        async with self.store._begin() as conn:
            await conn.execute(privacy.delete().where(privacy.c.guest == guest))
            await conn.execute(
                privacy.insert().values(guest=guest, invites=p.invites, show_online=p.show_online)
            )

    async def names(self, guests: list[str]) -> dict[str, str]:
        """The account names of these guests (those with an account), in one query."""
        if not guests:
            return {}
        async with self.store._connect() as conn:
            q = sa.select(accounts.c.guest, accounts.c.name).where(accounts.c.guest.in_(guests))
            return {r.guest: r.name for r in await conn.execute(q)}

    async def add_notice(self, guest: str, kind: str, body: dict[str, Any], ts: float) -> Notice:
        async with self.store._begin() as conn:
            result = await conn.execute(
                notices.insert().values(
                    guest=guest, kind=kind, body=_encode(body).decode(), created=ts, read=False
                )
            )
            (nid,) = result.inserted_primary_key
        return Notice(int(nid), kind, body, ts, False)

    async def unread(self, guest: str) -> int:
        async with self.store._connect() as conn:
            q = sa.select(sa.func.count()).where(notices.c.guest == guest, ~notices.c.read)
            return int((await conn.execute(q)).scalar_one())

    async def notices(self, guest: str, before: int | None, limit: int) -> list[Notice]:
        """A page of the person's notices, newest first, those before the id ``before``."""
        q = sa.select(notices).where(notices.c.guest == guest)
        if before is not None:
            q = q.where(notices.c.id < before)
        q = q.order_by(notices.c.id.desc()).limit(limit)
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        return [Notice(r.id, r.kind, _decode(r.body), r.created, bool(r.read)) for r in rows]

    async def mark_read(self, guest: str, ids: list[int] | None) -> int:
        """Mark these notices of the person read (None: all of them); how many changed."""
        q = notices.update().where(notices.c.guest == guest, ~notices.c.read)
        if ids is not None:
            q = q.where(notices.c.id.in_(ids))
        async with self.store._begin() as conn:
            return int((await conn.execute(q.values(read=True))).rowcount)
