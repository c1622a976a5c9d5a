"""People of the tournament tests: accounts formed into pairs, their bells, and a player who
goes to his table when his bell rings and plays it to the end (random legal moves)."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from friends_client import Sock, account, call, listen, ok

from tranque.client import TableClient, random_legal

LIMITS = ["--claims-per-minute", "600", "--claim-burst", "200"]
LIMITS += ["--guests-per-minute", "600", "--guest-burst", "200"]


@dataclass
class Person:
    name: str
    token: str
    bell: Sock
    clients: list[TableClient] = field(default_factory=list)
    seats: dict[str, int] = field(default_factory=dict)  # table -> his seat, as his bell said


async def pairs_of(base: str, count: int) -> list[tuple[str, Person, Person]]:
    """``count`` formed pairs (``Pareja-1``...), each of two accounts listening to the bell."""
    out = []
    for n in range(1, count + 1):
        a, b = f"Ana{n}", f"Beto{n}"
        ta, tb = await account(base, a), await account(base, b)
        ok(call(base, "POST", "/api/pairs", ta, {"name": f"Pareja-{n}", "partner": b}))
        ok(call(base, "POST", "/api/pairs/" + f"Pareja-{n}/accept", tb))
        out.append(
            (
                f"Pareja-{n}",
                Person(a, ta, await listen(base, ta)),
                Person(b, tb, await listen(base, tb)),
            )
        )
    return out


def table_notices(person: Person, tournament: str) -> list[dict[str, Any]]:
    return [
        m["notice"]
        for m in person.bell.messages
        if m.get("type") == "notice"
        and m["notice"].get("kind") == "tournament_table"
        and m["notice"].get("tournament") == tournament
    ]


async def play_round(base: str, people: list[Person], tournament: str, round_no: int) -> None:
    """Everyone whose bell rings for round ``round_no`` sits at his table and plays it out."""

    async def one(p: Person) -> None:
        def rung(m: dict[str, Any]) -> bool:
            n = m.get("notice") or {}
            return (
                m.get("type") == "notice"
                and n.get("kind") == "tournament_table"
                and n.get("tournament") == tournament
                and n.get("round") == round_no
            )

        note = (await p.bell.wait(rung, timeout=120))["notice"]
        c = TableClient(base, p.token, note["table"])
        p.seats[note["table"]] = note["seat"]
        p.clients.append(c)
        await c.connect()
        await c.play_game(random_legal, seed=hash(p.name) % 1000, timeout=600)

    await asyncio.gather(*(one(p) for p in people))


def seated_at(people: list[Person], table: str) -> list[TableClient]:
    """The clients at ``table``, in seat order (as the frame scanner takes them)."""
    found = {p.seats[table]: c for p in people for c in p.clients if c.table == table}
    return [found[s] for s in sorted(found)]


async def close_all(people: list[Person]) -> None:
    for p in people:
        await p.bell.close()
        for c in p.clients:
            with contextlib.suppress(Exception):
                await c.close()


async def wait_state(base: str, tid: str, pred: Any, timeout: float = 120) -> dict[str, Any]:
    """The tournament's page once ``pred`` holds (polled, generously bounded)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        page = ok(call(base, "GET", f"/api/tournaments/{tid}"))
        if pred(page):
            return page
        if loop.time() > end:
            raise AssertionError(f"the tournament never got there: {page}")
        await asyncio.sleep(0.3)
