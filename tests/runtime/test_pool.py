"""The worker pool on its own: real spawned processes, real pipes, real bots."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import psutil
import pytest

from tranque.bots.convert import sample_view
from tranque.runtime.pool import WORKER_NICENESS, ThinkError, WorkerPool
from tranque.table.ports import ThinkRequest
from tranque.table.thinking import think


def request(bot: str, seed: int, moves: int = 5, kind: str = "action") -> ThinkRequest:
    view = sample_view(moves=moves)
    return ThinkRequest("t", 1, 1, view.seat, kind, "bot", bot, seed, view)


@pytest.mark.slow
def test_the_pool_decides_what_the_bot_decides_here() -> None:
    async def go() -> None:
        pool = WorkerPool(2, warm=False)
        await pool.start()
        try:
            asks = [request(b, s, m) for b in ("random", "facil", "heuristic", "strong")
                    for s in (1, 2) for m in (3, 7)]  # fmt: skip
            asks.append(request("heuristic", 0, kind="lead"))
            asks.append(request("facil", 3, kind="redeal"))
            got = await asyncio.gather(*(pool.decide(r) for r in asks))
            assert got == [think(r) for r in asks]
            assert pool.stats()["workers"] == 2
            # Workers think below the server: it never waits behind them for the CPU.
            mine = psutil.Process().nice()
            assert [psutil.Process(p).nice() for p in pool.pids()] == [mine + WORKER_NICENESS] * 2
        finally:
            await pool.close()

    asyncio.run(go())


@pytest.mark.slow
def test_a_decision_that_never_comes_back_is_retried_then_refused(tmp_path: Path) -> None:
    async def go() -> None:
        # The gate never opens: every worker hangs on the decision until the timeout kills it.
        pool = WorkerPool(1, warm=False, timeout=0.5, attempts=2, test_gate=str(tmp_path / "no"))
        await pool.start()
        try:
            with pytest.raises(ThinkError, match="in 2 tries"):
                await pool.decide(request("random", 1))
            stats = pool.stats()
            assert (stats["replaced"], stats["retried"], stats["workers"]) == (2, 1, 1)
            (tmp_path / "no").touch()
            pool.timeout = 60  # a worker that did not warm up loads the kernels on its first call
            assert await pool.decide(request("random", 1)) == think(request("random", 1))
        finally:
            await pool.close()

    asyncio.run(go())


@pytest.mark.slow
def test_a_killed_worker_is_replaced_and_close_leaves_no_process(tmp_path: Path) -> None:
    async def go() -> None:
        gate = tmp_path / "gate"
        pool = WorkerPool(2, warm=False, test_gate=str(gate))
        await pool.start()
        asked = asyncio.ensure_future(pool.decide(request("heuristic", 4)))
        while pool.stats()["busy"] == 0:
            await asyncio.sleep(0.02)
        busy = next(w.process.pid for w in pool.workers if w.job is not None)
        os.kill(busy, signal.SIGKILL)
        while pool.stats()["retried"] == 0:
            await asyncio.sleep(0.02)
        gate.touch()
        assert await asked == think(request("heuristic", 4))
        assert busy not in pool.pids() and len(pool.pids()) == 2
        pids = pool.pids()
        pending = asyncio.ensure_future(pool.decide(request("random", 1)))
        await pool.close()
        with pytest.raises(ThinkError):
            await pending
        assert not any(psutil.pid_exists(p) and psutil.Process(p).status() != "zombie"
                       for p in pids)  # fmt: skip

    asyncio.run(go())
