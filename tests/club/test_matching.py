"""The queue's pure rule: who sits with whom, drawn over real queues so failures shrink."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tranque.club.matching import Ticket, form_tables
from tranque.club.ports import LocalQueue, QueueError

FILL = 15.0


@st.composite
def queues(draw: st.DrawFn) -> tuple[list[Ticket], float]:
    n = draw(st.integers(0, 14))
    tickets = []
    parties = [f"p{i}" for i in range(3)]
    for i in range(n):
        party = draw(st.sampled_from([None, None, *parties]))
        since = draw(st.floats(0, 40))
        rating = draw(st.floats(1000, 2000))
        tickets.append(Ticket(f"g{i}", f"n{i}", "havana", since, party, rating))
    return tickets, draw(st.floats(0, 60))


@given(queues())
def test_every_table_is_a_fair_seating_of_people_who_wait(q: tuple[list[Ticket], float]) -> None:
    tickets, now = q
    tables = form_tables(tickets, now, fill=FILL)
    seated = [t.guest for s in tables for t in s.people]
    pairs = {p: sum(t.party == p for t in tickets) for p in {t.party for t in tickets} if p}
    assert len(seated) == len(set(seated))  # nobody twice
    for s in tables:
        people = s.people
        assert 1 <= len(people) <= 4
        if len(people) < 4:  # bots come only for someone who waited the fill time
            assert any(now - t.since >= FILL for t in people)
        for a in range(4):
            for b in range(4):
                x, y = s.seats[a], s.seats[b]
                if x and y and a != b and x.party and x.party == y.party and pairs[x.party] == 2:
                    assert a % 2 == b % 2, "friends of a party are partners"
    left = [t for t in tickets if t.guest not in seated]
    # Nobody left waiting could have made a full table of four singles among themselves.
    singles = [t for t in left if t.party is None]
    assert len(singles) < 4


def test_four_arrive_and_sit_at_once_three_wait_until_the_fill_time() -> None:
    three = [Ticket(f"g{i}", f"n{i}", "havana", 100.0 + i) for i in range(3)]
    assert form_tables(three, 110.0, fill=FILL) == []
    (table,) = form_tables(three, 115.0, fill=FILL)
    assert table.seats.count(None) == 1 and len(table.people) == 3
    four = [*three, Ticket("g3", "n3", "havana", 103.5)]
    (full,) = form_tables(four, 104.0, fill=FILL)
    assert None not in full.seats


def test_closest_ratings_first_once_enough_wait() -> None:
    ratings = [1500, 1900, 1510, 1890, 1520, 1880, 1530, 1870]
    tickets = [Ticket(f"g{i}", f"n{i}", "havana", float(i), None, r) for i, r in enumerate(ratings)]
    tables = form_tables(tickets, 10.0, fill=FILL)
    assert [sorted(t.rating for t in s.people) for s in tables] == [
        [1500, 1510, 1520, 1530],
        [1870, 1880, 1890, 1900],
    ]
    # Fewer than eight: the order of arrival.
    (first,) = form_tables(tickets[:5], 10.0, fill=FILL)
    assert sorted(t.guest for t in first.people) == ["g0", "g1", "g2", "g3"]


def test_the_local_queue_seats_each_ticket_once_and_refuses_a_third_friend() -> None:
    async def go() -> None:
        q = LocalQueue()
        for i in range(2):
            await q.join(Ticket(f"f{i}", "f", "havana", 0.0, "party-1"))
        try:
            await q.join(Ticket("f2", "f", "havana", 0.0, "party-1"))
        except QueueError as exc:
            assert exc.code == "party_full"
        else:
            raise AssertionError("a third friend was let in")
        assert await q.leave("f1") and not await q.leave("f1")
        # A party waits for its friend, however long.
        assert await q.take("havana", 100.0, FILL) == []
        await q.join(Ticket("f1", "f", "havana", 80.0, "party-1"))
        (table,) = await q.take("havana", 100.0, FILL)
        assert [t and t.guest for t in table.seats] == ["f0", None, "f1", None]
        assert await q.take("havana", 100.0, FILL) == []

    asyncio.run(go())


def test_a_guest_whose_ticket_was_lost_is_told_and_a_seated_one_is_told_where() -> None:
    from tranque.club.quickmatch import QuickMatch

    async def go() -> None:
        clock = [100.0]
        q = LocalQueue()
        opened: list[list[str | None]] = []

        async def open_table(seating: Any) -> str:
            opened.append([t and t.guest for t in seating.seats])
            return "t1"

        qm = QuickMatch(q, open_table, lambda: clock[0], fill=FILL, variants=["havana"])
        told: dict[str, list[dict[str, Any]]] = {"a": [], "b": []}
        for g in told:
            await qm.join(Ticket(g, g, "havana", clock[0]), told[g].append)
        await qm.step()
        # "a" was answered 1 when he came; "b" came after: "a" is told the new count.
        assert opened == [] and told == {"a": [count(2)], "b": []}
        del q.tickets["b"]  # as after a Redis restart
        clock[0] += 1
        await qm.step()
        assert told["b"] == []  # not yet: a ticket is missing a moment while its table opens
        assert told["a"] == [count(2), count(1)]
        clock[0] += FILL
        await qm.step()
        assert opened == [["a", None, None, None]]
        assert told["a"][2:] == [{"type": "matched", "table": "t1", "seat": 0}]
        assert told["b"] == [{"type": "unqueued", "reason": "lost"}]

    asyncio.run(go())


def count(n: int) -> dict[str, Any]:
    return {"type": "queue_count", "waiting": n}


def test_the_count_is_pushed_to_everyone_waiting_when_it_changes_and_only_then() -> None:
    """Issue 29, bug 10: the first to come read "just you" while the third read "3"."""
    from tranque.club.quickmatch import QuickMatch

    async def go() -> None:
        q = LocalQueue()

        async def open_table(seating: Any) -> str:
            return "t1"

        qm = QuickMatch(q, open_table, lambda: 100.0, fill=FILL, variants=["havana", "miami"])
        told: dict[str, list[dict[str, Any]]] = {g: [] for g in "abcm"}
        answers = {}
        for g in "abc":
            answers[g] = await qm.join(Ticket(g, g, "havana", 100.0), told[g].append)
            await qm.step()
        await qm.join(Ticket("m", "m", "miami", 100.0), told["m"].append)  # another queue
        await qm.step()
        await qm.step()  # nothing changed: nothing more is sent
        assert [answers[g]["waiting"] for g in "abc"] == [1, 2, 3]
        assert told == {"a": [count(2), count(3)], "b": [count(3)], "c": [], "m": []}
        await qm.leave("b")
        await qm.step()
        assert told["a"][-1] == told["c"][-1] == count(2) and told["m"] == []

    asyncio.run(go())


def test_a_party_is_seated_at_its_first_friends_fill_time_not_the_seconds_friends() -> None:
    """Issue 29, bug 15: the fill clock restarted when the friend came (35 s, not 15)."""
    first = Ticket("f0", "f", "havana", 0.0, "p1")
    friend = Ticket("f1", "f", "havana", 10.0, "p1")
    assert form_tables([first, friend], FILL - 1, fill=FILL) == []
    (table,) = form_tables([first, friend], FILL, fill=FILL)  # 15 s after the first came
    assert [t and t.guest for t in table.seats] == ["f0", None, "f1", None]


def test_making_a_party_or_queueing_again_keeps_the_clock_and_the_friend_learns_who() -> None:
    from tranque.club.quickmatch import QuickMatch

    async def go() -> None:
        q = LocalQueue()

        async def open_table(seating: Any) -> str:
            return "t1"

        qm = QuickMatch(q, open_table, lambda: 100.0, fill=FILL, variants=["havana", "miami"])
        first = await qm.join(Ticket("ana", "Ana", "havana", 100.0), lambda f: None)
        party = await qm.join(Ticket("ana", "Ana", "havana", 107.0, "p1"), lambda f: None)
        assert party["since"] == first["since"] == 100.0 and party["partner"] is None
        friend = await qm.join(Ticket("bea", "Bea", "havana", 110.0, "p1"), lambda f: None)
        assert friend["partner"] == "Ana"
        other = await qm.join(Ticket("ana", "Ana", "miami", 111.0), lambda f: None)
        assert other["since"] == 111.0  # another queue: arriving anew

    asyncio.run(go())


@st.composite
def queues_with_blocks(draw: st.DrawFn) -> tuple[list[Ticket], float, set[frozenset[str]]]:
    """Real queues where some people block others: a block is known to both tickets (the
    server reads both directions when a person queues)."""
    tickets, now = draw(queues())
    guests = [t.guest for t in tickets]
    blocked: set[frozenset[str]] = set()
    if len(guests) >= 2:
        pairs = st.tuples(st.sampled_from(guests), st.sampled_from(guests))
        blocked = {frozenset(p) for p in draw(st.lists(pairs, max_size=12)) if p[0] != p[1]}
    with_avoid = [
        Ticket(t.guest, t.nickname, t.variant, t.since, t.party, t.rating,
               tuple(sorted(g for p in blocked if t.guest in p for g in p if g != t.guest)))
        for t in tickets
    ]  # fmt: skip
    return with_avoid, now, blocked


@given(queues_with_blocks())
def test_two_people_of_whom_one_blocks_the_other_never_sit_together(
    q: tuple[list[Ticket], float, set[frozenset[str]]],
) -> None:
    tickets, now, blocked = q
    tables = form_tables(tickets, now, fill=FILL)
    seated = [t.guest for s in tables for t in s.people]
    assert len(seated) == len(set(seated))
    for s in tables:
        people = [t.guest for t in s.people]
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                assert frozenset((a, b)) not in blocked, (a, b)  # a party's friends too
        if len(people) < 4:
            assert any(now - t.since >= FILL for t in s.people)


def test_a_blocked_person_waits_for_another_table_rather_than_sit_with_his_blocker() -> None:
    t = [Ticket(f"g{i}", f"n{i}", "havana", float(i)) for i in range(5)]
    t[0] = Ticket("g0", "n0", "havana", 0.0, avoid=("g1",))
    t[1] = Ticket("g1", "n1", "havana", 1.0, avoid=("g0",))
    [table] = form_tables(t, 2.0, fill=FILL)
    assert sorted(p.guest for p in table.people) == ["g0", "g2", "g3", "g4"]
    # At the fill time he is seated with bots rather than with him.
    tables = form_tables(t[:2], 20.0, fill=FILL)
    assert [[p.guest for p in s.people] for s in tables] == [["g0"], ["g1"]]
