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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable
from typing import Any

import msgspec

from tranque.club.ports import LobbyDirectory

log = logging.getLogger("tranque.club")

TICK = 0.25  # seconds between two writes / looks
Push = Callable[[bytes], None]  # queues an encoded frame for one socket; never blocks
_encode = msgspec.json.Encoder().encode


def summary(
    info: dict[str, Any],
    spectators: int,
    ratings: list[dict[str, Any] | None] | None = None,
) -> dict[str, Any] | None:
    """A table's line in the lobby, from its ``info``; None when it is not listed (private,
    or over). No seat's guest id leaves: nicknames and bot names only. ``ratings``: each
    seat's rating under the table's preset (``server.seat_ratings``), once looked up."""
    settings = info["settings"]
    if not settings.get("public") or info["over"]:
        return None
    rules = settings["rules"]
    seats = [
        {
            "kind": s["kind"],
            "nickname": s["nickname"] if s["kind"] != "empty" else None,
            "bot": s["bot"],
            "rating": ratings[i] if ratings is not None and i < len(ratings) else None,
        }
        for i, s in enumerate(info["seats"])
    ]
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
    ) -> None:
        """A table of this node may have changed (called by its owner: cheap, never blocks)."""
        table = info["table"]
        line = summary(info, spectators, ratings)
        if line == self.mine.get(table) and table not in self.dirty:
            return
        if line is None:
            self.mine.pop(table, None)
        else:
            self.mine[table] = line
        self.dirty[table] = line

    def gone(self, table: str) -> None:
        """The table left this node (over, dropped, moved): out of the lobby, for this node."""
        if self.mine.pop(table, None) is not None:
            self.dirty[table] = None

    async def subscribe(self, push: Push) -> None:
        """A lobby socket: the listing now, then every change."""
        if not self.sockets or self.seen < 0:  # the loop looks only while somebody watches
            try:
                await self._look()
            except Exception:
                log.warning("the lobby could not be reached", exc_info=True)
        self.sockets.add(push)  # after the look: the listing once, then the changes after it
        push(self.whole())

    def whole(self) -> bytes:
        """The listing as the sockets have it, as one ``lobby`` frame (encoded once per
        version, however many sockets come)."""
        if self._whole is None:
            lines = _ordered(list(self.tables.values()))
            self._whole = _encode({"type": "lobby", "tables": lines})
        return self._whole

    def unsubscribe(self, push: Push) -> None:
        self.sockets.discard(push)

    async def listing(self) -> list[dict[str, Any]]:
        await self.flush()
        _, tables = await self.directory.listing()
        return _ordered(tables)

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
            return
        self.seen, listing = await self.directory.listing()
        tables = {line["table"]: line for line in listing}
        changed = [line for table, line in tables.items() if self.tables.get(table) != line]
        gone = sorted(table for table in self.tables if table not in tables)
        # From here to the pushes nothing yields: every socket's listing follows ``tables``.
        self.tables = tables
        if not changed and not gone:
            return
        self._whole = None
        changes = _encode({"type": "lobby_changes", "tables": _ordered(changed), "gone": gone})
        for push in list(self.sockets):
            push(changes)

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
