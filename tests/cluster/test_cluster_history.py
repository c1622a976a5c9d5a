"""A long table one node owns, read through the other: its info, record and history are the
owner's, and reading them keeps the reading node's sockets answered (issue 28)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from history_load import describe, long_table, pings_under_load


@pytest.mark.slow
def test_another_nodes_long_table_read_eight_at_once_leaves_the_loop_answered(
    cluster_factory: Any,
) -> None:
    """Node a owns a 2,000-event table (waiting for its person's play). Node b answers its
    info, record and history as a does; then 8 reads of its info and record in flight on b
    (the issue's case: 8 reads of a 1,736-event table) while a socket pings b: b rebuilt the
    table from its log once, off its loop, and answers every read from that (the pings'
    figures are printed). After a play, b answers the table as it is then."""
    cluster = cluster_factory(2)
    a, b = cluster.bases

    async def go() -> None:
        tid, client = await long_table(a, 2000)
        async with httpx.AsyncClient(timeout=60) as http:
            for path in ("", "/record", "/history?after=1500"):
                at_a = await http.get(f"{a}/api/tables/{tid}{path}")
                at_b = await http.get(f"{b}/api/tables/{tid}{path}")
                assert at_a.status_code == at_b.status_code == 200, (path, at_b.text)
                assert at_a.json() == at_b.json(), path
        paths = [f"/api/tables/{tid}", f"/api/tables/{tid}/record"]
        rtts, statuses = await pings_under_load(b, paths, n=8)
        # It plays on: b's next answer is the table as it is after the play.
        before = client.seq
        await client.play(client.state["legal"][0])
        await client.wait_for(lambda c: c.seq > before)
        await client.close()
        figures = describe(rtts)
        print(json.dumps({"other_node_load": figures, "answers": dict(statuses)}))
        assert set(statuses) == {200} and statuses[200] >= 8, statuses
        assert len(rtts) >= 50, figures
        # b replayed the log once for every read of it (off its loop), not once per read: the
        # pings' figures above are the record of what that spares the loop.
        async with httpx.AsyncClient(timeout=60) as http:
            stats = (await http.get(f"{b}/api/stats")).json()
        assert stats["replays"] == {"rebuilt": 1}, stats
        async with httpx.AsyncClient(timeout=60) as http:
            record = (await http.get(f"{b}/api/tables/{tid}/record")).json()
            assert record == (await http.get(f"{a}/api/tables/{tid}/record")).json()
            info = (await http.get(f"{b}/api/tables/{tid}")).json()
            assert info == (await http.get(f"{a}/api/tables/{tid}")).json()

    asyncio.run(go())
    for node in cluster.nodes:
        assert "Traceback" not in node.errors()
