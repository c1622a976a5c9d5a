"""A recipient gets the same bytes whichever node its socket is on: the same seat watched through
the table's own node and through the other, and two spectators likewise, receive identical
event frames, in the same order, with the same sequence numbers."""

from __future__ import annotations

import asyncio
from typing import Any

from tranque.client import TableClient, create_table, new_guest, random_legal


def _events(c: TableClient) -> list[str]:
    return [f for f in c.frames if f.startswith('{"type":"event"')]


def test_the_same_recipient_gets_the_same_bytes_through_either_node(cluster_factory: Any) -> None:
    cluster = cluster_factory(2)
    owner, other = cluster.bases

    async def go() -> None:
        guests = [await new_guest(owner, f"p{s}") for s in range(4)]
        table = await create_table(owner, guests[0]["token"], rules={"preset": "havana",
                                   "target": 30}, practice=False)  # fmt: skip
        tid = table["table"]
        players = []
        for s, g in enumerate(guests):
            c = TableClient(owner if s % 2 == 0 else other, g["token"], tid)
            await c.connect()
            if s:
                assert (await c.do({"type": "sit", "seat": s}))["type"] == "ack"
            players.append(c)
        # Seat 0's second socket, on the other node; seat 1's on the owner's.
        twins = [
            TableClient(other, guests[0]["token"], tid),
            TableClient(owner, guests[1]["token"], tid),
        ]
        watcher = await new_guest(owner, "w")
        watchers = [TableClient(b, watcher["token"], tid, role="spectator") for b in cluster.bases]
        for c in [*twins, *watchers]:
            await c.connect()
        await asyncio.gather(
            *(c.play_game(random_legal, seed=s, timeout=240) for s, c in enumerate(players))
        )
        for c in [*twins, *watchers]:
            await c.wait_for(lambda c: c.seq == players[0].seq, 30)
        for a, b in ((players[0], twins[0]), (players[1], twins[1]), tuple(watchers)):
            seen_a, seen_b = _events(a), _events(b)
            # From the first event both sockets were open for, the very same bytes.
            first = seen_b[0]
            assert first in seen_a
            tail = seen_a[seen_a.index(first) :]
            assert tail == seen_b and len(tail) > 15  # a hand at least
        assert _events(watchers[0]) != _events(players[0])  # a seat's view is not a watcher's
        for c in [*players, *twins, *watchers]:
            await c.close()

    asyncio.run(go())
