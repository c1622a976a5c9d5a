"""The presence port: where each person is, as every node sees him (``PresenceDirectory``).

A node knows its own sockets; a person may have sockets on several nodes (a phone and a
laptop). Each node writes, per person, the status of his sockets on that node (``put``), and
reads the statuses every node wrote (``statuses``): the person's status is the most engaged of
them (``club.friends.best``). Two adapters: ``LocalPresence`` here (one node) and
``runtime.redis_presence.RedisPresence`` (every node's, on Redis, each entry with an expiry
its node renews, so a dead node's people go offline by themselves).
"""

from __future__ import annotations

from typing import Protocol

from tranque.club.friends import Status, best


class PresenceDirectory(Protocol):
    async def put(self, guest: str, node: str, status: Status | None) -> None:
        """This node's status of ``guest`` (None: no socket of his here any more)."""
        ...

    async def statuses(self, guests: list[str]) -> dict[str, Status]:
        """The status of each of these people who is online anywhere (the others are absent)."""
        ...

    async def renew(self, node: str, guests: list[str]) -> None:
        """This node still holds these people's sockets (their entries do not expire)."""
        ...

    async def close(self) -> None: ...


class LocalPresence:
    """One node: the statuses in a dict."""

    def __init__(self) -> None:
        self._by: dict[str, dict[str, Status]] = {}

    async def put(self, guest: str, node: str, status: Status | None) -> None:
        nodes = self._by.setdefault(guest, {})
        if status is None:
            nodes.pop(node, None)
            if not nodes:
                del self._by[guest]
        else:
            nodes[node] = status

    async def statuses(self, guests: list[str]) -> dict[str, Status]:
        out: dict[str, Status] = {}
        for g in guests:
            s = best(self._by.get(g, {}).values())
            if s is not None:
                out[g] = s
        return out

    async def renew(self, node: str, guests: list[str]) -> None:
        return None

    async def close(self) -> None:
        return None
