"""A schedule's next start, in its zone's wall time across daylight saving changes (Havana's
clocks jump from 00:00 to 01:00 on 8 March 2026 and back on 1 November 2026), and which starts
have their registration open (tournament/schedule.py)."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from tranque.tournament.model import TournamentError
from tranque.tournament.schedule import (
    When,
    check_zone,
    next_start,
    occurrence_key,
    open_starts,
    parse_clock,
    parse_weekdays,
)

HAVANA = "America/Havana"


def utc(*args: int) -> float:
    return datetime(*args, tzinfo=UTC).timestamp()


def saturdays_at_eight(opens: float = 24.0) -> When:
    return When(parse_weekdays("sat"), parse_clock("20:00"), HAVANA, opens)


def test_saturday_at_eight_in_havana_keeps_its_hour_across_summer_time() -> None:
    when = saturdays_at_eight()
    # Winter (UTC-5): Saturday 7 March 20:00 is 01:00 UTC on Sunday.
    first = next_start(when, utc(2026, 3, 2))
    assert first == utc(2026, 3, 8, 1)
    # The clocks jump that night: the next Saturday at 20:00 is UTC-4, 00:00 UTC.
    second = next_start(when, first)
    assert second == utc(2026, 3, 15, 0)
    assert second - first == 7 * 86400 - 3600
    # And back in November: Saturday 31 October (UTC-4), then 7 November (UTC-5).
    assert next_start(when, utc(2026, 10, 26)) == utc(2026, 11, 1, 0)
    assert next_start(when, utc(2026, 11, 1, 0)) == utc(2026, 11, 8, 1)


def test_a_start_is_strictly_after_and_the_local_day_counts() -> None:
    when = saturdays_at_eight()
    start = utc(2026, 3, 8, 1)
    assert next_start(when, start - 1) == start
    assert next_start(when, start) == utc(2026, 3, 15, 0)
    # 02:00 UTC on Sunday is still Saturday 21:00 in Havana: the next is a week on.
    assert next_start(when, utc(2026, 3, 8, 2)) == utc(2026, 3, 15, 0)
    # Several weekdays: the nearest one.
    both = When(parse_weekdays("fri,sat"), time(20, 0), HAVANA, 0)
    assert next_start(both, utc(2026, 3, 2)) == utc(2026, 3, 7, 1)


def test_a_skipped_wall_time_falls_after_the_jump_and_a_repeated_one_is_its_first() -> None:
    daily = When(parse_weekdays("daily"), parse_clock("00:30"), HAVANA, 0)
    # 8 March: 00:00 -> 01:00, so 00:30 does not exist: it is taken as 01:30 (05:30 UTC).
    assert next_start(daily, utc(2026, 3, 8, 0)) == utc(2026, 3, 8, 5, 30)
    # 1 November: 01:00 -> 00:00, so 00:30 happens twice: the first (UTC-4).
    assert next_start(daily, utc(2026, 11, 1, 0)) == utc(2026, 11, 1, 4, 30)
    assert next_start(daily, utc(2026, 11, 1, 4, 30)) == utc(2026, 11, 2, 5, 30)


def test_registration_opens_hours_before_each_start() -> None:
    when = saturdays_at_eight(opens=24.0)
    start = utc(2026, 3, 8, 1)
    assert open_starts(when, start - 24 * 3600 - 1) == []
    assert open_starts(when, start - 24 * 3600) == [start]
    assert open_starts(when, start - 1) == [start]
    assert open_starts(when, start) == []  # started: the next one is a week away
    # Registration open a whole week: the next two Saturdays can both be open.
    week = saturdays_at_eight(opens=168.0)
    assert open_starts(week, start - 1) == [start, utc(2026, 3, 15, 0)]
    assert occurrence_key("s1", start) == f"s1@{int(start)}"


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda: parse_weekdays("saturday,funday"), "'funday' is not a weekday"),
        (lambda: parse_clock("25:00"), "'25:00' is not a time of day"),
        (lambda: parse_clock("8pm"), "'8pm' is not a time of day"),
        (lambda: check_zone("Mars/Olympus"), "'Mars/Olympus' is not an IANA time zone"),
        (lambda: check_zone("../etc"), "is not an IANA time zone"),
    ],
)
def test_bad_parts_of_a_schedule_are_named(call: object, said: str) -> None:
    with pytest.raises(TournamentError, match=said):
        call()  # type: ignore[operator]
    assert parse_weekdays("sab,dom") == (5, 6) and parse_weekdays("Sat") == (5,)
