"""Scheduled repeating tournaments: when a schedule's next tournament starts, and when its
registration opens (docs/tournaments.md, "Scheduled tournaments").

A schedule names weekdays, a local time of day and an IANA time zone ("every Saturday at 20:00
America/Havana"). Its occurrences are worked out in that zone's wall time, through ``zoneinfo``,
so a change of daylight saving time moves the instant, never the hour the players read. Pure: the
caller gives the present; the service's runner creates each occurrence once (its key,
``occurrence_key``), the command line checks a schedule with the same parsers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tranque.tournament.model import TournamentError

# Monday first, as Python's ``weekday()`` counts them; English and Spanish short names.
DAYS = {
    "mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6,
    "lun": 0, "mar": 1, "mie": 2, "jue": 3, "vie": 4, "sab": 5, "dom": 6,
}  # fmt: skip
DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
MAX_OPENS = 168.0  # hours: registration opens at most a week before the start
_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


@dataclass(frozen=True, slots=True)
class When:
    """A schedule's times: the weekdays (0 = Monday), the local time of day, its zone, and how
    many hours before each start registration opens (the tournament is created then)."""

    weekdays: tuple[int, ...]
    at: time
    zone: str
    opens_hours: float

    def start_after(self, after: float) -> float:
        """The first start strictly after ``after`` (seconds since the epoch)."""
        return next_start(self, after)


def parse_weekdays(text: str) -> tuple[int, ...]:
    """``"sat"``, ``"fri,sat"``, ``"sab,dom"``, or ``"daily"``: sorted weekday numbers."""
    if text.strip().lower() in ("daily", "diario"):
        return tuple(range(7))
    out = set()
    for part in text.split(","):
        key = part.strip().lower()[:3]
        if key not in DAYS:
            raise TournamentError(f"{part.strip()!r} is not a weekday (mon..sun, lun..dom, daily)")
        out.add(DAYS[key])
    return tuple(sorted(out))


def parse_clock(text: str) -> time:
    """``"20:00"`` -> 20:00 (24-hour clock)."""
    m = _CLOCK.match(text.strip())
    if m is None:
        raise TournamentError(f"{text!r} is not a time of day like 20:00")
    return time(int(m.group(1)), int(m.group(2)))


def check_zone(name: str) -> str:
    """The IANA zone's name, checked (``America/Havana``)."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise TournamentError(f"{name!r} is not an IANA time zone like America/Havana") from None
    return name


def check_opens(hours: float) -> float:
    if not 0 <= hours <= MAX_OPENS:
        raise TournamentError(f"registration opens 0 to {MAX_OPENS:g} hours before the start")
    return hours


def local_start(day: date, at: time, zone: ZoneInfo) -> float:
    """The instant of ``at`` on ``day`` in ``zone``. A wall time that a change to summer time
    skips (Havana's 00:30 on the night clocks jump from 00:00 to 01:00) is taken with the offset
    before the change, so it falls that much later (01:30); a wall time that happens twice (the
    change back) is its first time (``fold=0``)."""
    return datetime.combine(day, at, tzinfo=zone).astimezone(UTC).timestamp()


def next_start(when: When, after: float) -> float:
    """The first start of the schedule strictly after ``after``, worked out day by day in the
    schedule's zone from the local date of ``after`` (the day before too: a zone's day may have
    begun before UTC's)."""
    if not when.weekdays:
        raise TournamentError("a schedule needs at least one weekday")
    zone = ZoneInfo(when.zone)
    today = datetime.fromtimestamp(after, zone).date()
    for offset in range(-1, 9):
        day = today + timedelta(days=offset)
        if day.weekday() in when.weekdays:
            start = local_start(day, when.at, zone)
            if start > after:
                return start
    raise AssertionError("a weekday comes every week")  # pragma: no cover


def open_starts(when: When, now: float) -> list[float]:
    """The starts whose registration is open at ``now`` (it opens ``opens_hours`` before), in
    order: the tournaments to create now. A start already past is not among them: a tournament
    whose whole registration was missed (the service down) is skipped, not started late."""
    out = []
    start = next_start(when, now)
    while start - when.opens_hours * 3600 <= now:
        out.append(start)
        start = next_start(when, start)
    return out


def occurrence_key(schedule_id: str, start: float) -> str:
    """The key of one occurrence: the schedule and the start's whole second (UTC). Written with
    the tournament under a unique index, so no restart nor second node creates it twice."""
    return f"{schedule_id}@{int(start)}"


def describe(weekdays: tuple[int, ...]) -> str:
    return "daily" if len(weekdays) == 7 else ",".join(DAY_NAMES[d] for d in weekdays)
