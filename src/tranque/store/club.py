"""The club's rows on SQLAlchemy Core: accounts and sessions (``club.accounts.AccountStore``)
and the reading side of profiles and leaderboards. What a finished table writes (plays and
ratings) is ``store.settle``, in the transaction that saves the record."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tranque.club.accounts import Account, NameTaken
from tranque.club.ratings import PRESETS, Skill
from tranque.store import departures
from tranque.store.db import Store
from tranque.store.games import SqlGames
from tranque.store.schema import (
    SKELETON_LENGTH,
    accounts,
    guests,
    plays,
    rating_changes,
    ratings,
    sessions,
    standing,
)
from tranque.store.settle import log_seats, seat_guests

_decode = msgspec.json.decode

# Built once: every hello and every request with a token runs it, and building the statement
# (and its cache key) cost more than running it on SQLite.
_SESSION_STATE = (
    sa.select(accounts.c.guest, sessions.c.id)
    .select_from(
        accounts.outerjoin(
            sessions,
            sa.and_(sessions.c.guest == accounts.c.guest, sessions.c.id == sa.bindparam("s")),
        )
    )
    .where(accounts.c.guest == sa.bindparam("g"))
)


class SqlAccounts:
    """``AccountStore`` on the store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store

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
        try:
            async with self.store._begin() as conn:
                await conn.execute(
                    accounts.insert().values(
                        guest=guest,
                        name=name,
                        name_key=key,
                        name_skeleton=skeleton,
                        password_hash=password_hash,
                        created=ts,
                    )
                )
                await conn.execute(sessions.insert().values(id=session, guest=guest, created=ts))
                await conn.execute(
                    guests.update().where(guests.c.id == guest).values(nickname=name)
                )
        except IntegrityError:
            raise NameTaken(key) from None

    async def account_by_name(self, key: str, skeleton: str) -> Account | None:
        # The casefolded name first: an account made before 0006a whose skeleton had to be told
        # apart from an older look-alike's is still found by its own name.
        if len(key) <= 64:  # accounts.name_key's length
            found = await self._one(accounts.c.name_key == key)
            if found is not None:
                return found
        if len(skeleton) > SKELETON_LENGTH:
            return None  # longer than any stored one: nobody's
        return await self._one(accounts.c.name_skeleton == skeleton)

    async def account_of(self, guest: str) -> Account | None:
        return await self._one(accounts.c.guest == guest)

    async def _one(self, where: Any) -> Account | None:
        q = (
            sa.select(
                accounts.c.guest,
                accounts.c.name,
                accounts.c.created,
                accounts.c.password_hash,
                standing.c.closed,
            )
            .select_from(accounts.outerjoin(standing, standing.c.guest == accounts.c.guest))
            .where(where)
        )
        async with self.store._connect() as conn:
            row = (await conn.execute(q)).first()
        if row is None:
            return None
        return Account(row.guest, row.name, row.created, row.password_hash, row.closed is not None)

    async def set_password(self, guest: str, password_hash: str, keep: str | None) -> None:
        async with self.store._begin() as conn:
            await conn.execute(
                accounts.update()
                .where(accounts.c.guest == guest)
                .values(password_hash=password_hash)
            )
            if keep is not None:
                await conn.execute(
                    sessions.delete().where(sessions.c.guest == guest, sessions.c.id != keep)
                )

    async def add_session(self, guest: str, session: str, ts: float) -> None:
        async with self.store._begin() as conn:
            await conn.execute(sessions.insert().values(id=session, guest=guest, created=ts))

    async def drop_sessions(self, guest: str, session: str | None = None) -> int:
        q = sessions.delete().where(sessions.c.guest == guest)
        if session is not None:
            q = q.where(sessions.c.id == session)
        async with self.store._begin() as conn:
            return int((await conn.execute(q)).rowcount)

    async def session_state(self, guest: str, session: str | None) -> str:
        # One round trip: the account (if any) and, when the token names one, its session.
        async with self.store._connect() as conn:
            row = (await conn.execute(_SESSION_STATE, {"g": guest, "s": session or ""})).first()
        if row is None:
            return "guest"
        return "ok" if row.id is not None else "gone"


