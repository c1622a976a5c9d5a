"""Pairs on SQLAlchemy Core (``club.pairs.PairRows``) and the reading side of their pages and
leaderboards. What a finished game leaves for the pairs in it is ``store.pair_settle``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tranque.club.names import name_key
from tranque.club.pairs import Pair, ordered
from tranque.club.ratings import PROVISIONAL_GAMES, Skill
from tranque.club.skeleton import name_skeleton
from tranque.store.db import Store
from tranque.store.schema import accounts, pair_games, pair_ratings, pairs, standing


def _pair(r: Any) -> Pair:
    return Pair(r.id, r.name, r.a, r.b, r.proposer, r.created, r.formed)


class SqlPairs:
    """``PairRows`` on the store's database, and what the pages read."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def by_name(self, name: str) -> Pair | None:
        if len(name) > 64:  # longer than any pair's name (and not worth a skeleton)
            return None
        q = sa.select(pairs).where(
            sa.or_(pairs.c.name_key == name_key(name), pairs.c.name_skeleton == name_skeleton(name))
        )
        async with self.store._connect() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else _pair(row)

    async def by_id(self, pair_id: int) -> Pair | None:
        async with self.store._connect() as conn:
            row = (await conn.execute(sa.select(pairs).where(pairs.c.id == pair_id))).first()
        return None if row is None else _pair(row)

    async def between(self, a: str, b: str) -> Pair | None:
        a, b = ordered(a, b)
        async with self.store._connect() as conn:
            row = (
                await conn.execute(sa.select(pairs).where(pairs.c.a == a, pairs.c.b == b))
            ).first()
        return None if row is None else _pair(row)

    async def count_of(self, guest: str) -> int:
        q = sa.select(sa.func.count()).where(sa.or_(pairs.c.a == guest, pairs.c.b == guest))
        async with self.store._connect() as conn:
            return int((await conn.execute(q)).scalar_one())

    async def propose(self, name: str, a: str, b: str, proposer: str, ts: float) -> Pair | None:
        values = {
            "name": name, "name_key": name_key(name), "name_skeleton": name_skeleton(name),
            "a": a, "b": b, "proposer": proposer, "created": ts, "formed": None,
        }  # fmt: skip
        try:
            async with self.store._begin() as conn:
                result = await conn.execute(pairs.insert().values(**values))
                (pid,) = result.inserted_primary_key
        except IntegrityError:
            return None
        return Pair(int(pid), name, a, b, proposer, ts, None)

    async def form(self, pair_id: int, ts: float) -> bool:
        q = pairs.update().where(pairs.c.id == pair_id, pairs.c.formed.is_(None))
        async with self.store._begin() as conn:
            return bool((await conn.execute(q.values(formed=ts))).rowcount)

    async def drop(self, pair_id: int) -> bool:
        async with self.store._begin() as conn:
            await conn.execute(pair_games.delete().where(pair_games.c.pair_id == pair_id))
            await conn.execute(pair_ratings.delete().where(pair_ratings.c.pair_id == pair_id))
            return bool((await conn.execute(pairs.delete().where(pairs.c.id == pair_id))).rowcount)

    # -- what the pages read ------------------------------------------------------------------

    async def of(self, guest: str) -> list[Pair]:
        """The pairs the person is in (formed and proposed), oldest first."""
        q = (
            sa.select(pairs)
            .where(sa.or_(pairs.c.a == guest, pairs.c.b == guest))
            .order_by(pairs.c.created, pairs.c.id)
        )
        async with self.store._connect() as conn:
            return [_pair(r) for r in await conn.execute(q)]

    async def formed_of(self, guest: str) -> list[dict[str, Any]]:
        """The formed pairs a person is in, for his profile: each one's name and partner."""
        mine = [p for p in await self.of(guest) if p.formed is not None]
        names = await self.names([p.partner_of(guest) for p in mine])
        return [{"name": p.name, "partner": names.get(p.partner_of(guest))} for p in mine]

    async def names(self, guests: Sequence[str]) -> dict[str, str]:
        if not guests:
            return {}
        q = sa.select(accounts.c.guest, accounts.c.name).where(accounts.c.guest.in_(list(guests)))
        async with self.store._connect() as conn:
            return {r.guest: r.name for r in await conn.execute(q)}

    async def ratings(self, pair_id: int) -> dict[str, Skill]:
        c = pair_ratings.c
        q = sa.select(c.preset, c.mu, c.sigma, c.games).where(c.pair_id == pair_id)
        async with self.store._connect() as conn:
            return {r.preset: Skill(r.mu, r.sigma, r.games) for r in await conn.execute(q)}

    async def record(self, pair_id: int) -> dict[str, int]:
        """The pair's record in one query (``club.pairs.record_of`` says what each figure is)."""
        g = pair_games.c
        q = sa.select(
            sa.func.count(),
            sa.func.coalesce(sa.func.sum(sa.case((g.won, 1), else_=0)), 0),
            sa.func.coalesce(sa.func.sum(g.pollonas_given), 0),
            sa.func.coalesce(sa.func.sum(g.pollonas_suffered), 0),
            sa.func.coalesce(sa.func.sum(g.points_for), 0),
            sa.func.coalesce(sa.func.sum(g.points_against), 0),
        ).where(g.pair_id == pair_id)
        async with self.store._connect() as conn:
            n, won, pg, ps, pf, pa = (await conn.execute(q)).one()
        return {
            "games": int(n), "won": int(won), "lost": int(n) - int(won),
            "pollonas_given": int(pg), "pollonas_suffered": int(ps),
            "points_for": int(pf), "points_against": int(pa),
        }  # fmt: skip

    async def recent(self, pair_id: int, limit: int = 20) -> list[dict[str, Any]]:
        g = pair_games.c
        q = (
            sa.select(
                g.table_id,
                g.preset,
                g.won,
                g.points_for,
                g.points_against,
                g.mu_before,
                g.mu_after,
                g.finished,
            )
            .where(g.pair_id == pair_id)
            .order_by(g.finished.desc(), g.table_id)
            .limit(limit)
        )
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        return [
            {
                "table": r.table_id,
                "page": f"/g/{r.table_id}",
                "preset": r.preset,
                "won": bool(r.won),
                "points_for": r.points_for,
                "points_against": r.points_against,
                "before": round(r.mu_before),
                "after": round(r.mu_after),
                "finished": r.finished,
            }
            for r in rows
        ]

    async def leaderboard(self, preset: str, limit: int) -> list[dict[str, Any]]:
        """Settled pair ratings (``PROVISIONAL_GAMES`` games at least), best ``mu - 3 sigma``
        first; a pair with a closed account leaves it, as a person does."""
        r = pair_ratings.c
        closed = sa.exists().where(
            sa.or_(standing.c.guest == pairs.c.a, standing.c.guest == pairs.c.b),
            standing.c.closed.is_not(None),
        )
        q = (
            sa.select(pairs.c.name, pairs.c.a, pairs.c.b, r.mu, r.sigma, r.games)
            .select_from(pair_ratings.join(pairs, pairs.c.id == r.pair_id))
            .where(r.preset == preset, r.games >= PROVISIONAL_GAMES, ~closed)
            .order_by((r.mu - 3 * r.sigma).desc(), pairs.c.name_key)
            .limit(limit)
        )
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        names = await self.names(sorted({g for row in rows for g in (row.a, row.b)}))
        return [
            {
                "name": row.name,
                "partners": [names.get(row.a), names.get(row.b)],
                **Skill(row.mu, row.sigma, row.games).to_json(),
            }
            for row in rows
        ]
