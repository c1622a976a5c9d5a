"""``SeatRatings``: each seat's rating, for the table's sockets and its line in the lobby, live.

The table service knows who sits where but nothing of ratings (they are the club's, in the
database); the lobby's line and the seats must show each person's rating under the table's
preset. So, on the node that owns a table, this looks the ratings up whenever the table's
seating changes (a person sits or stands, a bot takes a seat: what ``key_of`` sees), in one
query, off the owner's task: the owner only gets the answer (``TableOwner.set_seat_ratings``),
which it keeps for its syncs and sends to everyone at the table as a ``ratings`` frame (its
relayed sockets too, so on a cluster every node's sockets have it). The lobby's line is touched
again with the answer. The changes of a moment are looked up together: a node that rebuilds or
takes over a thousand tables makes a few queries, not a thousand.

A bot's seat and an empty seat have no rating (null); a table under custom rules has no preset
and so no ratings at all. With the ratings go the seats' ``profiles``: an account holder's name
(what his name at the table and in the lobby links to), null for a guest, a bot or an empty
seat, at every table whatever its rules (one more query per batch). With a ``completion``
reader, each person's seat carries his completion rate too (tables finished ÷ begun,
docs/club.md; one more query): a quick match's people see it beside each other's names, as
bridge sites show it. Nothing else leaves: no guest id.
A lookup that fails (the database is away) is tried again ``RETRY`` seconds later; meanwhile the
seats show what they showed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from tranque.club.ratings import PRESETS, Skill
from tranque.table.owner import TableOwner

log = logging.getLogger("tranque.club")

RETRY = 5.0  # seconds before a failed lookup is tried again
TICK = 0.05  # seconds a lookup waits for more changes to look up with it
CHUNK = 500  # people per query at most (SQLite's bound parameters)
Key = tuple[str | None, tuple[tuple[str, str | None], ...]]
Read = Callable[[Sequence[str], str], Awaitable[dict[tuple[str, str], Skill]]]
Names = Callable[[Sequence[str]], Awaitable[dict[str, str]]]
Rates = Callable[[Sequence[str]], Awaitable[dict[str, float | None]]]


def key_of(owner: TableOwner) -> Key:
    """What the seats' ratings depend on: the preset and who (person or bot) is in each seat."""
    name = owner.service.settings.rules.name
    preset = name if name in PRESETS else None
    seats = tuple((s.kind, s.guest if s.kind == "person" else None) for s in owner.service.seats)
    return preset, seats


def body_of(
    key: Key,
    skills: dict[tuple[str, str], Skill],
    names: dict[str, str] | None = None,
    rates: dict[str, float | None] | None = None,
) -> dict[str, Any]:
    """The ``ratings`` frame's body: the preset and, per seat, a person's rating (1500 and
    provisional until rated) or null (a bot, an empty seat, custom rules); and, when names were
    looked up, each seat's ``profiles``: the account's name, or null; when completion rates
    were read, each person's ``completion`` (null before any table begun)."""
    preset, seats = key
    out: list[dict[str, Any] | None] = []
    for kind, guest in seats:
        if preset is None or kind != "person" or guest is None:
            out.append(None)
            continue
        s = skills.get((guest, preset), Skill())
        seat: dict[str, Any] = {"rating": s.rating, "provisional": s.provisional, "games": s.games}
        if rates is not None:
            seat["completion"] = rates.get(guest)
        out.append(seat)
    body: dict[str, Any] = {"preset": preset, "seats": out}
    if names is not None:
        body["profiles"] = [
            names.get(guest) if kind == "person" and guest is not None else None
            for kind, guest in seats
        ]
    return body


