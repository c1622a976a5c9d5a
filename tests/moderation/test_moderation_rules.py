"""Who may do what, and the arithmetic of suspensions and reports (moderation.rules)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tranque.moderation.rules import (
    HOUR,
    LONGEST_HOURS,
    REPORTS_PER_DAY,
    ModerationError,
    Standing,
    check_action,
    check_reason,
    check_report,
    check_role,
    suspension_until,
)

MOD = ("moderator",)


def _code(fn: object, *args: object) -> str:
    with pytest.raises(ModerationError) as info:
        fn(*args)  # type: ignore[operator]
    return info.value.code


def test_only_a_moderator_acts_never_on_himself_nor_on_another_moderator() -> None:
    fresh = Standing()
    check_action("m", MOD, "p", (), "suspend", fresh)  # allowed
    assert _code(check_action, "p", (), "q", (), "warn", fresh) == "not_moderator"
    assert _code(check_action, "m", MOD, "m", MOD, "review", fresh) == "own_account"
    assert _code(check_action, "m", MOD, "n", MOD, "suspend", fresh) == "target_is_moderator"
    assert _code(check_action, "m", MOD, "n", MOD, "close", fresh) == "target_is_moderator"
    check_action("m", MOD, "n", MOD, "review", fresh)  # a moderator's flag may be reviewed
    assert _code(check_action, "m", MOD, "p", (), "ban", fresh) == "bad_action"


def test_a_closed_account_takes_only_a_review_and_only_a_suspension_is_lifted() -> None:
    closed = Standing(closed=5.0)
    assert _code(check_action, "m", MOD, "p", (), "suspend", closed) == "account_closed"
    check_action("m", MOD, "p", (), "review", closed)
    assert _code(check_action, "m", MOD, "p", (), "lift", Standing()) == "not_suspended"


def test_reasons_and_roles_are_checked() -> None:
    assert check_reason("  played   by the   book ") == "played by the book"
    assert _code(check_reason, "ok") == "bad_reason"
    assert _code(check_reason, "x" * 501) == "bad_reason"
    assert check_role("moderator") == "moderator"
    assert _code(check_role, "admin") == "unknown_role"


@given(
    now=st.floats(1e9, 2e9),
    hours=st.integers(1, LONGEST_HOURS),
    current=st.none() | st.floats(0, 3e9),
)
def test_a_suspension_runs_from_now_and_never_shortens_one_that_runs_longer(
    now: float, hours: int, current: float | None
) -> None:
    until = suspension_until(now, hours, current)
    assert until >= now + hours * HOUR
    if current is not None and current > now:
        assert until >= current  # never shortened
        assert until == max(current, now + hours * HOUR)
    else:
        assert until == now + hours * HOUR  # an ended one is not added to


def test_a_suspension_is_an_hour_to_ninety_days() -> None:
    assert _code(suspension_until, 0.0, 0, None) == "bad_hours"
    assert _code(suspension_until, 0.0, LONGEST_HOURS + 1, None) == "bad_hours"


def test_standing_suspended_until_its_end_and_for_good_once_closed() -> None:
    assert not Standing().suspended(10.0)
    assert Standing(suspended_until=11.0).suspended(10.0)
    assert not Standing(suspended_until=10.0).suspended(10.0)
    assert Standing(closed=1.0).suspended(1e12)


def test_reports_a_reason_of_the_list_one_a_day_per_person_ten_a_day() -> None:
    check_report("a", "b", "program", 0, False)
    assert _code(check_report, "a", "b", "cheating!", 0, False) == "bad_report_reason"
    assert _code(check_report, "a", "a", "program", 0, False) == "own_report"
    assert _code(check_report, "a", "b", "program", 1, True) == "reported_already"
    assert _code(check_report, "a", "b", "abuse", REPORTS_PER_DAY, False) == "reports_limited"
