"""``SeatRatings``: each seat's rating, for the table's sockets and its line in the lobby, live.

The table service knows who sits where but nothing of ratings (they are the club's, in the
database); the lobby's line and the seats must show each person's rating under the table's
preset. So, on the node that owns a table, this looks the ratings up whenever the table's
seating changes (a person sits or stands, a bot takes a seat: what ``key_of`` sees), in one
query, off the owner's task: the owner only gets the answer (``TableOwner.set_seat_ratings``),
which it keeps for its syncs and sends to everyone at the table as a ``ratings`` frame (its
relayed sockets too, so on a cluster every node's sockets have it). The lobby's line is touched
again with the answer.

A bot's seat and an empty seat have no rating (null); a table under custom rules has no preset
and so no ratings at all (and costs no query). Nothing but the rating leaves: no guest id.
A lookup that fails (the database is away) is tried again at the next change, not before
``RETRY`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from tranque.club.ratings import PRESETS, Skill
from tranque.table.owner import TableOwner

log = logging.getLogger("tranque.club")

RETRY = 5.0  # seconds before a failed lookup is tried again
Key = tuple[str | None, tuple[tuple[str, str | None], ...]]
Read = Callable[[Sequence[str], str], Awaitable[dict[tuple[str, str], Skill]]]


def key_of(owner: TableOwner) -> Key:
    """What the seats' ratings depend on: the preset and who (person or bot) is in each seat."""
    name = owner.service.settings.rules.name
    preset = name if name in PRESETS else None
    seats = tuple((s.kind, s.guest if s.kind == "person" else None) for s in owner.service.seats)
    return preset, seats


def body_of(key: Key, skills: dict[tuple[str, str], Skill]) -> dict[str, Any]:
    """The ``ratings`` frame's body: the preset and, per seat, a person's rating (1500 and
    provisional until rated) or null (a bot, an empty seat, custom rules)."""
    preset, seats = key
    out: list[dict[str, Any] | None] = []
    for kind, guest in seats:
        if preset is None or kind != "person" or guest is None:
            out.append(None)
            continue
        s = skills.get((guest, preset), Skill())
        out.append({"rating": s.rating, "provisional": s.provisional, "games": s.games})
    return {"preset": preset, "seats": out}


class SeatRatings:
    def __init__(self, read: Read, on_ready: Callable[[TableOwner], None]) -> None:
        self.read = read
        self.on_ready = on_ready  # the table's line in the lobby, touched again
        self.known: dict[str, tuple[TableOwner, Key, dict[str, Any]]] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.failed: dict[str, float] = {}

    def seats(self, owner: TableOwner) -> list[dict[str, Any] | None] | None:
        """The seats' ratings known now for the lobby's line (the last ones while a new lookup
        is out; None before the first); starts a lookup if the seating changed. Cheap: called
        after every change of every table this node owns."""
        tid = owner.table_id
        known = self.known.get(tid)
        if known is not None and known[0] is not owner:
            known = None  # the table was rebuilt here: its new owner has not been told yet
        stale = known is None or known[1] != key_of(owner)
        due = tid not in self.pending and time.monotonic() >= self.failed.get(tid, 0.0)
        if stale and due:
            self.pending[tid] = asyncio.create_task(self._look(owner), name=f"ratings {tid}")
        return None if known is None else known[2]["seats"]

    async def _look(self, owner: TableOwner) -> None:
        tid = owner.table_id
        try:
            while True:
                key = key_of(owner)
                preset, seats = key
                people = [g for k, g in seats if k == "person" and g is not None]
                skills = await self.read(people, preset) if preset and people else {}
                if key_of(owner) == key:
                    break  # else somebody sat or stood meanwhile: look again
            body = body_of(key, skills)
            self.known[tid] = (owner, key, body)
            self.failed.pop(tid, None)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("table %s: the seats' ratings could not be read", tid, exc_info=True)
            self.failed[tid] = time.monotonic() + RETRY
            return
        finally:
            self.pending.pop(tid, None)
        owner.set_seat_ratings(body)
        self.on_ready(owner)

    def gone(self, table: str) -> None:
        """The table left this node: forget it (another node's owner looks them up again)."""
        self.known.pop(table, None)
        self.failed.pop(table, None)
        task = self.pending.pop(table, None)
        if task is not None:
            task.cancel()

    async def close(self) -> None:
        tasks = list(self.pending.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
