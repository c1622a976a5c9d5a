"""``LobbyBoard``: the lobby of public tables, kept by every node for the tables it owns and
read by every node for its lobby sockets.

A table's owner calls ``touch`` after whatever may change its summary (a seat taken, the start,
a spectator); the board keeps only the latest summary of each table and writes the ones that
changed to the ``LobbyDirectory`` a few times a second, so that a burst of events costs one
write. While this node has lobby sockets, the same loop asks the directory's version and, when
it moved, tells them what changed: a socket gets the whole listing once (``lobby``), then only
the lines that changed and the tables that left (``lobby_changes``). Each frame is encoded once
and the same bytes go to every socket: the listing grows with the tables, and sending it whole
to every socket at every change, encoded again for each, was what a few sockets that never read
turned into hundreds of megabytes of queued frames. A node with no lobby socket does not look
(on a cluster each look is a round trip to Redis).

A peña's tables are its members' alone (docs/club.md, "Peñas"): their lines are in the
directory, so that every node reads them, but never in the frames every lobby socket gets. A
socket that came with an account's token is a *viewer*: it gets, once, the tables of each peña
he belongs to (``pena_lobby``), then a peña's whole list again whenever it changes
(``pena_tables``: a peña has a few tables, not thousands). Who belongs is asked of the club at
each change of a peña's tables, not copied once: a member removed meanwhile is told the section
is gone (``member`` false) and hears nothing more of it, and one who joined gets it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import msgspec

from tranque.club.ports import LobbyDirectory

log = logging.getLogger("tranque.club")

TICK = 0.25  # seconds between two writes / looks
Push = Callable[[bytes], None]  # queues an encoded frame for one socket; never blocks
_encode = msgspec.json.Encoder().encode
# The club's answers about peñas (``store.penas``): the peñas a person belongs to, and the
# members of some peñas (by the name their tables carry).
PenasOf = Callable[[str], Awaitable[list[str]]]
MembersOf = Callable[[Sequence[str]], Awaitable[dict[str, set[str]]]]


def summary(
    info: dict[str, Any],
    spectators: int,
    ratings: list[dict[str, Any] | None] | None = None,
    present: list[bool] | None = None,
    profiles: list[str | None] | None = None,
) -> dict[str, Any] | None:
    """A table's line in the lobby, from its ``info``; None when it is not listed (private,
    over, or all its people gone). No seat's guest id leaves: nicknames and bot names only.
    ``profiles``: each seat's account name, what its name links to (``server.seat_ratings``);
    a seat without one has ``profile`` null.
    ``ratings``: each seat's rating under the table's preset (``server.seat_ratings``), once
    looked up. ``present``: which seats have their person connected (the owner's
    ``present``); a person who is not, or is away in the game, is marked ``away``.

    A table whose people have all gone is not listed: before the start, whoever sat there
    would wait for people who are not coming (and then for the bots that play for them); once
    it is on, it ends by itself (``abandoned``). A seat whose person is only away is never
    offered: it is his (``free`` counts the empty seats alone)."""
    settings = info["settings"]
    pena = settings.get("pena")
    if not (settings.get("public") or pena) or info["over"]:
        return None
    rules = settings["rules"]
    seats = [
        {
            "kind": s["kind"],
            "nickname": s["nickname"] if s["kind"] != "empty" else None,
            "bot": s["bot"],
            "rating": ratings[i] if ratings is not None and i < len(ratings) else None,
            "profile": profiles[i]
            if profiles is not None and i < len(profiles) and s["kind"] == "person"
            else None,
            "away": s["kind"] == "person"
            and (bool(s.get("away")) or (present is not None and not present[i])),
        }
        for i, s in enumerate(info["seats"])
    ]
    people = [s for s in seats if s["kind"] == "person"]
    if people and all(s["away"] for s in people):
        return None
    free = sum(1 for s in info["seats"] if s["kind"] == "empty")
    return {
        "table": info["table"],
        "variant": rules if isinstance(rules, str) else "custom",
        "move_clock": settings["move_clock"],
        "seats": seats,
        "free": free,
        "spectators": spectators,
        "status": "playing" if info["started"] else "waiting",
        "stake": settings.get("stake") or 0,  # chips per person (0: a free table)
        **({"pena": pena} if pena else {}),  # a peña's table: its page lists it, not the lobby
    }


class LobbyBoard:
    def __init__(self, directory: LobbyDirectory, *, tick: float = TICK) -> None:
        self.directory = directory
        self.tick = tick
        # A directory whose entries expire (Redis) needs them written again now and then.
        ttl = getattr(directory, "ttl", math.inf)
        self.refresh = ttl / 3 if math.isfinite(ttl) else math.inf
        self.mine: dict[str, dict[str, Any]] = {}  # this node's listed tables
        self.dirty: dict[str, dict[str, Any] | None] = {}
        self.sockets: set[Push] = set()
        self.seen = -1
        self.tables: dict[str, dict[str, Any]] = {}  # the listing the sockets have, by table
        self._whole: bytes | None = None  # ``tables`` as one ``lobby`` frame, once asked for
        self._task: asyncio.Task[None] | None = None
        # Peñas: each peña's lines (by table), and each viewer's (guest, peñas he is shown).
        self.pena_lines: dict[str, dict[str, dict[str, Any]]] = {}
        self.viewers: dict[Push, tuple[str, set[str]]] = {}
        self.penas_of: PenasOf | None = None  # set by the server once the club is up
        self.members_of: MembersOf | None = None
        self.stale: set[str] = set()  # peñas whose members changed on this node: asked again

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="lobby board")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def touch(
        self,
        info: dict[str, Any],
        spectators: int,
        ratings: list[dict[str, Any] | None] | None = None,
        present: list[bool] | None = None,
        profiles: list[str | None] | None = None,
    ) -> None:
        """A table of this node may have changed (called by its owner: cheap, never blocks)."""
        table = info["table"]
        line = summary(info, spectators, ratings, present, profiles)
        if line == self.mine.get(table) and table not in self.dirty:
            return
        if line is None:
            self.mine.pop(table, None)
        else:
            self.mine[table] = line
        self.dirty[table] = line

    def members_changed(self, pena: str) -> None:
        """Somebody joined or left the peña on this node (cheap, never blocks): at the next
        look its viewers are asked again, so an open lobby shows or drops its section at once
        rather than at the next change of its tables."""
        self.stale.add(pena)

    def gone(self, table: str) -> None:
        """The table left this node (over, dropped, moved): out of the lobby, for this node."""
        if self.mine.pop(table, None) is not None:
            self.dirty[table] = None

    async def subscribe(self, push: Push, guest: str | None = None) -> None:
        """A lobby socket: the listing now, then every change. ``guest``: an account's, whose
        peñas' tables it is shown as well (``pena_lobby``, then ``pena_tables``)."""
        if not self.sockets or self.seen < 0:  # the loop looks only while somebody watches
            try:
                await self._look()
            except Exception:
                log.warning("the lobby could not be reached", exc_info=True)
        self.sockets.add(push)  # after the look: the listing once, then the changes after it
        push(self.whole())
        if guest is None or self.penas_of is None:
            return
        try:
            names = await self.penas_of(guest)
        except Exception:
            log.warning("a viewer's peñas could not be read", exc_info=True)
            return
        if push not in self.sockets:  # gone meanwhile
            return
        # From the read of ``pena_lines`` to the registration nothing yields: the lists sent
        # now are the ones the next changes follow.
        self.viewers[push] = (guest, set(names))
        sections = [{"pena": n, "tables": self._pena_listing(n)} for n in names]
        push(_encode({"type": "pena_lobby", "penas": sections}))

    def _pena_listing(self, pena: str) -> list[dict[str, Any]]:
        return _ordered(list(self.pena_lines.get(pena, {}).values()))

    def whole(self) -> bytes:
        """The listing as the sockets have it, as one ``lobby`` frame (encoded once per
        version, however many sockets come)."""
        if self._whole is None:
            lines = _ordered(list(self.tables.values()))
            self._whole = _encode({"type": "lobby", "tables": lines})
        return self._whole

    def unsubscribe(self, push: Push) -> None:
        self.sockets.discard(push)
        self.viewers.pop(push, None)

    async def listing(self, pena: str | None = None) -> list[dict[str, Any]]:
        """The lobby's tables (``pena`` None), or the tables of the peña called ``pena``."""
        await self.flush()
        _, tables = await self.directory.listing()
        return _ordered([t for t in tables if t.get("pena") == pena])

    async def flush(self) -> None:
        dirty, self.dirty = self.dirty, {}
        for table, line in dirty.items():
            if line is None:
                await self.directory.remove(table)
            else:
                await self.directory.put(table, line)

    async def _look(self) -> None:
        version = await self.directory.version()
        if version == self.seen:
            if self.stale:
                await self._pena_look(self.pena_lines)
            return
        self.seen, listing = await self.directory.listing()
        # A peña's tables are its members' (its page lists them): never in the lobby's frames.
        tables = {line["table"]: line for line in listing if not line.get("pena")}
        by_pena: dict[str, dict[str, dict[str, Any]]] = {}
        for line in listing:
            if line.get("pena"):
                by_pena.setdefault(line["pena"], {})[line["table"]] = line
        changed = [line for table, line in tables.items() if self.tables.get(table) != line]
        gone = sorted(table for table in self.tables if table not in tables)
        # From here to the pushes nothing yields: every socket's listing follows ``tables``.
        self.tables = tables
        if changed or gone:
            self._whole = None
            changes = _encode({"type": "lobby_changes", "tables": _ordered(changed), "gone": gone})
            for push in list(self.sockets):
                push(changes)
        await self._pena_look(by_pena)

    async def _pena_look(self, by_pena: dict[str, dict[str, dict[str, Any]]]) -> None:
        """The peñas whose tables changed: each one's list to the viewers who belong to it
        (asked now), and the end of its section to those who no longer do."""
        stale, self.stale = self.stale, set()
        moved = sorted(
            p for p in self.pena_lines.keys() | by_pena.keys() | stale
            if self.pena_lines.get(p) != by_pena.get(p) or p in stale
        )  # fmt: skip
        members: dict[str, set[str]] = {}
        if moved and self.viewers and self.members_of is not None:
            try:
                members = await self.members_of(moved)
            except Exception:
                self.seen = -1  # nothing was sent: the next tick looks again
                self.stale |= stale
                raise
        # From here to the pushes nothing yields: a viewer who came during the question got
        # the lists before these, and gets these now.
        self.pena_lines = by_pena
        for pena in moved if self.viewers else ():
            listing = _encode(
                {"type": "pena_tables", "pena": pena, "member": True,
                 "tables": self._pena_listing(pena)}
            )  # fmt: skip
            for push, (guest, shown) in self.viewers.items():
                if guest in members.get(pena, ()):
                    shown.add(pena)
                    push(listing)
                elif pena in shown:
                    shown.discard(pena)
                    push(_encode({"type": "pena_tables", "pena": pena, "member": False,
                                  "tables": []}))  # fmt: skip

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        refreshed = loop.time()
        while True:
            try:
                if loop.time() - refreshed >= self.refresh:
                    refreshed = loop.time()
                    for table, line in self.mine.items():
                        self.dirty.setdefault(table, line)
                await self.flush()
                if self.sockets:  # a look costs a round trip to the directory: only for readers
                    await self._look()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("the lobby could not be reached", exc_info=True)
            await asyncio.sleep(self.tick)


def _ordered(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tables with free seats first (fewest free first: closest to starting), then the ones
    being played; by id within each, so that the order is stable."""
    return sorted(tables, key=lambda t: (t["status"] != "waiting", t["free"], t["table"]))
