"""Tables that come and go, through a real server process: a finished table leaves memory and
every route still serves it; a table that never starts expires and is not rebuilt."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
import websockets
from test_server_e2e import assert_verifies

from tranque.client import TableClient, create_table, get_history, get_json, new_guest

RULES = {"preset": "havana", "target": 20}


async def stats(base: str) -> dict[str, Any]:
    return dict(await get_json(base, "/api/stats"))


async def until(base: str, pred: Any, timeout: float = 30) -> dict[str, Any]:
    """Poll ``/api/stats`` until ``pred`` holds (an event the operator sees too), or fail."""
    deadline = time.monotonic() + timeout
    while True:
        s = await stats(base)
        if pred(s):
            return s
        if time.monotonic() > deadline:
            raise TimeoutError(f"stats never matched: {s}")
        await asyncio.sleep(0.05)


async def hello(base: str, token: str, table: str) -> dict[str, Any]:
    """Say hello on a fresh socket and return the first frame the server answers with."""
    url = base.replace("http", "ws", 1) + "/ws"
    async with websockets.connect(url) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "table": table}))
        return dict(json.loads(await asyncio.wait_for(ws.recv(), 30)))


async def status_of(base: str, path: str) -> tuple[int, Any]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.get(path)
        return r.status_code, r.json()


@pytest.mark.slow
def test_a_finished_table_leaves_memory_and_every_route_still_serves_it(
    server_factory: Any,
) -> None:
    sp = server_factory("--finished-linger", "0")

    async def go() -> None:
        base = sp.base
        g = await new_guest(base, "solo")
        t = await create_table(base, g["token"], rules=RULES, practice=True, seat=1)
        tid = t["table"]
        c = TableClient(base, g["token"], tid)
        await c.connect()
        await c.play_game(timeout=120)
        # Over, but somebody is still looking at it: it stays.
        s = await stats(base)
        assert s["live"] == {"total": 1, "waiting": 0, "playing": 0, "over": 1}
        live_info = await get_json(base, f"/api/tables/{tid}")
        live_history = await get_history(base, tid)
        await c.close()
        s = await until(base, lambda s: s["live"]["total"] == 0)
        assert s["since_start"]["left_memory"] == 1

        # Every route answers from the store.
        record = await get_json(base, f"/api/tables/{tid}/record")
        assert record["format"] == "tranque-game/1" and record["hands"]
        assert_verifies(record)
        info = await get_json(base, f"/api/tables/{tid}")
        assert info == live_info
        assert info["over"] and info["started"]
        assert [s["nickname"] for s in info["seats"]][1] == "solo"
        assert [s["kind"] for s in info["seats"]] == ["bot", "person", "bot", "bot"]
        history = await get_history(base, tid)
        assert history == live_history
        assert history[-1]["seq"] == c.seq
        assert (await stats(base))["live"]["total"] == 0  # reading did not bring it back

        # Pages of the history: the same events, a `Link` to the next page while more follow.
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            r = await http.get(f"/api/tables/{tid}/history?limit=7")
            assert r.json() == history[:7] and "next" in r.links
            r = await http.get(f"/api/tables/{tid}/history?after={history[-2]['seq']}")
            assert r.json() == history[-1:] and "next" not in r.links
            for bad in ("limit=0", "limit=501", "after=-1", "after=x", f"after={2**63}"):
                r = await http.get(f"/api/tables/{tid}/history?{bad}")
                assert r.status_code == 400 and r.json()["code"] == "bad_page", bad
        paged = await get_history(base, tid)
        assert paged == history

        # A person reloading the page after the end: the hello gets the final position.
        again = TableClient(base, g["token"], tid)
        await again.connect()
        assert again.state["phase"] == "over" and again.table_info == live_info
        assert again.seq == c.seq
        s = await stats(base)
        assert s["since_start"]["revived"] == 1 and s["live"]["over"] == 1
        await again.close()
        s = await until(base, lambda s: s["live"]["total"] == 0)
        assert s["since_start"]["left_memory"] == 2
        assert "Traceback" not in sp.errors()

    asyncio.run(go())


@pytest.mark.slow
def test_a_table_that_never_starts_expires_and_is_not_rebuilt(server_factory: Any) -> None:
    sp = server_factory("--table-expiry", "1")

    async def go() -> None:
        base = sp.base
        g = await new_guest(base, "host")
        waiting = (await create_table(base, g["token"], rules=RULES, practice=False))["table"]
        playing = (await create_table(base, g["token"], rules=RULES, practice=True))["table"]
        # The host, waiting at his table, is told when it expires (or at once if it already has).
        url = base.replace("http", "ws", 1) + "/ws"
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps({"type": "hello", "token": g["token"], "table": waiting}))
            first = json.loads(await asyncio.wait_for(ws.recv(), 30))
            told = first
            assert first["type"] in ("sync", "error")
            while told["type"] != "error":  # the seats' ratings may come first (protocol 5.7)
                told = json.loads(await asyncio.wait_for(ws.recv(), 30))
                assert told["type"] in ("ratings", "error"), told
            assert told["type"] == "error" and told["code"] == "table_expired", told
        s = await until(base, lambda s: s["since_start"]["expired"] == 1)
        assert s["live"] == {"total": 1, "waiting": 0, "playing": 1, "over": 0}
        for path in ("", "/record", "/history"):
            code, body = await status_of(base, f"/api/tables/{waiting}{path}")
            assert (code, body["code"]) == (410, "table_expired"), path
        code, body = await status_of(base, "/api/tables/nothing")
        assert (code, body["code"]) == (404, "no_table")
        assert (await hello(base, g["token"], waiting))["code"] == "table_expired"
        assert (await hello(base, g["token"], "nothing"))["code"] == "no_table"

        # A second waiting table; the server stops before it expires and comes back with an
        # expiry it is already past: it is marked expired, not rebuilt. The playing one is.
        late = (await create_table(base, g["token"], rules=RULES, practice=False))["table"]
        assert (await get_json(base, f"/api/tables/{late}"))["started"] is False
        sp.stop()
        sp.extra = [*sp.extra, "--table-expiry", "0.001"]
        base = sp.start()
        s = await stats(base)
        assert s["since_start"]["rebuilt"] == 1 and s["since_start"]["expired"] == 1
        assert s["live"]["total"] == 1 and s["live"]["playing"] == 1
        assert (await get_json(base, f"/api/tables/{playing}"))["started"] is True
        code, body = await status_of(base, f"/api/tables/{late}")
        assert (code, body["code"]) == (410, "table_expired")
        # And not at the restart after that either: it stays expired in the store.
        sp.stop()
        base = sp.start()
        s = await stats(base)
        assert s["since_start"] == {
            "created": 0, "rebuilt": 1, "expired": 0, "left_memory": 0, "revived": 0,
            "taken_over": 0, "lost": 0, "released": 0,
        }  # fmt: skip
        assert "Traceback" not in sp.errors()

    asyncio.run(go())
