"""The club's news on this node: which sockets listen for a person's notices and friends, where
each person is, and pushing a frame to some people wherever their sockets are.

A socket listens once it said ``notices`` with an account's token (the page opens one for the
bell). Every socket of an account (at a table, watching, in the queue, listening) counts for
where he is (``club.friends.best``). When that changes here, the node writes it to the presence
directory (every node's, ``club.presence``), reads the person's status across the nodes, and,
unless he hides it, tells his friends' listening sockets on every node (``presence`` frames,
through the bus's ``Pushed``). Each person's changes are told in order, one at a time: a
socket opened and closed at once never ends with "online" told last.

Only account holders have friends: a guest's sockets cost one comparison here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tranque.club.friends import Friends, Notice, Status, best
from tranque.club.presence import PresenceDirectory
from tranque.store.friends import SqlFriends
from tranque.table.bus import Bus, Pushed
from tranque.table.owner_frames import frame

if TYPE_CHECKING:
    from tranque.server.connection import Connection

log = logging.getLogger("tranque.server")

RENEW_EVERY = 5.0  # seconds between renewals of this node's people in the directory
NOTICES_SENT = 20  # the newest notices a listening socket gets when it starts listening


def status_of(conn: Connection) -> Status | None:
    """Where one socket says its person is."""
    if conn.owner is not None:
        return Status("watching" if conn.watcher else "playing", conn.owner.table_id)
    if conn.queued:
        return Status("queued")
    if conn.listening:
        return Status("online")
    return None


class ClubNews:
    """Listening sockets, statuses and pushes of this node."""

    def __init__(
        self, rows: SqlFriends, directory: PresenceDirectory, node: str, bus: Bus | None
    ) -> None:
        self.rows = rows
        self.friends = Friends(rows)
        self.directory = directory
        self.node = node
        self.bus = bus
        self.sockets: dict[str, set[Connection]] = {}  # an account's sockets here
        self.listeners: dict[str, set[Connection]] = {}  # ... those that listen
        self.local: dict[str, Status] = {}  # each account's status on this node
        self.told: dict[str, Status | None] = {}  # what his friends were told last (here)
        self._dirty: set[str] = set()
        self._running: dict[str, asyncio.Task[None]] = {}
        self._renewer: asyncio.Task[None] | None = None
        self.counts = {"pushed": 0, "presence": 0}

    def start(self) -> None:
        self._renewer = asyncio.create_task(self._renew())

    async def close(self) -> None:
        tasks = [t for t in (self._renewer, *self._running.values()) if t is not None]
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        await self.directory.close()

    # -- sockets ----

    def changed(self, conn: Connection, gone: bool = False) -> None:
        """A socket of an account opened, moved (a table, the queue) or closed."""
        guest = conn.guest
        if guest is None or conn.session is None:
            return  # a guest: no friends, nothing to tell
        mine = self.sockets.setdefault(guest, set())
        if gone:
            mine.discard(conn)
            listening = self.listeners.get(guest)
            if listening is not None:
                listening.discard(conn)
                if not listening:
                    del self.listeners[guest]
        else:
            mine.add(conn)
            if conn.listening:
                self.listeners.setdefault(guest, set()).add(conn)
        if not mine:
            del self.sockets[guest]
        status = best(status_of(c) for c in mine)
        if status == self.local.get(guest):
            return
        if status is None:
            self.local.pop(guest, None)
        else:
            self.local[guest] = status
        self.touch(guest)

    def touch(self, guest: str) -> None:
        """Tell the person's friends where he is, if that changed (his sockets, his privacy)."""
        self._dirty.add(guest)
        if guest not in self._running:
            self._running[guest] = asyncio.create_task(self._announce(guest))

    async def _announce(self, guest: str) -> None:
        try:
            while guest in self._dirty:
                self._dirty.discard(guest)
                try:
                    await self._tell_friends(guest)
                except Exception:
                    log.warning("a change of presence could not be told", exc_info=True)
        finally:
            self._running.pop(guest, None)

    async def _tell_friends(self, guest: str) -> None:
        await self.directory.put(guest, self.node, self.local.get(guest))
        status = (await self.directory.statuses([guest])).get(guest)
        if not (await self.rows.privacy_of(guest)).show_online:
            status = None
        if guest in self.told and self.told[guest] == status:
            return
        self.told[guest] = status
        if status is None and guest not in self.local:
            self.told.pop(guest, None)  # forget him: nothing of his stays in memory here
        friends = await self.rows.friends_of(guest)
        if not friends:
            return
        name = (await self.rows.names([guest])).get(guest)
        if name is None:
            return
        self.counts["presence"] += 1
        self.push(friends, presence_frame(name, status))

    async def shown(self, guests: list[str]) -> dict[str, Status]:
        """Where each of these people is, for those who are online and let it be shown."""
        statuses = await self.directory.statuses(guests)
        if not statuses:
            return {}
        privacies = await self.rows.privacies(list(statuses))
        return {g: s for g, s in statuses.items() if privacies[g].show_online}

    async def listen(self, conn: Connection) -> None:
        """A socket starts listening: the person's unread count and newest notices first."""
        assert conn.guest is not None
        conn.listening = True
        self.changed(conn)
        unread = await self.rows.unread(conn.guest)
        latest = await self.rows.notices(conn.guest, None, NOTICES_SENT)
        conn.tell({"type": "notices", "unread": unread, "latest": [n.to_json() for n in latest]})

    # -- pushing ----

    def push(self, guests: Iterable[str], data: bytes) -> None:
        """A frame for the listening sockets of these people, on this node and every other."""
        guests = list(guests)
        self.deliver(guests, data)
        if self.bus is not None:
            self.bus.broadcast(Pushed(guests, data))

    def deliver(self, guests: Iterable[str], data: bytes) -> None:
        """A frame for the listening sockets of these people on this node."""
        for g in guests:
            for conn in self.listeners.get(g, ()):
                self.counts["pushed"] += 1
                conn.push(data)

    def pushed(self, msg: Pushed) -> None:
        """Another node's push (the bus)."""
        self.deliver(msg.guests, msg.frame)

    def notice(self, guest: str, notice: Notice, unread: int) -> None:
        self.push([guest], frame({"type": "notice", "notice": notice.to_json(), "unread": unread}))

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY)
            with contextlib.suppress(Exception):
                await self.directory.renew(self.node, list(self.local))


def presence_frame(name: str, status: Status | None) -> bytes:
    body: dict[str, Any] = {"type": "presence", "friend": name}
    body.update(status.to_json() if status is not None else {"status": None, "table": None})
    return frame(body)
