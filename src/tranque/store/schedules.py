"""Scheduled repeating tournaments on SQLAlchemy Core: the schedules, and each occurrence's
tournament created once (docs/tournaments.md, "Scheduled tournaments").

A schedule is a row that the command line adds and removes (``tranque tournament schedule``) and
the runner reads. An occurrence is an ordinary tournament row that carries its schedule and its
occurrence's key under a unique index: two runners (a restart, a second node) that both decide to
create it insert the same key, and the second insert fails and is dropped.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tranque.store.db import Store
from tranque.store.schema import tournament_schedules, tournaments
from tranque.store.tournaments import REGISTERING


@dataclass(frozen=True, slots=True)
class ScheduleRow:
    id: str
    name: str
    kind: str
    rules: str
    rounds: int
    minutes: float | None
    no_show: float
    public: bool
    weekdays: tuple[int, ...]  # 0 = Monday
    at: str  # "20:00", local to ``zone``
    zone: str  # IANA
    opens_hours: float
    created: float

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "kind": self.kind, "rules": self.rules,
            "rounds": self.rounds, "minutes": self.minutes, "no_show": self.no_show,
            "public": self.public, "weekdays": list(self.weekdays), "at": self.at,
            "zone": self.zone, "opens_hours": self.opens_hours,
        }  # fmt: skip


def _schedule(r: Any) -> ScheduleRow:
    days = tuple(int(d) for d in r.weekdays.split(",") if d)
    return ScheduleRow(
        r.id, r.name, r.kind, r.rules, r.rounds, r.minutes, r.no_show, bool(r.public), days,
        r.at, r.zone, r.opens_hours, r.created,
    )  # fmt: skip


class SqlSchedules:
    """The schedules' rows, and their occurrences' tournaments, on the store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def add(self, values: dict[str, Any], ts: float) -> str:
        """A new schedule (``values``: its columns, ``weekdays`` a tuple); its id."""
        sid = "s" + secrets.token_hex(4)
        row = {**values, "id": sid, "created": ts}
        row["weekdays"] = ",".join(str(d) for d in values["weekdays"])
        async with self.store._begin() as conn:
            await conn.execute(tournament_schedules.insert().values(**row))
        return sid

    async def all(self) -> list[ScheduleRow]:
        q = sa.select(tournament_schedules).order_by(tournament_schedules.c.created)
        async with self.store._connect() as conn:
            return [_schedule(r) for r in await conn.execute(q)]

    async def remove(self, sid: str) -> bool:
        """The schedule gone (False: there was none): no more occurrences; those created
        already stay, as any tournament does."""
        q = tournament_schedules.delete().where(tournament_schedules.c.id == sid)
        async with self.store._begin() as conn:
            return bool((await conn.execute(q)).rowcount)

    async def create_occurrence(
        self, s: ScheduleRow, key: str, target: int, starts: float, ts: float
    ) -> str | None:
        """The occurrence's tournament, registering until ``starts`` (when it starts by itself),
        made by no person: its id, or None when the occurrence exists already (its key)."""
        tid = secrets.token_urlsafe(8)
        row = {
            "id": tid, "name": s.name, "kind": s.kind, "rules": s.rules, "target": target,
            "minutes": s.minutes, "rounds": s.rounds, "no_show": s.no_show,
            "state": REGISTERING, "creator": "", "public": s.public, "starts": starts,
            "created": ts, "entrants_made": 0, "schedule": s.id, "occurrence": key,
        }  # fmt: skip
        try:
            async with self.store._begin() as conn:
                await conn.execute(tournaments.insert().values(**row))
        except IntegrityError:
            return None
        return tid

    async def created(self, keys: list[str]) -> set[str]:
        """Those of these occurrences' keys that have their tournament already."""
        if not keys:
            return set()
        q = sa.select(tournaments.c.occurrence).where(tournaments.c.occurrence.in_(keys))
        async with self.store._connect() as conn:
            return {r.occurrence for r in await conn.execute(q)}
