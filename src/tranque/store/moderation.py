"""The moderation's rows on SQLAlchemy Core: ``moderation.service.ModerationStore`` and what
the moderators' page reads (flags, open reports, the log), on SQLite and PostgreSQL.

The log is append-only: this module inserts into ``moderation_log`` and has no statement that
updates or deletes a row of it. An action and its line are one transaction (``record``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
import sqlalchemy as sa

from tranque.moderation.rules import Standing
from tranque.moderation.service import LogEntry
from tranque.store.db import Store
from tranque.store.schema import (
    accounts,
    blocks,
    guests,
    moderation_log,
    plays,
    reports,
    roles,
    screen_flags,
    sessions,
    standing,
)
from tranque.store.standing import standing_of, suspended_among

_decode = msgspec.json.decode
_encode = msgspec.json.encode


def _log_row(entry: LogEntry) -> dict[str, Any]:
    return {
        "ts": entry.ts,
        "moderator": entry.moderator,
        "action": entry.action,
        "target": entry.target,
        "reason": entry.reason,
        "until": entry.until,
    }


class SqlModeration:
    """``ModerationStore`` on the store's database, and the page's reads."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- the port -------------------------------------------------------------------------------

    async def roles_of(self, guest: str) -> list[str]:
        async with self.store._connect() as conn:
            rows = await conn.execute(sa.select(roles.c.role).where(roles.c.guest == guest))
            return sorted(r.role for r in rows)

    async def set_role(self, entry: LogEntry, role: str, granted: bool) -> bool:
        where = sa.and_(roles.c.guest == entry.target, roles.c.role == role)
        async with self.store._begin() as conn:
            had = (await conn.execute(sa.select(roles.c.role).where(where))).first() is not None
            if had == granted:
                return False
            if granted:
                await conn.execute(roles.insert().values(guest=entry.target, role=role,
                                                         granted=entry.ts))  # fmt: skip
            else:
                await conn.execute(roles.delete().where(where))
            await conn.execute(moderation_log.insert().values(**_log_row(entry)))
        return True

    async def standing(self, guest: str) -> Standing:
        async with self.store._connect() as conn:
            return await standing_of(conn, guest)

    async def record(self, entry: LogEntry, new: Standing, subject: str | None) -> None:
        async with self.store._begin() as conn:
            await conn.execute(moderation_log.insert().values(**_log_row(entry)))
            values = {
                "suspended_until": new.suspended_until,
                "closed": new.closed,
                "warnings": new.warnings,
            }
            done = await conn.execute(
                standing.update().where(standing.c.guest == entry.target).values(**values)
            )
            if done.rowcount == 0:
                await conn.execute(standing.insert().values(guest=entry.target, **values))
            if entry.action == "review":
                await conn.execute(
                    reports.update()
                    .where(reports.c.target == entry.target, reports.c.reviewed.is_(None))
                    .values(reviewed=entry.ts)
                )
                if subject is not None:
                    await conn.execute(
                        screen_flags.update()
                        .where(screen_flags.c.subject == subject)
                        .values(reviewed=entry.ts)
                    )
            if entry.action == "close":
                # Out of the leaderboards: a closed account is read as suspended for good
                # (``standing_of``) and the leaderboard query leaves its rows out.
                await conn.execute(sessions.delete().where(sessions.c.guest == entry.target))

    async def reports_since(self, reporter: str, since: float) -> list[str]:
        q = sa.select(reports.c.target).where(reports.c.reporter == reporter,
                                              reports.c.ts >= since)  # fmt: skip
        async with self.store._connect() as conn:
            return [r.target for r in await conn.execute(q)]

    async def add_report(
        self, reporter: str, target: str, reason: str, table: str | None, ts: float
    ) -> None:
        async with self.store._begin() as conn:
            await conn.execute(
                reports.insert().values(
                    ts=ts, reporter=reporter, target=target, reason=reason, table_id=table
                )
            )

    async def set_block(self, guest: str, other: str, on: bool, ts: float) -> bool:
        where = sa.and_(blocks.c.guest == guest, blocks.c.other == other)
        async with self.store._begin() as conn:
            had = (await conn.execute(sa.select(blocks.c.ts).where(where))).first() is not None
            if had == on:
                return False
            if on:
                await conn.execute(blocks.insert().values(guest=guest, other=other, ts=ts))
            else:
                await conn.execute(blocks.delete().where(where))
        return True

    # -- what the server reads --------------------------------------------------------------------

    async def blocked_by(self, guest: str) -> list[str]:
        """Whom the person blocks (his own list: nobody else's is ever read out)."""
        q = sa.select(blocks.c.other).where(blocks.c.guest == guest).order_by(blocks.c.ts)
        async with self.store._connect() as conn:
            return [r.other for r in await conn.execute(q)]

    async def avoided(self, guest: str) -> tuple[str, ...]:
        """Whom the person blocks and who blocks him, in one query: what his queue ticket
        carries, so that no adapter of the queue seats them together."""
        q = sa.union(
            sa.select(blocks.c.other.label("g")).where(blocks.c.guest == guest),
            sa.select(blocks.c.guest.label("g")).where(blocks.c.other == guest),
        )
        async with self.store._connect() as conn:
            return tuple(sorted(r.g for r in await conn.execute(q)))

    async def blocks_among(self, people: Iterable[str]) -> set[frozenset[str]]:
        """The pairs of these people of whom one blocks the other, in one query."""
        who = list(dict.fromkeys(people))
        if len(who) < 2:
            return set()
        q = sa.select(blocks.c.guest, blocks.c.other).where(
            blocks.c.guest.in_(who), blocks.c.other.in_(who)
        )
        async with self.store._connect() as conn:
            return {frozenset((r.guest, r.other)) for r in await conn.execute(q)}

    async def suspended_among(self, people: Iterable[str], now: float) -> set[str]:
        async with self.store._connect() as conn:
            return await suspended_among(conn, people, now)

    async def save_flags(self, flagged: Iterable[Mapping[str, Any]], ts: float) -> int:
        """Keep the screen's flagged people and partnerships (``tranque-fairplay/1`` entries),
        each under its subject: a flag seen again is updated and stays reviewed if it was, a
        new flag comes unreviewed. How many were kept."""
        n = 0
        async with self.store._begin() as conn:
            for item in flagged:
                kind = "partnership" if "ids" in item else "person"
                subject = "+".join(item["ids"]) if kind == "partnership" else str(item["id"])
                stats = _encode(dict(item)).decode()
                done = await conn.execute(
                    screen_flags.update()
                    .where(screen_flags.c.subject == subject)
                    .values(stats=stats, screened=ts)
                )
                if done.rowcount == 0:
                    await conn.execute(
                        screen_flags.insert().values(
                            subject=subject, kind=kind, stats=stats, screened=ts, reviewed=None
                        )
                    )
                n += 1
        return n

    async def page(self, now: float, log_rows: int = 50) -> dict[str, Any]:
        """What the moderators' page shows: flags not reviewed, open reports by person, the
        people suspended or closed, the log's latest lines. Ids are guest ids; the route turns
        them into handles and names."""
        async with self.store._connect() as conn:
            flags = [
                {"subject": r.subject, "kind": r.kind, "stats": _decode(r.stats),
                 "screened": r.screened}
                for r in await conn.execute(
                    sa.select(screen_flags).where(screen_flags.c.reviewed.is_(None))
                    .order_by(screen_flags.c.screened.desc())
                )
            ]  # fmt: skip
            open_reports = [
                {"id": r.id, "ts": r.ts, "reporter": r.reporter, "target": r.target,
                 "reason": r.reason, "table": r.table_id}
                for r in await conn.execute(
                    sa.select(reports).where(reports.c.reviewed.is_(None))
                    .order_by(reports.c.ts.desc()).limit(500)
                )
            ]  # fmt: skip
            standings = [
                {"guest": r.guest, "suspended_until": r.suspended_until, "closed": r.closed,
                 "warnings": r.warnings}
                for r in await conn.execute(
                    sa.select(standing).where(
                        sa.or_(standing.c.closed.is_not(None), standing.c.suspended_until > now)
                    )
                )
            ]  # fmt: skip
            log = [
                {"ts": r.ts, "moderator": r.moderator, "action": r.action, "target": r.target,
                 "reason": r.reason, "until": r.until}
                for r in await conn.execute(
                    sa.select(moderation_log).order_by(moderation_log.c.id.desc()).limit(log_rows)
                )
            ]  # fmt: skip
        return {"flags": flags, "reports": open_reports, "standing": standings, "log": log}

    async def names(self, ids: Iterable[str]) -> dict[str, tuple[str | None, str]]:
        """guest id -> (account name or None, nickname), for the ids that are guests."""
        who = list(dict.fromkeys(ids))
        if not who:
            return {}
        q = (
            sa.select(guests.c.id, guests.c.nickname, accounts.c.name)
            .select_from(guests.outerjoin(accounts, accounts.c.guest == guests.c.id))
            .where(guests.c.id.in_(who))
        )
        async with self.store._connect() as conn:
            return {r.id: (r.name, r.nickname) for r in await conn.execute(q)}

    async def games_of(self, people: list[str], limit: int = 12) -> list[dict[str, Any]]:
        """The latest finished games of one person, or of two as partners (same pair)."""
        if len(people) == 1:
            q = (
                sa.select(plays.c.table_id, plays.c.finished, plays.c.rated, plays.c.won)
                .where(plays.c.guest == people[0])
                .order_by(plays.c.finished.desc())
                .limit(limit)
            )
        else:
            a, b = plays.alias("a"), plays.alias("b")
            q = (
                sa.select(a.c.table_id, a.c.finished, a.c.rated, a.c.won)
                .select_from(a.join(b, a.c.table_id == b.c.table_id))
                .where(a.c.guest == people[0], b.c.guest == people[1],
                       (a.c.seat % 2) == (b.c.seat % 2))
                .order_by(a.c.finished.desc())
                .limit(limit)
            )  # fmt: skip
        async with self.store._connect() as conn:
            return [
                {"table": r.table_id, "finished": r.finished, "rated": r.rated, "won": r.won,
                 "page": f"/g/{r.table_id}"}
                for r in await conn.execute(q)
            ]  # fmt: skip
