"""Bots in worker processes, through a real server process and real sockets.

Decisions are held with the server's hidden ``--test-think-gate PATH`` (tests only): a worker
makes no decision before the file exists. So a decision stays out exactly as long as the test
needs, and the tests assert on the order of events and acks, never on timings.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tranque.client import TableClient, create_table, get_json, new_guest

DECISIONS = ("chose", "redeal", "played")


def bot_decisions(client: TableClient) -> list[dict[str, Any]]:
    return [e for e in client.events if e["type"] in DECISIONS and e.get("by") != "server"]


def worker_pids(server: Any) -> list[int]:
    """The server's worker processes (the spawn method's resource tracker left out)."""
    kids = psutil.Process(server.proc.pid).children()
    return sorted(p.pid for p in kids if "spawn_main" in " ".join(p.cmdline()))


async def until_workers(base: str, pred: Callable[[dict[str, int]], bool]) -> dict[str, int]:
    """Wait until the pool's figures on /health satisfy ``pred`` (polled: an HTTP endpoint)."""
    for _ in range(1200):
        stats = (await get_json(base, "/health"))["workers"]
        if pred(stats):
            return dict(stats)
        await asyncio.sleep(0.05)
    raise AssertionError(f"the pool never got there: {stats}")


async def bots_table(base: str, level: str) -> TableClient:
    """A table of four bots of ``level`` (it starts at once), and a spectator of it."""
    host = await new_guest(base, "host")
    table = await create_table(base, host["token"], practice=True, seat=None, bot=level)
    watcher = TableClient(base, host["token"], table["table"], role="spectator")
    await watcher.connect()
    return watcher


@pytest.mark.slow
def test_a_table_of_people_keeps_answering_while_strong_bots_think(
    server_factory: Any, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    server = server_factory("--workers", "1", "--test-think-gate", str(gate))

    async def go() -> None:
        base = server.base
        watcher = await bots_table(base, "fuerte")
        assert watcher.table_info["bot"] == "fuerte"
        assert {s["bot"] for s in watcher.table_info["seats"]} == {"strong"}
        await until_workers(base, lambda w: w["busy"] == 1)
        # The strong bots' table has a decision out with the (only) worker, held by the gate.
        ana = await new_guest(base, "ana")
        people = await create_table(base, ana["token"], practice=False, seat=0)
        c = TableClient(base, ana["token"], people["table"])
        await c.connect()
        await c.do({"type": "add_bot", "seat": 1, "level": "facil"})
        refused = await c.command({"type": "add_bot", "seat": 2, "level": "imposible"})
        assert refused["type"] == "error" and refused["code"] == "bad_bot"
        await c.do({"type": "add_bot", "seat": 2})
        luis = await new_guest(base, "luis")
        c2 = TableClient(base, luis["token"], people["table"])
        await c2.connect()
        await c2.do({"type": "sit", "seat": 3})
        seated = [e for e in c.events if e["type"] == "bot_sat"]
        assert [(e["seat"], e["bot"]) for e in seated] == [(1, "facil"), (2, "heuristic")]
        # The thinking table itself answers too: a resync while its bot thinks.
        before = watcher.last_sync
        await watcher.send_raw(json.dumps({"type": "sync"}))
        await watcher.wait_for(lambda w: w.last_sync is not before)
        # Every answer above came while the strong bot's decision was still out.
        assert bot_decisions(watcher) == []
        assert (await get_json(base, "/health"))["workers"]["busy"] == 1
        gate.touch()
        await watcher.wait_for(lambda w: bool(bot_decisions(w)), 120)
        first = bot_decisions(watcher)[0]
        assert first["type"] in DECISIONS
        for x in (watcher, c, c2):
            await x.close()

    asyncio.run(go())
    assert "Traceback" not in server.stop()


@pytest.mark.slow
def test_a_killed_worker_is_replaced_and_the_decision_still_comes(
    server_factory: Any, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    server = server_factory("--workers", "1", "--test-think-gate", str(gate))

    async def go() -> None:
        base = server.base
        watcher = await bots_table(base, "fuerte")
        await until_workers(base, lambda w: w["busy"] == 1)
        (pid,) = worker_pids(server)
        os.kill(pid, signal.SIGKILL)  # the worker dies with the table's decision in hand
        stats = await until_workers(base, lambda w: w["replaced"] == 1 and w["busy"] == 1)
        # A new worker took the decision again: the pool is back to its size.
        assert stats == {
            "workers": 1, "ready": 1, "busy": 1, "queued": 0, "replaced": 1, "retried": 1,
            "analysing": 0, "analyses_queued": 0, "analysed": 0, "screened": 0,
        }  # fmt: skip
        (new_pid,) = worker_pids(server)
        assert new_pid != pid
        assert bot_decisions(watcher) == []
        gate.touch()
        await watcher.wait_for(lambda w: len(bot_decisions(w)) >= 3, 120)
        assert all(e.get("by", "bot") == "bot" for e in bot_decisions(watcher))
        await watcher.close()

    asyncio.run(go())
    assert "Traceback" not in server.stop()


# A guest chooses one of the three levels; a bot's own name is never his to choose: the costliest
# (strong-slow, 100-200 ms a move in a worker) was open to any guest's practice table.
NOT_LEVELS = ("strong-slow", "strong", "heuristic", "greedy", "random", "imposible", "", 3)


def test_a_table_takes_one_of_the_three_levels_and_refuses_any_other_bot(server: Any) -> None:
    async def go() -> None:
        base = server.base
        g = await new_guest(base, "ana")
        auth = {"Authorization": f"Bearer {g['token']}"}
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            for bot in NOT_LEVELS:
                r = await http.post("/api/tables", json={"bot": bot}, headers=auth)
                assert r.status_code == 400, (bot, r.text)
                assert r.json()["code"] == "bad_bot" and r.json()["message"], r.text
            tables = await get_json(base, "/api/stats")
            assert tables["since_start"]["created"] == 0  # nothing was made
        for bot, plays in (("facil", "facil"), ("normal", "heuristic"), ("fuerte", "strong")):
            t = await create_table(base, g["token"], practice=True, seat=0, bot=bot)
            info = await get_json(base, f"/api/tables/{t['table']}")
            assert info["bot"] == bot
            assert [s["bot"] for s in info["seats"]] == [None, plays, plays, plays]
        # The host's bots at a table of people: a level too, never a bot's name.
        people = await create_table(base, g["token"], practice=False, seat=0)
        c = TableClient(base, g["token"], people["table"])
        await c.connect()
        for level in NOT_LEVELS[:5]:
            refused = await c.command({"type": "add_bot", "seat": 1, "level": level})
            assert refused["type"] == "error" and refused["code"] == "bad_bot", refused
        await c.do({"type": "add_bot", "seat": 1, "level": "fuerte"})
        await c.do({"type": "add_bot", "seat": 2})  # the table's own level
        seated = [(e["seat"], e["bot"]) for e in c.events if e["type"] == "bot_sat"]
        assert seated == [(1, "strong"), (2, "heuristic")]
        await c.close()

    asyncio.run(go())


@pytest.mark.parametrize(("bot", "ok"), [("nonsense", False), ("fuerte", True)])
def test_serve_takes_a_level_or_a_bot_name_for_bot(server_factory: Any, bot: str, ok: bool) -> None:
    if ok:
        server_factory("--bot", bot)  # it starts
        return
    out = subprocess.run(
        [sys.executable, "-m", "tranque.cli", "serve", "--port", "0", "--bot", bot],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode != 0
    assert "unknown bot or level 'nonsense'" in out.stderr
