"""Reconnection in the middle of a hand, and a kill -9 of the server with a restart."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from frame_scanner import scan_all
from test_server_e2e import handles_of, seat_four

from tranque.client import TableClient, get_json, random_legal

RULES = {"preset": "havana", "target": 40}
GUARDED = 10  # frames with tiles each seat's scan checked against a known deal (see e2e)


async def _play(
    clients: list[TableClient], seed: int, stop: Any = None
) -> list[asyncio.Task[None]]:
    return [
        asyncio.create_task(c.play_game(random_legal, seed=seed + i, timeout=300, stop=stop))
        for i, c in enumerate(clients)
    ]


async def _drain(clients: list[TableClient]) -> None:
    for _ in range(200):
        if not any(c._pending for c in clients):
            return
        await asyncio.sleep(0.05)


def test_a_client_that_reconnects_mid_hand_gets_what_it_missed(server: Any) -> None:
    async def go() -> None:
        tid, clients = await seat_four(server.base, RULES)
        dropped = clients[1]
        others = await _play([clients[0], clients[2], clients[3]], 10)
        # Seat 1 takes its turns until the second hand is under way, then drops.
        await dropped.play_game(
            random_legal,
            seed=11,
            stop=lambda c: c.state.get("hand") == 2 and sum(c.state.get("counts") or [0]) < 36,
        )
        await dropped.drop()
        last = dropped.seq  # after the drop: frames may still arrive until the socket is closed
        await asyncio.sleep(0.5)
        await dropped.connect(resume=True)
        sync = dropped.last_sync
        assert sync is not None
        missed = sync["missed"]
        assert missed is not None
        assert [e["seq"] for e in missed] == list(range(last + 1, sync["seq"] + 1))
        # The seat was marked away and is back, and nobody took it over (grace is 60 s).
        assert not any(s["taken_over"] for s in sync["table"]["seats"])
        await asyncio.gather(dropped.play_game(random_legal, seed=11), *others)
        record = await get_json(server.base, f"/api/tables/{tid}/record")
        scan_all(clients, record, at_least=GUARDED)
        for c in clients:
            await c.close()

    asyncio.run(go())


async def _crash_run(server_factory: Any, crash: bool, tmp_db: Any) -> dict[str, Any]:
    sp = server_factory("--test-seed", "c0ffee", db=tmp_db)
    tid, clients = await seat_four(sp.base, RULES, seed_secret=b"crash-test")
    crashed = False

    def at_crash_point(c: TableClient) -> bool:
        return crashed

    tasks = await _play(clients, 100, stop=at_crash_point)
    if crash:
        watcher = clients[0]
        await watcher.wait_for(
            lambda c: (
                c.game_over
                or (c.state.get("phase") == "play" and sum(c.state.get("counts") or [0]) <= 34)
            ),
            120,
        )
        assert not watcher.game_over
        sp.kill9()  # mid-hand, mid-anything
        crashed = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        base = sp.start()  # the same database, a new process, a new port
        for c in clients:
            c.base = base
            c.ws_url = base.replace("http", "ws", 1) + "/ws"
            await c.reconnect()
        await _drain(clients)
        crashed = False
        tasks = await _play(clients, 100)
    await asyncio.gather(*tasks)
    record = dict(await get_json(sp.base, f"/api/tables/{tid}/record"))
    scan_all(clients, record, at_least=GUARDED)
    # The people who sat, by their handles: this run's own guests, the crash or not.
    assert record.pop("players") == await handles_of(sp.base, clients)
    for c in clients:
        await c.close()
    return record


@pytest.mark.slow
@pytest.mark.parametrize("crash", [True])
def test_kill_9_mid_hand_then_restart_gives_the_record_of_a_run_without_the_crash(
    server_factory: Any, tmp_path: Any, crash: bool
) -> None:
    async def go() -> None:
        calm = await _crash_run(server_factory, False, tmp_path / "calm.db")
        crashed = await _crash_run(server_factory, True, tmp_path / "crash.db")
        assert crashed["hands"]
        assert crashed == calm

    asyncio.run(go())
