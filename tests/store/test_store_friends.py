"""Friends' rows against a model: any sequence of requests, answers and removals among a few
people leaves friendships symmetric, never beside a request between the same two, and every
refusal changes nothing (``club.friends`` on ``store.friends``, SQLite)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tranque.club.friends import FriendError, Friends, Privacy
from tranque.store import open_store
from tranque.store.friends import SqlFriends

PEOPLE = ["g0", "g1", "g2", "g3"]
OPS = st.lists(
    st.tuples(
        st.sampled_from(["request", "accept", "decline", "remove"]),
        st.sampled_from(PEOPLE),
        st.sampled_from(PEOPLE),
    ),
    max_size=25,
)


class Model:
    def __init__(self) -> None:
        self.friends: set[frozenset[str]] = set()
        self.requests: set[tuple[str, str]] = set()

    def apply(self, op: str, me: str, other: str) -> str | None:
        """The expected answer, or the refusal's code."""
        pair = frozenset((me, other))
        if op == "request":
            if me == other:
                return "self_request"
            if pair in self.friends:
                return "already_friends"
            if (me, other) in self.requests:
                return "already_requested"
            if (other, me) in self.requests:
                self.requests.discard((other, me))
                self.friends.add(pair)
                return "friends"
            self.requests.add((me, other))
            return "sent"
        if op == "accept":
            if (other, me) not in self.requests:
                return "no_request"
            self.requests.discard((other, me))
            self.friends.add(pair)
            return None
        if op == "decline":
            if (other, me) not in self.requests:
                return "no_request"
            self.requests.discard((other, me))
            return None
        if pair in self.friends and me != other:
            self.friends.discard(pair)
            return "removed"
        if (me, other) in self.requests:
            self.requests.discard((me, other))
            return "withdrawn"
        return "not_friends"


async def _run(path: Path, ops: list[tuple[str, str, str]]) -> None:
    store = await open_store(f"sqlite:///{path}")
    try:
        rows = SqlFriends(store)
        friends, model = Friends(rows), Model()
        for n, (op, me, other) in enumerate(ops):
            expected = model.apply(op, me, other)
            try:
                got: Any
                if op == "request":
                    got = await friends.request(me, other, float(n))
                elif op == "accept":
                    got = await friends.accept(me, other, float(n))
                elif op == "decline":
                    got = await friends.decline(me, other)
                else:
                    got = await friends.remove(me, other)
            except FriendError as exc:
                got = exc.code
            assert got == expected, (op, me, other)
        for p in PEOPLE:
            mine = set(await rows.friends_of(p))
            assert mine == {q for q in PEOPLE if frozenset((p, q)) in model.friends}
            incoming, outgoing = await rows.requests_of(p)
            assert set(incoming) == {s for s, r in model.requests if r == p}
            assert set(outgoing) == {r for s, r in model.requests if s == p}
            assert not mine & (set(incoming) | set(outgoing))  # never both
        assert await rows.privacy_of("g0") == Privacy()
    finally:
        await store.close()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_any_sequence_keeps_friendships_symmetric(tmp_path: Path, ops: Any) -> None:
    path = tmp_path / f"f{abs(hash(tuple(ops)))}.db"
    asyncio.run(_run(path, ops))
    path.unlink(missing_ok=True)


def test_notices_are_paged_and_read_per_person(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'n.db'}")
        try:
            rows = SqlFriends(store)
            made = [await rows.add_notice("g0", "invite", {"table": f"t{i}"}, i) for i in range(5)]
            await rows.add_notice("g1", "invite", {"table": "x"}, 9)
            page = await rows.notices("g0", None, 3)
            assert [n.id for n in page] == [m.id for m in reversed(made)][:3]
            rest = await rows.notices("g0", page[-1].id, 3)
            assert [n.body["table"] for n in rest] == ["t1", "t0"]
            assert await rows.mark_read("g1", [m.id for m in made]) == 0  # not his
            assert await rows.mark_read("g0", [made[0].id]) == 1
            assert await rows.unread("g0") == 4 and await rows.unread("g1") == 1
            await rows.set_privacy("g0", Privacy("nobody", False))
            assert await rows.privacy_of("g0") == Privacy("nobody", False)
        finally:
            await store.close()

    asyncio.run(go())
