"""The Redis bus's own connections (``runtime.resp``), on the real Redis: order, the count of
listeners, and a broken link said out loud."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import hiredis
from hypothesis import given, settings
from hypothesis import strategies as st

from tranque.runtime.redis_bus import RedisBus
from tranque.runtime.resp import pack
from tranque.table.bus import Close, Envelope, Frames, Moved


@given(st.lists(st.binary(max_size=300), min_size=1, max_size=6))
@settings(max_examples=100)
def test_a_packed_command_reads_back_as_the_same_parts(parts: list[bytes]) -> None:
    reader = hiredis.Reader()
    reader.feed(pack(*parts))
    assert reader.gets() == parts
    assert reader.gets() is False


class Heard:
    """A node's receiver; ``changed`` may be shared by several, to wait on any of them."""

    def __init__(self, changed: asyncio.Event | None = None) -> None:
        self.got: list[Envelope] = []
        self.gone: list[str] = []
        self.lost = 0
        self.changed = changed or asyncio.Event()

    def received(self, envelope: Envelope) -> None:
        self.got.append(envelope)
        self.changed.set()

    def unreachable(self, node: str) -> None:
        self.gone.append(node)
        self.changed.set()

    def bus_lost(self) -> None:
        self.lost += 1
        self.changed.set()

    async def until(self, done: Any) -> None:
        async with asyncio.timeout(10):
            while not done():
                self.changed.clear()
                await self.changed.wait()


def test_messages_arrive_in_order_and_a_node_nobody_hears_is_said_gone(redis_url: str) -> None:
    async def go() -> None:
        ns = secrets.token_hex(4)  # no other test's cluster hears these
        a, b = RedisBus(redis_url, "a", ns), RedisBus(redis_url, "b", ns)
        ha, hb = Heard(), Heard()
        await a.start(ha)
        await b.start(hb)
        try:
            assert a.healthy and b.healthy
            for i in range(200):  # over many turns of the loop and within one
                a.send("b", Close(i, 1001, "x" * (i % 7)))
                if i % 50 == 0:
                    await asyncio.sleep(0)
            a.broadcast(Moved("t1", "a"))
            a.send("nobody", Close(0, 1001, "lost"))
            await hb.until(lambda: len(hb.got) == 201)
            await ha.until(lambda: ha.gone)
            assert [e.body.conn for e in hb.got[:200]] == list(range(200))  # type: ignore[union-attr]
            assert [e.n for e in hb.got[:200]] == list(range(1, 201))
            assert hb.got[200].body == Moved("t1", "a")
            assert ha.gone == ["nobody"]
            assert ha.got == []  # a node does not hear its own broadcast
            assert ha.lost == hb.lost == 0
        finally:
            await a.close()
            await b.close()

    asyncio.run(go())


def test_a_broken_subscription_is_a_lost_bus_and_is_made_again(redis_url: str) -> None:
    async def go() -> None:
        ns = secrets.token_hex(4)
        a, b = RedisBus(redis_url, "a", ns), RedisBus(redis_url, "b", ns)
        changed = asyncio.Event()
        ha, hb = Heard(changed), Heard(changed)
        await a.start(ha)
        await b.start(hb)
        try:
            assert b._sub is not None
            b._sub.close()  # as if Redis dropped the connection
            await hb.until(lambda: hb.lost)
            assert not b.healthy
            # Until b listens again, what a sends it is heard by nobody, and a is told so.
            while not hb.got:
                told = len(ha.gone)
                a.send("b", Close(7, 1001, "after"))
                await hb.until(lambda: hb.got or len(ha.gone) > told)  # noqa: B023
            assert b.healthy
            assert {e.body for e in hb.got} == {Close(7, 1001, "after")}
            assert set(ha.gone) <= {"b"}
        finally:
            await a.close()
            await b.close()

    asyncio.run(go())


def test_frames_within_a_linger_are_one_message_and_keep_their_order(redis_url: str) -> None:
    async def go() -> None:
        ns = secrets.token_hex(4)
        a, b = RedisBus(redis_url, "a", ns, linger=0.05), RedisBus(redis_url, "b", ns)
        ha, hb = Heard(), Heard()
        await a.start(ha)
        await b.start(hb)
        try:
            a.send("b", Frames([(1, b"f1")]))
            await asyncio.sleep(0)  # another turn of the loop, within the linger
            a.send("b", Frames([(2, b"f2"), (1, b"f3")]))
            a.send("b", Close(2, 1001, "bye"))  # frames after it must not jump ahead of it
            a.send("b", Frames([(1, b"f4")]))
            a.broadcast(Moved("t1", "a"))
            a.send("b", Frames([(1, b"f5")]))
            await hb.until(lambda: len(hb.got) == 5)
            await asyncio.sleep(0.1)  # nothing more comes
            assert [e.body for e in hb.got] == [
                Frames([(1, b"f1"), (2, b"f2"), (1, b"f3")]),
                Close(2, 1001, "bye"),
                Frames([(1, b"f4")]),
                Moved("t1", "a"),
                Frames([(1, b"f5")]),
            ]
            assert [e.n for e in hb.got] == [1, 2, 3, 0, 4]  # the counter has no gap
            assert ha.lost == hb.lost == 0 and ha.gone == []
        finally:
            await a.close()
            await b.close()

    asyncio.run(go())