class SeatRatings:
    def __init__(
        self,
        read: Read,
        on_ready: Callable[[TableOwner], None],
        *,
        names: Names | None = None,
        completion: Rates | None = None,
        tick: float = TICK,
    ) -> None:
        self.read = read
        self.completion = completion  # the seats' completion rates, when given
        self.names = names  # the seats' account names (their profiles), when given
        self.on_ready = on_ready  # the table's line in the lobby, touched again
        self.tick = tick
        self.known: dict[str, tuple[TableOwner, Key, dict[str, Any]]] = {}
        self.dirty: dict[str, TableOwner] = {}  # tables whose seating changed, to look up
        self.flying: dict[str, tuple[TableOwner, Key]] = {}  # being looked up now
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.lookups = 0  # rating queries made (a test counts them)

    def seats(self, owner: TableOwner) -> list[dict[str, Any] | None] | None:
        """The seats' ratings known now for the lobby's line (the last ones while a new lookup
        is due; None before the first); marks the table for a lookup if its seating changed.
        Cheap: called after every change of every table this node owns."""
        tid = owner.table_id
        known = self.known.get(tid)
        if known is not None and known[0] is not owner:
            known = None  # the table was rebuilt here: its new owner has not been told yet
        key = key_of(owner)
        if (known is None or known[1] != key) and self.flying.get(tid) != (owner, key):
            self.dirty[tid] = owner
            if self.task is None:
                self.task = asyncio.create_task(self._run(), name="seat ratings")
            self.wake.set()
        return None if known is None else known[2]["seats"]

    def profiles(self, owner: TableOwner) -> list[str | None] | None:
        """The seats' profiles (account names) last looked up for the lobby's line, or None."""
        known = self.known.get(owner.table_id)
        if known is None or known[0] is not owner:
            return None
        profiles: list[str | None] | None = known[2].get("profiles")
        return profiles

    async def _run(self) -> None:
        while True:
            await self.wake.wait()
            # A burst of changes (a restart rebuilding every table, a takeover) is one batch:
            # at most one query per preset and CHUNK people, whatever the number of tables.
            await asyncio.sleep(self.tick)
            self.wake.clear()
            batch, self.dirty = self.dirty, {}
            try:
                await self._look(batch)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("the seats' ratings could not be read", exc_info=True)
                for tid, owner in batch.items():
                    self.dirty.setdefault(tid, owner)  # again, after a pause
                await asyncio.sleep(RETRY)
                self.wake.set()

    async def _look(self, batch: dict[str, TableOwner]) -> None:
        keys = self.flying = {tid: (owner, key_of(owner)) for tid, owner in batch.items()}
        try:
            skills = await self._read(keys)
            names = await self._names(keys) if self.names is not None else None
            rates = await self._rates(keys) if self.completion is not None else None
            self._tell(keys, skills, names, rates)
        finally:
            self.flying = {}

    def _tell(
        self,
        keys: dict[str, tuple[TableOwner, Key]],
        skills: dict[tuple[str, str], Skill],
        names: dict[str, str] | None = None,
        rates: dict[str, float | None] | None = None,
    ) -> None:
        for tid, (owner, key) in keys.items():
            if tid not in self.flying:
                continue  # the table left this node meanwhile
            if key_of(owner) != key:
                self.dirty.setdefault(tid, owner)  # somebody sat or stood meanwhile: again
                self.wake.set()
                continue
            body = body_of(key, skills, names, rates)
            self.known[tid] = (owner, key, body)
            owner.set_seat_ratings(body)
            self.on_ready(owner)

    async def _read(self, keys: dict[str, tuple[TableOwner, Key]]) -> dict[tuple[str, str], Skill]:
        wanted: dict[str, set[str]] = {}
        for _, (preset, seats) in keys.values():
            if preset is not None:
                wanted.setdefault(preset, set()).update(
                    g for k, g in seats if k == "person" and g is not None
                )
        skills: dict[tuple[str, str], Skill] = {}
        for preset, people in wanted.items():
            ordered = sorted(people)
            for i in range(0, len(ordered), CHUNK):
                self.lookups += 1
                skills.update(await self.read(ordered[i : i + CHUNK], preset))
        return skills

    async def _names(self, keys: dict[str, tuple[TableOwner, Key]]) -> dict[str, str]:
        assert self.names is not None
        people = sorted(
            {g for _, (_, seats) in keys.values() for k, g in seats if k == "person" and g}
        )
        names: dict[str, str] = {}
        for i in range(0, len(people), CHUNK):
            names.update(await self.names(people[i : i + CHUNK]))
        return names

    async def _rates(self, keys: dict[str, tuple[TableOwner, Key]]) -> dict[str, float | None]:
        assert self.completion is not None
        people = sorted(
            {g for _, (p, seats) in keys.values() if p for k, g in seats if k == "person" and g}
        )
        rates: dict[str, float | None] = {}
        for i in range(0, len(people), CHUNK):
            rates.update(await self.completion(people[i : i + CHUNK]))
        return rates

    def gone(self, table: str) -> None:
        """The table left this node: forget it (another node's owner looks them up again)."""
        self.known.pop(table, None)
        self.dirty.pop(table, None)
        self.flying.pop(table, None)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
