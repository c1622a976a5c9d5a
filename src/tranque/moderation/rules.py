"""Who may do what, and the arithmetic of suspensions and of the report limit.

Pure functions of plain values: the server asks them before anything is written, so a refused
action leaves nothing behind, and the same answers hold on every node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ROLES = ("moderator",)
# What a moderator does to a person (``review`` also to a partnership's flag): each is a line of
# the moderation log with who did it and why.
ACTIONS = ("review", "warn", "suspend", "lift", "close")
# The short list a player picks a report's reason from (the page shows each in his language).
REPORT_REASONS = ("partner_signals", "program", "abandons", "abuse", "other")

HOUR = 3600.0
SHORTEST_HOURS = 1  # a suspension from rated play lasts 1 hour ...
LONGEST_HOURS = 24 * 90  # ... to 90 days; longer than that is closing the account
WHY_SHORTEST, WHY_LONGEST = 3, 500  # characters of a moderator's reason

REPORTS_PER_DAY = 10  # reports one person may send in a day
DAY = 24 * HOUR


class ModerationError(Exception):
    """A refused request: an HTTP status, a code for programs and a sentence for people."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Standing:
    """A person's standing: suspended from rated play until when, closed since when (None:
    neither), and how many warnings he has had."""

    suspended_until: float | None = None
    closed: float | None = None
    warnings: int = 0

    def suspended(self, now: float) -> bool:
        """Kept out of rated play now: a suspension that has not run out, or a closed account."""
        if self.closed is not None:
            return True
        return self.suspended_until is not None and self.suspended_until > now


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ModerationError(400, "unknown_role", f"roles are {', '.join(ROLES)}, not {role!r}")
    return role


def check_reason(reason: str) -> str:
    """A moderator's reason, stripped: every line of the log says why."""
    text = " ".join(reason.split())
    if not WHY_SHORTEST <= len(text) <= WHY_LONGEST:
        raise ModerationError(
            400, "bad_reason", f"say why in {WHY_SHORTEST} to {WHY_LONGEST} characters"
        )
    return text


def suspension_until(now: float, hours: int, current: float | None) -> float:
    """When a suspension of ``hours`` from now ends. It never shortens one that runs longer
    already: two moderators acting on one person's reports must not cut each other's
    suspension short (to shorten one, lift it and suspend again)."""
    if not SHORTEST_HOURS <= hours <= LONGEST_HOURS:
        raise ModerationError(
            400, "bad_hours", f"a suspension is {SHORTEST_HOURS} to {LONGEST_HOURS} hours"
        )
    end = now + hours * HOUR
    return end if current is None or current <= now else max(current, end)


def check_action(
    actor: str,
    actor_roles: Sequence[str],
    target: str,
    target_roles: Sequence[str],
    action: str,
    standing: Standing,
) -> None:
    """Whether ``actor`` may do ``action`` to the person ``target``, or ModerationError.

    Only moderators act; nobody acts on himself; a moderator is not suspended or closed by
    another (his role is taken with ``tranque admin revoke`` first, by whoever runs the
    service); a closed account takes nothing but a review."""
    if "moderator" not in actor_roles:
        raise ModerationError(403, "not_moderator", "only moderators may do that")
    if action not in ACTIONS:
        raise ModerationError(400, "bad_action", f"actions are {', '.join(ACTIONS)}")
    if actor == target:
        raise ModerationError(403, "own_account", "a moderator does not act on himself")
    if action in ("suspend", "close", "warn") and "moderator" in target_roles:
        raise ModerationError(
            403, "target_is_moderator", "a moderator's role is taken away first (tranque admin)"
        )
    if standing.closed is not None and action != "review":
        raise ModerationError(409, "account_closed", "that account is closed")
    if action == "lift" and standing.suspended_until is None:
        raise ModerationError(409, "not_suspended", "that person is not suspended")


def check_report(
    reporter: str, target: str, reason: str, sent_today: int, same_today: bool
) -> None:
    """Whether a report may be sent, or ModerationError: a reason of the list, nobody reports
    himself, at most ``REPORTS_PER_DAY`` a day, one a day about the same person (a second adds
    nothing a moderator would read: he reads the person's games)."""
    if reason not in REPORT_REASONS:
        raise ModerationError(400, "bad_report_reason", f"reasons are {', '.join(REPORT_REASONS)}")
    if reporter == target:
        raise ModerationError(400, "own_report", "nobody reports himself")
    if same_today:
        raise ModerationError(409, "reported_already", "you reported this person today")
    if sent_today >= REPORTS_PER_DAY:
        raise ModerationError(429, "reports_limited", f"at most {REPORTS_PER_DAY} reports a day")
