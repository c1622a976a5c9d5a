"""Peñas on SQLAlchemy Core (``club.penas.PenaRows``) and the reading side of their pages: the
members with their names, the members' leaderboard, pairs and recent games, the board.

A member joining removes his pending request or invitation in the same transaction, so an
accepted request never leaves a member and a request behind.

The cap on a person's peñas (``MAX_PENAS``) is counted inside the transaction that adds him,
under a lock of that person: on PostgreSQL an advisory lock held to the transaction's end, keyed
by his guest id, so that two joins or foundings of his at once (on one node or two) count one
after the other; on SQLite a transaction is never interleaved with another (``OnLoop``). The
club's own count before it (``Penas._room``) only answers early; this one holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tranque.club.names import name_key
from tranque.club.penas import BOARD_PAGE, MAX_PENAS, Pena, PenaError, Role
from tranque.club.ratings import Skill
from tranque.club.skeleton import name_skeleton
from tranque.store.db import Store
from tranque.store.schema import (
    accounts,
    pair_ratings,
    pairs,
    pena_members,
    pena_pending,
    pena_posts,
    penas,
    plays,
    ratings,
)

# The advisory locks of a person's peñas: (this namespace, a hash of his guest id).
PENA_LOCK = 0x70656E61  # "pena"


def too_many_penas() -> PenaError:
    return PenaError(409, "too_many_penas", f"a person belongs to {MAX_PENAS} peñas at most")


async def _hold_room(conn: Any, dialect: str, guest: str) -> None:
    """In ``conn``'s transaction: the person's lock, then his peñas counted; ``PenaError``
    (rolling the transaction back) when he has ``MAX_PENAS`` already."""
    if dialect == "postgresql":
        await conn.execute(
            sa.text("SELECT pg_advisory_xact_lock(:ns, hashtext(:guest))"),
            {"ns": PENA_LOCK, "guest": guest},
        )
    q = sa.select(sa.func.count()).where(pena_members.c.guest == guest)
    if int((await conn.execute(q)).scalar_one()) >= MAX_PENAS:
        raise too_many_penas()


class _Changed(Exception):
    """Rolls a transaction back: a row it needed changed meanwhile."""


def _pena(r: Any) -> Pena:
    return Pena(r.id, r.name, r.description, bool(r.open), r.emblem, r.founder, r.created)


class SqlPenas:
    """``PenaRows`` on the store's database, and what the pages read."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def by_name(self, name: str) -> Pena | None:
        if len(name) > 64:
            return None
        q = sa.select(penas).where(
            sa.or_(penas.c.name_key == name_key(name), penas.c.name_skeleton == name_skeleton(name))
        )
        async with self.store._connect() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else _pena(row)

    async def role_of(self, pena_id: int, guest: str) -> Role | None:
        m = pena_members.c
        q = sa.select(m.role).where(m.pena_id == pena_id, m.guest == guest)
        async with self.store._connect() as conn:
            role = (await conn.execute(q)).scalar_one_or_none()
        return cast("Role | None", role)

    async def is_member(self, name: str, guest: str) -> bool:
        """Whether ``guest`` belongs to the peña called ``name`` (a members-only table's seat)."""
        q = (
            sa.select(sa.func.count())
            .select_from(pena_members.join(penas, penas.c.id == pena_members.c.pena_id))
            .where(penas.c.name_key == name_key(name), pena_members.c.guest == guest)
        )
        async with self.store._connect() as conn:
            return bool((await conn.execute(q)).scalar_one())

    async def names_of(self, guest: str) -> list[str]:
        """The names of the peñas ``guest`` belongs to (what the lobby shows him), by name."""
        m = pena_members.c
        q = (
            sa.select(penas.c.name)
            .select_from(pena_members.join(penas, penas.c.id == m.pena_id))
            .where(m.guest == guest)
            .order_by(penas.c.name_key)
        )
        async with self.store._connect() as conn:
            return [str(r.name) for r in await conn.execute(q)]

    async def members_of(self, names: Sequence[str]) -> dict[str, set[str]]:
        """The members (guest ids) of the peñas called so, by the name their tables carry."""
        if not names:
            return {}
        m = pena_members.c
        q = (
            sa.select(penas.c.name, m.guest)
            .select_from(pena_members.join(penas, penas.c.id == m.pena_id))
            .where(penas.c.name.in_(list(names)))
        )
        out: dict[str, set[str]] = {}
        async with self.store._connect() as conn:
            for r in await conn.execute(q):
                out.setdefault(str(r.name), set()).add(str(r.guest))
        return out

    async def pending(self, pena_id: int, guest: str) -> str | None:
        p = pena_pending.c
        q = sa.select(p.kind).where(p.pena_id == pena_id, p.guest == guest)
        async with self.store._connect() as conn:
            kind = (await conn.execute(q)).scalar_one_or_none()
        return None if kind is None else str(kind)

    async def count_of(self, guest: str) -> int:
        q = sa.select(sa.func.count()).where(pena_members.c.guest == guest)
        async with self.store._connect() as conn:
            return int((await conn.execute(q)).scalar_one())

    async def found(
        self, name: str, description: str, open_: bool, emblem: str, founder: str, ts: float
    ) -> Pena | None:
        values = {
            "name": name,
            "name_key": name_key(name),
            "name_skeleton": name_skeleton(name),
            "description": description,
            "open": open_,
            "emblem": emblem,
            "founder": founder,
            "created": ts,
        }
        try:
            async with self.store._begin() as conn:
                await _hold_room(conn, self.store.dialect, founder)
                result = await conn.execute(penas.insert().values(**values))
                (pid,) = result.inserted_primary_key
                await conn.execute(
                    pena_members.insert().values(
                        pena_id=pid, guest=founder, role="founder", since=ts
                    )
                )
        except IntegrityError:
            return None
        return Pena(int(pid), name, description, open_, emblem, founder, ts)

    async def add_member(self, pena_id: int, guest: str, role: Role, ts: float) -> bool:
        p = pena_pending.c
        try:
            async with self.store._begin() as conn:
                await _hold_room(conn, self.store.dialect, guest)
                await conn.execute(
                    pena_pending.delete().where(p.pena_id == pena_id, p.guest == guest)
                )
                await conn.execute(
                    pena_members.insert().values(pena_id=pena_id, guest=guest, role=role, since=ts)
                )
        except IntegrityError:
            return False  # two accepts at once: the first one's row is the membership
        return True

    async def add_pending(self, pena_id: int, guest: str, kind: str, by: str, ts: float) -> None:
        try:
            async with self.store._begin() as conn:
                await conn.execute(
                    pena_pending.insert().values(
                        pena_id=pena_id, guest=guest, kind=kind, by=by, created=ts
                    )
                )
        except IntegrityError:
            pass  # asked twice at once: one row stays

    async def drop_pending(self, pena_id: int, guest: str) -> bool:
        p = pena_pending.c
        async with self.store._begin() as conn:
            q = pena_pending.delete().where(p.pena_id == pena_id, p.guest == guest)
            return bool((await conn.execute(q)).rowcount)

    async def drop_member(self, pena_id: int, guest: str) -> bool:
        m = pena_members.c
        async with self.store._begin() as conn:
            q = pena_members.delete().where(m.pena_id == pena_id, m.guest == guest)
            return bool((await conn.execute(q)).rowcount)

    async def set_role(self, pena_id: int, guest: str, role: Role) -> bool:
        m = pena_members.c
        async with self.store._begin() as conn:
            q = pena_members.update().where(m.pena_id == pena_id, m.guest == guest)
            return bool((await conn.execute(q.values(role=role))).rowcount)

    async def post(self, pena_id: int, author: str, text: str, ts: float) -> None:
        async with self.store._begin() as conn:
            await conn.execute(
                pena_posts.insert().values(pena_id=pena_id, author=author, body=text, created=ts)
            )

    async def hand_over(self, pena_id: int, founder: str, heir: str) -> bool:
        m = pena_members.c
        try:
            async with self.store._begin() as conn:
                # The founder's row first: two hand-overs at once wait for each other here.
                q = pena_members.update().where(
                    m.pena_id == pena_id, m.guest == founder, m.role == "founder"
                )
                if not (await conn.execute(q.values(role="admin"))).rowcount:
                    raise _Changed
                q = pena_members.update().where(
                    m.pena_id == pena_id, m.guest == heir, m.role == "admin"
                )
                if not (await conn.execute(q.values(role="founder"))).rowcount:
                    raise _Changed  # the heir left or was demoted meanwhile
                await conn.execute(penas.update().where(penas.c.id == pena_id).values(founder=heir))
        except _Changed:
            return False  # rolled back: nothing written
        return True

    async def dissolve(self, pena_id: int, founder: str) -> list[str] | None:
        m = pena_members.c
        async with self.store._begin() as conn:
            q = penas.delete().where(penas.c.id == pena_id, penas.c.founder == founder)
            if not (await conn.execute(q)).rowcount:
                return None
            rows = await conn.execute(sa.select(m.guest).where(m.pena_id == pena_id))
            guests = [str(r.guest) for r in rows]
            await conn.execute(pena_members.delete().where(m.pena_id == pena_id))
            await conn.execute(pena_pending.delete().where(pena_pending.c.pena_id == pena_id))
            await conn.execute(pena_posts.delete().where(pena_posts.c.pena_id == pena_id))
        return guests

    # -- what the pages read ------------------------------------------------------------------

    async def names(self, guests: Sequence[str]) -> dict[str, str]:
        if not guests:
            return {}
        q = sa.select(accounts.c.guest, accounts.c.name).where(accounts.c.guest.in_(list(guests)))
        async with self.store._connect() as conn:
            return {r.guest: r.name for r in await conn.execute(q)}

    async def members(self, pena_id: int) -> list[tuple[str, Role]]:
        """(guest, role) of every member, oldest first."""
        m = pena_members.c
        q = sa.select(m.guest, m.role).where(m.pena_id == pena_id).order_by(m.since, m.guest)
        async with self.store._connect() as conn:
            return [(r.guest, cast("Role", r.role)) for r in await conn.execute(q)]

    async def pendings(self, pena_id: int) -> list[tuple[str, str]]:
        """(guest, kind) of the requests and invitations not yet answered, oldest first."""
        p = pena_pending.c
        q = sa.select(p.guest, p.kind).where(p.pena_id == pena_id).order_by(p.created)
        async with self.store._connect() as conn:
            return [(r.guest, r.kind) for r in await conn.execute(q)]

    async def of(self, guest: str) -> list[dict[str, Any]]:
        """The peñas the person belongs to (with his role) or is invited to / asked to join."""
        m, p = pena_members.c, pena_pending.c
        q1 = (
            sa.select(penas.c.name, penas.c.emblem, m.role)
            .select_from(pena_members.join(penas, penas.c.id == m.pena_id))
            .where(m.guest == guest)
            .order_by(penas.c.name_key)
        )
        q2 = (
            sa.select(penas.c.name, penas.c.emblem, p.kind)
            .select_from(pena_pending.join(penas, penas.c.id == p.pena_id))
            .where(p.guest == guest)
            .order_by(penas.c.name_key)
        )
        async with self.store._connect() as conn:
            mine = [
                {"name": r.name, "emblem": r.emblem, "role": r.role} for r in await conn.execute(q1)
            ]
            waiting = [
                {"name": r.name, "emblem": r.emblem, "state": r.kind}
                for r in await conn.execute(q2)
            ]
        return [*mine, *waiting]

    async def listing(self, limit: int = 100) -> list[dict[str, Any]]:
        """Every peña (name, emblem, open, members), the biggest first."""
        m = pena_members.c
        count = sa.func.count(m.guest)
        q = (
            sa.select(penas.c.name, penas.c.emblem, penas.c.open, penas.c.description, count)
            .select_from(penas.outerjoin(pena_members, m.pena_id == penas.c.id))
            .group_by(penas.c.id, penas.c.name, penas.c.emblem, penas.c.open, penas.c.description)
            .order_by(count.desc(), penas.c.name)
            .limit(limit)
        )
        async with self.store._connect() as conn:
            return [
                {
                    "name": r.name,
                    "emblem": r.emblem,
                    "open": bool(r.open),
                    "description": r.description,
                    "members": int(r[4]),
                }
                for r in await conn.execute(q)
            ]

    async def leaderboard(
        self, guests: Sequence[str], preset: str, limit: int = 20
    ) -> list[dict[str, Any]]:
        """The members' ratings under ``preset``, best ``mu - 3 sigma`` first."""
        if not guests:
            return []
        r = ratings.c
        q = (
            sa.select(r.guest, r.mu, r.sigma, r.games)
            .where(r.preset == preset, r.guest.in_(list(guests)))
            .order_by((r.mu - 3 * r.sigma).desc(), r.guest)
            .limit(limit)
        )
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        names = await self.names([row.guest for row in rows])
        return [
            {"name": names[row.guest], **Skill(row.mu, row.sigma, row.games).to_json()}
            for row in rows
            if row.guest in names
        ]

    async def pairs_of(self, guests: Sequence[str]) -> list[dict[str, Any]]:
        """The formed pairs whose both partners are among ``guests``, with their best rating's
        games (a pair's page has the rest)."""
        if len(guests) < 2:
            return []
        g = list(guests)
        q = (
            sa.select(pairs.c.id, pairs.c.name, pairs.c.a, pairs.c.b)
            .where(pairs.c.a.in_(g), pairs.c.b.in_(g), pairs.c.formed.is_not(None))
            .order_by(pairs.c.name_key)
        )
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
            games: dict[int, int] = {}
            if rows:
                gq = (
                    sa.select(pair_ratings.c.pair_id, sa.func.sum(pair_ratings.c.games))
                    .where(pair_ratings.c.pair_id.in_([row.id for row in rows]))
                    .group_by(pair_ratings.c.pair_id)
                )
                games = {int(x[0]): int(x[1]) for x in await conn.execute(gq)}
        names = await self.names(sorted({x for row in rows for x in (row.a, row.b)}))
        return [
            {
                "name": row.name,
                "partners": [names.get(row.a), names.get(row.b)],
                "games": games.get(row.id, 0),
            }
            for row in rows
        ]

    async def recent(self, guests: Sequence[str], limit: int = 20) -> list[dict[str, Any]]:
        """The latest finished games any member played: each game once, with the members who
        sat there (their account names)."""
        if not guests:
            return []
        p = plays.c
        q = (
            sa.select(p.table_id, p.guest, p.preset, p.finished)
            .where(p.guest.in_(list(guests)))
            .order_by(p.finished.desc(), p.table_id)
            .limit(limit * 4)
        )
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        names = await self.names(sorted({row.guest for row in rows}))
        games: dict[str, dict[str, Any]] = {}
        for row in rows:
            game = games.setdefault(
                row.table_id,
                {
                    "table": row.table_id,
                    "page": f"/g/{row.table_id}",
                    "preset": row.preset,
                    "finished": row.finished,
                    "members": [],
                },
            )
            if row.guest in names:
                game["members"].append(names[row.guest])
        return list(games.values())[:limit]

    async def board(self, pena_id: int, limit: int = BOARD_PAGE) -> list[dict[str, Any]]:
        """The board's latest posts, newest first."""
        b = pena_posts.c
        q = (
            sa.select(b.id, b.author, b.body, b.created)
            .where(b.pena_id == pena_id)
            .order_by(b.id.desc())
            .limit(limit)
        )
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        names = await self.names(sorted({row.author for row in rows}))
        return [
            {
                "id": row.id,
                "author": names.get(row.author),
                "text": row.body,
                "created": row.created,
            }
            for row in rows
        ]