# -- what profiles and leaderboards read -----------------------------------------------------


class SqlProfiles:
    """The reading side: profiles, leaderboards, a table's players."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def person(self, guest: str) -> dict[str, Any] | None:
        """``{"guest", "name" (account) or None, "nickname", "since"}`` or None."""
        q = (
            sa.select(guests.c.id, guests.c.nickname, guests.c.created, accounts.c.name,
                      accounts.c.created.label("claimed"))
            .select_from(guests.outerjoin(accounts, accounts.c.guest == guests.c.id))
            .where(guests.c.id == guest)
        )  # fmt: skip
        async with self.store._connect() as conn:
            row = (await conn.execute(q)).first()
        if row is None:
            return None
        return {"guest": row.id, "name": row.name, "nickname": row.nickname, "since": row.created}

    async def counts(self, guest: str) -> dict[str, int]:
        c = plays.c
        q = sa.select(
            sa.func.count(),
            sa.func.coalesce(sa.func.sum(sa.case((c.won, 1), else_=0)), 0),
            sa.func.coalesce(sa.func.sum(c.pollonas_given), 0),
            sa.func.coalesce(sa.func.sum(c.pollonas_suffered), 0),
            sa.func.coalesce(sa.func.sum(c.viajeras), 0),
        ).where(c.guest == guest)
        async with self.store._connect() as conn:
            played, won, given, suffered, viajeras = (await conn.execute(q)).one()
        return {
            "played": int(played),
            "won": int(won),
            "pollonas_given": int(given),
            "pollonas_suffered": int(suffered),
            "viajeras": int(viajeras),
        }

    async def completion(self, guest: str) -> dict[str, Any]:
        """Tables finished ÷ tables begun (``store.departures``)."""
        async with self.store._connect() as conn:
            return await departures.completion(conn, guest)

    async def completion_rates(self, guests_: Sequence[str]) -> dict[str, float | None]:
        """Many people's completion rates at once (what a table shows beside each name)."""
        async with self.store._connect() as conn:
            return await departures.rates(conn, guests_)

    async def departed_since(self, guest: str, since: float) -> list[float]:
        """When the person left tables since ``since`` (``store.departures``)."""
        async with self.store._connect() as conn:
            return await departures.departed_since(conn, guest, since)

    async def ratings_of(
        self, guests_: Sequence[str], preset: str | None = None
    ) -> dict[tuple[str, str], Skill]:
        q = sa.select(ratings.c.guest, ratings.c.preset, ratings.c.mu, ratings.c.sigma,
                      ratings.c.games).where(ratings.c.guest.in_(list(guests_)))  # fmt: skip
        if preset is not None:
            q = q.where(ratings.c.preset == preset)
        async with self.store._connect() as conn:
            return {
                (r.guest, r.preset): Skill(r.mu, r.sigma, r.games) for r in await conn.execute(q)
            }

    async def account_names(self, guests_: Sequence[str]) -> dict[str, str]:
        """The account's name of each of these guests who has one: what a seat's name links to
        (a guest's own page is of a visitor's browser, not one others would look up)."""
        q = sa.select(accounts.c.guest, accounts.c.name).where(accounts.c.guest.in_(list(guests_)))
        async with self.store._connect() as conn:
            return {r.guest: r.name for r in await conn.execute(q)}

    async def history(self, guest: str, limit: int = 200) -> list[dict[str, Any]]:
        """The newest ``limit`` rating changes, oldest first."""
        c = rating_changes.c
        q = (
            sa.select(c.table_id, c.preset, c.mu_before, c.mu_after, c.games, c.ts)
            .where(c.guest == guest)
            .order_by(c.ts.desc())
            .limit(limit)
        )
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        return [
            {"table": r.table_id, "preset": r.preset, "before": round(r.mu_before),
             "after": round(r.mu_after), "games": r.games, "ts": r.ts}
            for r in reversed(rows)
        ]  # fmt: skip

    async def recent(self, guest: str, limit: int = 20) -> list[dict[str, Any]]:
        """The profile's newest games: the first page of the person's history (store.games)."""
        return await SqlGames(self.store).person_games(guest, limit, None)

    async def companions(self, guest: str, limit: int = 12) -> dict[str, list[dict[str, Any]]]:
        """The people a person played finished games with: ``partners`` (across the table,
        the same pair) and ``opponents``, each with the games together, most first. Bots are
        not in ``plays``, so only people are counted; a name is the account's, else the
        nickname the guest had at the last of those games."""
        me, other = plays.alias("me"), plays.alias("other")
        partner = ((me.c.seat + other.c.seat) % 2 == 0).label("partner")
        games = sa.func.count().label("games")
        q = (
            sa.select(other.c.guest, partner, games, sa.func.max(other.c.nickname).label("nick"),
                      accounts.c.name)
            .select_from(
                me.join(other, sa.and_(other.c.table_id == me.c.table_id,
                                       other.c.guest != me.c.guest))
                .outerjoin(accounts, accounts.c.guest == other.c.guest))
            .where(me.c.guest == guest)
            .group_by(other.c.guest, partner, accounts.c.name)
            .order_by(games.desc(), other.c.guest)
        )  # fmt: skip
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        out: dict[str, list[dict[str, Any]]] = {"partners": [], "opponents": []}
        for r in rows:
            kept = out["partners" if r.partner else "opponents"]
            if len(kept) < limit:
                kept.append(
                    {"guest": r.guest, "name": r.name, "nickname": r.name or r.nick,
                     "games": int(r.games)}
                )  # fmt: skip
        return out

    async def leaderboard(self, preset: str, min_games: int, limit: int) -> list[dict[str, Any]]:
        r = ratings.c
        q = (
            sa.select(r.guest, r.mu, r.sigma, r.games, accounts.c.name, guests.c.nickname)
            .select_from(
                ratings.outerjoin(accounts, accounts.c.guest == r.guest).outerjoin(
                    guests, guests.c.id == r.guest
                )
            )
            .where(r.preset == preset, r.games >= min_games)
            # A closed account's ratings leave the leaderboards (moderation).
            .where(~sa.exists().where(standing.c.guest == r.guest, standing.c.closed.is_not(None)))
            .order_by((r.mu - 3 * r.sigma).desc(), r.guest)
            .limit(limit)
        )
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
        return [
            {
                "guest": row.guest,
                "name": row.name,
                "nickname": row.name or row.nickname or "guest",
                **Skill(row.mu, row.sigma, row.games).to_json(),
            }
            for row in rows
        ]

    async def table_people(self, table_id: str) -> tuple[list[str | None], dict[str, str]]:
        """Who sits in each seat (from the log), and the account names among them."""
        async with self.store._connect() as conn:
            who = await seat_guests(conn, table_id)
            ids = [g for g in who if g is not None]
            names: dict[str, str] = {}
            if ids:
                q = sa.select(accounts.c.guest, accounts.c.name).where(accounts.c.guest.in_(ids))
                names = {r.guest: r.name for r in await conn.execute(q)}
        return who, names

    async def table_seats(self, table_id: str) -> list[dict[str, Any]]:
        """Each seat's kind and nickname, from the log (``store.settle.log_seats``)."""
        async with self.store._connect() as conn:
            return await log_seats(conn, table_id)

    async def table_changes(self, table_id: str) -> dict[str, dict[str, Any]]:
        c = rating_changes.c
        q = sa.select(c.guest, c.mu_before, c.mu_after, c.games).where(c.table_id == table_id)
        async with self.store._connect() as conn:
            return {
                r.guest: {
                    "before": round(r.mu_before),
                    "after": round(r.mu_after),
                    "change": round(r.mu_after) - round(r.mu_before),
                    "games": r.games,
                }
                for r in await conn.execute(q)
            }


__all__ = ["PRESETS", "SqlAccounts", "SqlProfiles"]
