"""A Swiss of pairs on a cluster (docs/tournaments.md, "The service"): one node runs the
tournaments under the runner's lease; its people listen and play through the other node; when
the running node dies, the other takes the lease over and plays the tournament to its end, no
round started twice and every table the rounds name played."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest
from friends_client import call, ok
from tournament_people import LIMITS, close_all, pairs_of, play_round, wait_state

from tranque.tournament.model import decode

pytestmark = pytest.mark.slow


async def _holder(pg_url: str, timeout: float = 60, besides: str | None = None) -> str:
    """The node holding the runner's lease (another than ``besides``), once one does."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        con = await asyncpg.connect(pg_url)
        try:
            row = await con.fetchrow(
                "SELECT node FROM leases WHERE table_id = '~tournaments'"
                " AND expires > extract(epoch from now())"
            )
        finally:
            await con.close()
        if row is not None and row["node"] != besides:
            return str(row["node"])
        if loop.time() > end:
            raise AssertionError("no node holds the tournaments' lease")
        await asyncio.sleep(0.2)


def test_a_swiss_runs_on_a_cluster_and_survives_its_runners_death(
    cluster_factory: Any, pg_url: str
) -> None:
    cluster = cluster_factory(2, *LIMITS)

    async def go() -> None:
        first = await _holder(pg_url)
        runner = cluster.nodes[int(first[1:]) - 1]
        other = next(n for n in cluster.nodes if n is not runner)
        base = other.base  # everybody comes through the node that does not run the tournaments
        made = await pairs_of(base, 2)
        pairs = {name: (a, b) for name, a, b in made}
        everyone = [p for _, a, b in made for p in (a, b)]
        try:
            got = ok(call(base, "POST", "/api/tournaments", made[0][1].token,
                          {"name": "Copa", "rounds": 2, "no_show": 60}))  # fmt: skip
            tid = got["id"]
            for name, a, _ in made:
                ok(call(base, "POST", f"/api/tournaments/{tid}/register", a.token, {"pair": name}))
            ok(call(base, "POST", f"/api/tournaments/{tid}/start", made[0][1].token))
            await play_round(base, everyone, tid, 1)
            await wait_state(base, tid, lambda p: p["played"] == 1)
            runner.kill9()
            # The other node takes the lease over and goes on with round 2.
            assert await _holder(pg_url, besides=first) == f"n{cluster.nodes.index(other) + 1}"
            await play_round(base, everyone, tid, 2)
            final = await wait_state(base, tid, lambda p: p["state"] == "finished")
            file = decode(call(base, "GET", f"/api/tournaments/{tid}/file").content)
            assert [r.round for r in file.played] == [1, 2] and final["played"] == 2
            tables = [t for r in file.played for t in r.tables]
            assert len(tables) == 2 and not any(t.forfeit for t in tables)
            assert len({t.record for t in tables}) == 2
            assert sum(s["wins"] for s in final["standings"]) == 2
            assert set(pairs) == {e["pair"] for e in final["entrants"]}
        finally:
            await close_all(everyone)

    asyncio.run(go())
