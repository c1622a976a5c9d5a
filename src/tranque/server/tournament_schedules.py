"""Scheduled repeating tournaments in the service (docs/tournaments.md, "Scheduled
tournaments"): the runner's look at the schedules, which creates each occurrence's tournament
once its registration opens, and the list's line for each schedule's next one.

The runner (``server.tournament_runner``) holds the ``~tournaments`` lease, so on a cluster one
node looks; and even two looks at once (a lease taken over mid-look, a restart) create an
occurrence once, for its key is unique in the rows (``store.schedules``). When a start comes is
``tournament.schedule`` (pure, in the schedule's zone); a created occurrence is an ordinary
tournament that starts itself at its start time, made by no person.
"""

from __future__ import annotations

import logging
from typing import Any

from tranque.rules.variants import Rules
from tranque.store.schedules import ScheduleRow, SqlSchedules
from tranque.tournament.schedule import When, next_start, occurrence_key, open_starts, parse_clock

log = logging.getLogger("tranque.tournaments")

EVERY = 30.0  # seconds between two looks at the schedules (a start is hours away)


def when_of(s: ScheduleRow) -> When:
    return When(s.weekdays, parse_clock(s.at), s.zone, s.opens_hours)


class Scheduler:
    def __init__(self, rows: SqlSchedules, every: float = EVERY) -> None:
        self.rows, self.every = rows, every
        self.looked = -float("inf")  # when the schedules were last looked at

    async def look(self, now: float, force: bool = False) -> list[str]:
        """Create the tournament of every occurrence whose registration is open (once: a key
        already taken is passed over); every ``every`` seconds unless ``force``. The ids made."""
        if not force and now - self.looked < self.every:
            return []
        self.looked = now
        made = []
        for s in await self.rows.all():
            try:
                starts = open_starts(when_of(s), now)
            except Exception:  # a zone gone from this machine's tzdata: the others go on
                log.exception("schedule %s (%s) cannot be worked out", s.id, s.name)
                continue
            target = Rules.from_json(s.rules).target
            for start in starts:
                tid = await self.rows.create_occurrence(
                    s, occurrence_key(s.id, start), target, start, now
                )
                if tid is not None:
                    log.info("schedule %s (%s): tournament %s for %.0f", s.id, s.name, tid, start)
                    made.append(tid)
        return made

    async def upcoming(self, now: float) -> list[dict[str, Any]]:
        """Each public schedule's next occurrence not created yet: its name, start, and when
        its registration opens (the list's "scheduled" part)."""
        out = []
        schedules = [s for s in await self.rows.all() if s.public]
        nexts: list[tuple[ScheduleRow, float, str]] = []
        for s in schedules:
            try:
                start = next_start(when_of(s), now)
            except Exception:  # a zone gone from this machine's tzdata (see ``look``)
                continue
            nexts.append((s, start, occurrence_key(s.id, start)))
        made = await self.rows.created([k for _, _, k in nexts])
        for s, start, key in nexts:
            if key in made:  # open already: it is in the list as an upcoming tournament
                start = next_start(when_of(s), start)
            out.append({
                "schedule": s.id, "name": s.name, "kind": s.kind, "rules": s.rules,
                "rounds": s.rounds, "minutes": s.minutes, "starts": start,
                "opens": start - s.opens_hours * 3600, "zone": s.zone, "at": s.at,
                "weekdays": list(s.weekdays),
            })  # fmt: skip
        return sorted(out, key=lambda x: x["starts"])
