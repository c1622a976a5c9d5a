"""The queue's ports say in one look which queues somebody waits in, on both adapters; and the
lobby's board asks its directory nothing while no socket watches the lobby."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

import pytest

from tranque.club.lobby import LobbyBoard
from tranque.club.matching import Ticket
from tranque.club.ports import LocalDirectory, LocalQueue, MatchQueue

QUEUES = ("havana", "miami", "havana@100", "barrio@10000")


async def _busy_follows_the_tickets(q: MatchQueue) -> None:
    assert await q.busy(QUEUES) == []
    await q.join(Ticket("a", "a", "barrio@10000", 1.0))
    await q.join(Ticket("b", "b", "miami", 1.0))
    # In the order asked, whatever the order of arrival.
    assert await q.busy(QUEUES) == ["miami", "barrio@10000"]
    assert await q.busy(["havana"]) == []
    await q.join(Ticket("a", "a", "havana", 2.0))  # a ticket replaces the guest's earlier one
    assert await q.busy(QUEUES) == ["havana", "miami"]
    assert await q.leave("b")
    seated = await q.take("havana", 100.0, 15.0)  # past the fill time: seated with bots
    assert [t.guest for s in seated for t in s.people] == ["a"]
    assert await q.busy(QUEUES) == []


def test_the_local_queue_says_which_queues_are_busy() -> None:
    asyncio.run(_busy_follows_the_tickets(LocalQueue()))


def test_the_redis_queue_says_which_queues_are_busy_in_one_round_trip(redis_url: str) -> None:
    from tranque.runtime.redis_club import RedisQueue

    async def go() -> None:
        q = RedisQueue(redis_url, "test-" + secrets.token_hex(6))
        calls: list[str] = []
        client: Any = q._client
        execute = client.execute_command

        async def counted(*args: Any, **kw: Any) -> Any:
            calls.append(str(args[0]))
            return await execute(*args, **kw)

        try:
            await _busy_follows_the_tickets(q)
            client.execute_command = counted
            for _ in range(5):
                assert await q.busy(QUEUES) == []
            assert calls == []  # each look was one pipeline, not a command per queue
        finally:
            keys = [k async for k in client.scan_iter(match=q.prefix + "*")]
            if keys:
                await client.delete(*keys)
            await q.close()

    asyncio.run(go())


async def _singles_for_a_free_seat(q: MatchQueue) -> None:
    """A table's free seat (``fill``) takes people who wait alone, the longest-waiting first,
    each once; a party's friends are left to be seated together."""
    await q.join(Ticket("late", "late", "oriente@100", 5.0))
    await q.join(Ticket("early", "early", "oriente@100", 1.0))
    await q.join(Ticket("f1", "f1", "oriente@100", 0.5, party="p"))
    await q.join(Ticket("other", "other", "oriente", 0.1))
    assert [t.guest for t in await q.take_singles("oriente@100", 1)] == ["early"]
    assert [t.guest for t in await q.take_singles("oriente@100", 5)] == ["late"]
    assert await q.take_singles("oriente@100", 1) == []
    assert await q.present(["early", "late", "f1", "other"]) == {"f1", "other"}


def test_a_free_seat_takes_the_longest_waiting_single_on_both_adapters(redis_url: str) -> None:
    from tranque.runtime.redis_club import RedisQueue

    asyncio.run(_singles_for_a_free_seat(LocalQueue()))

    async def go() -> None:
        q = RedisQueue(redis_url, "test-" + secrets.token_hex(6))
        try:
            await _singles_for_a_free_seat(q)
        finally:
            client: Any = q._client
            keys = [k async for k in client.scan_iter(match=q.prefix + "*")]
            if keys:
                await client.delete(*keys)
            await q.close()

    asyncio.run(go())


class CountingDirectory(LocalDirectory):
    """The in-process directory, counting the looks at its version."""

    def __init__(self) -> None:
        super().__init__()
        self.looks = 0

    async def version(self) -> int:
        self.looks += 1
        return await super().version()


@pytest.mark.parametrize("watched", [False, True])
def test_the_board_looks_at_the_directory_only_while_somebody_watches(watched: bool) -> None:
    async def go() -> None:
        directory = CountingDirectory()
        board = LobbyBoard(directory, tick=0.001)
        got: list[dict[str, Any]] = []

        def push(frame: bytes) -> None:
            got.append(json.loads(frame))

        board.start()
        try:
            if watched:
                await board.subscribe(push)
            before = directory.looks
            await directory.put("t1", {"table": "t1", "status": "waiting", "free": 3})
            for _ in range(200):
                await asyncio.sleep(0.001)
                if watched and len(got) > 1:
                    break
            if watched:
                assert directory.looks > before
                assert got[-1]["tables"] == [{"table": "t1", "status": "waiting", "free": 3}]
            else:
                assert directory.looks == 0
                # A socket that comes later gets the listing as it is now, not an old one.
                await board.subscribe(push)
                assert got == [{"type": "lobby", "tables": [directory.summaries["t1"]]}]
        finally:
            await board.close()

    asyncio.run(go())
