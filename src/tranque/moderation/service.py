"""The moderation port and what goes through it: grant and revoke roles, act on a person,
send a report, block a person.

Every decision is ``moderation.rules``'; this module reads what a decision needs through the
``ModerationStore`` port (``store.moderation`` on SQLite or PostgreSQL), decides, and writes the
result in one call of the port, which is one transaction: an action and its line of the log are
written together or not at all, never half.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from tranque.moderation.rules import (
    DAY,
    ModerationError,
    Standing,
    check_action,
    check_reason,
    check_report,
    check_role,
    suspension_until,
)

COMMAND = "tranque admin"  # the log's ``moderator`` of what the command did


@dataclass(frozen=True, slots=True)
class LogEntry:
    """A line of the moderation log: append-only, who (a moderator's guest id, or the command)
    did what to whom, why, and until when for a suspension."""

    ts: float
    moderator: str
    action: str
    target: str
    reason: str
    until: float | None = None


class ModerationStore(Protocol):
    async def roles_of(self, guest: str) -> list[str]: ...

    async def set_role(self, entry: LogEntry, role: str, granted: bool) -> bool:
        """Grant (or revoke) the role and log it, in one transaction; False (and nothing
        written) if the person had it already (or did not have it)."""
        ...

    async def standing(self, guest: str) -> Standing: ...

    async def record(self, entry: LogEntry, standing: Standing, subject: str | None) -> None:
        """Append the entry and set the person's standing, and for a review mark the
        ``subject``'s flags and the person's open reports reviewed: one transaction."""
        ...

    async def reports_since(self, reporter: str, since: float) -> list[str]:
        """The people the reporter reported since ``since`` (one item per report)."""
        ...

    async def add_report(
        self, reporter: str, target: str, reason: str, table: str | None, ts: float
    ) -> None: ...

    async def set_block(self, guest: str, other: str, on: bool, ts: float) -> bool:
        """Block (or unblock) ``other`` for ``guest``; False if nothing changed."""
        ...


class Moderation:
    def __init__(self, store: ModerationStore) -> None:
        self.store = store

    async def set_role(
        self, guest: str, role: str, granted: bool, by: str, reason: str, now: float
    ) -> bool:
        check_role(role)
        action = "grant" if granted else "revoke"
        return await self.store.set_role(
            LogEntry(now, by, f"{action}:{role}", guest, reason), role, granted
        )

    async def is_moderator(self, guest: str) -> bool:
        return "moderator" in await self.store.roles_of(guest)

    async def act(
        self,
        actor: str,
        target: str,
        action: str,
        reason: str,
        now: float,
        hours: int | None = None,
        subject: str | None = None,
    ) -> LogEntry:
        """Do ``action`` to ``target`` (a person's guest id) for ``reason``; the log's line."""
        why = check_reason(reason)
        standing = await self.store.standing(target)
        check_action(
            actor,
            await self.store.roles_of(actor),
            target,
            await self.store.roles_of(target),
            action,
            standing,
        )
        until: float | None = None
        new = standing
        if action == "suspend":
            if hours is None:
                raise ModerationError(400, "bad_hours", "a suspension says how many hours")
            until = suspension_until(now, hours, standing.suspended_until)
            new = Standing(until, standing.closed, standing.warnings)
        elif action == "lift":
            new = Standing(None, standing.closed, standing.warnings)
        elif action == "warn":
            new = Standing(standing.suspended_until, standing.closed, standing.warnings + 1)
        elif action == "close":
            new = Standing(standing.suspended_until, now, standing.warnings)
        entry = LogEntry(now, actor, action, target, why, until)
        await self.store.record(entry, new, subject if action == "review" else None)
        return entry

    async def report(
        self, reporter: str, target: str, reason: str, table: str | None, now: float
    ) -> None:
        recent = await self.store.reports_since(reporter, now - DAY)
        check_report(reporter, target, reason, len(recent), target in recent)
        await self.store.add_report(reporter, target, reason, table, now)

    async def block(self, guest: str, other: str, on: bool, now: float) -> bool:
        if guest == other:
            raise ModerationError(400, "own_block", "nobody blocks himself")
        return await self.store.set_block(guest, other, on, now)
