"""Analyses in the worker pool: the worker's answer is the analysis made here; a waiting bot's
decision goes before every waiting analysis; at most ``analysis_slots`` workers analyse at once,
so a free worker is left for the bots; the event loop stays free while a worker analyses."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from tranque.bots.convert import sample_view
from tranque.runtime.analysis_job import AnalysisRequest, run_analysis
from tranque.runtime.pool import WorkerPool
from tranque.table.ports import ThinkRequest
from tranque.table.thinking import think

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def analysis(mode: str = "fair", seats: tuple[int, ...] = (0,)) -> AnalysisRequest:
    record = json.loads((GOLDEN / "ejemplo-7-jugadas.json").read_text())
    return AnalysisRequest("t", record, seats, mode, 1)


def decision() -> ThinkRequest:
    view = sample_view(moves=5)
    return ThinkRequest("t", 1, 1, view.seat, "action", "bot", "heuristic", 3, view)


@pytest.mark.slow
def test_a_decision_goes_before_waiting_analyses_and_analyses_leave_a_worker(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "gate"

    async def go() -> None:
        pool = WorkerPool(2, warm=False, test_gate=str(gate))
        assert pool.analysis_slots == 1
        await pool.start()
        try:
            done: list[str] = []

            async def tracked(name: str, job: Any) -> Any:
                result = await job
                done.append(name)
                return result

            first = asyncio.ensure_future(tracked("a1", pool.analyze(analysis())))
            while pool.stats()["analysing"] == 0:  # the first analysis is out, held at the gate
                await asyncio.sleep(0.02)
            later = [asyncio.ensure_future(tracked(f"a{i}", pool.analyze(analysis())))
                     for i in (2, 3)]  # fmt: skip
            await asyncio.sleep(0)
            stats = pool.stats()
            # One worker analyses; the other is kept for the bots, and the rest wait.
            assert (stats["analysing"], stats["analyses_queued"]) == (1, 2), stats
            asked = asyncio.ensure_future(tracked("d", pool.decide(decision())))
            while pool.stats()["busy"] < 2:  # the decision went out at once, to the free worker
                await asyncio.sleep(0.02)
            assert pool.stats()["analyses_queued"] == 2
            gate.touch()
            results = await asyncio.gather(first, *later, asked)
            assert done.index("d") < done.index("a2") and done[-2:] == ["a2", "a3"], done
            assert results[-1] == think(decision())
            here = run_analysis(analysis())
            assert results[0] == results[1] == results[2] == here
            assert pool.stats()["analysed"] == 3
        finally:
            await pool.close()

    asyncio.run(go())


@pytest.mark.slow
def test_the_loop_stays_free_while_a_worker_analyses() -> None:
    async def go() -> None:
        pool = WorkerPool(1, warm=False)
        await pool.start()
        try:
            await pool.analyze(
                analysis("hindsight", (0, 1, 2, 3))
            )  # the worker loads its kernels first
            gaps: list[float] = []
            stop = asyncio.Event()

            async def ticker() -> None:
                last = time.perf_counter()
                while not stop.is_set():
                    await asyncio.sleep(0.01)
                    now = time.perf_counter()
                    gaps.append(now - last)
                    last = now

            tick = asyncio.ensure_future(ticker())
            started = time.process_time()
            took = time.perf_counter()
            result = await pool.analyze(analysis(seats=(0, 1, 2, 3)))
            took = time.perf_counter() - took
            stop.set()
            await tick
            # The fair analysis took its time in the worker; this process spent almost no CPU
            # on it, and the loop went round every few milliseconds all along.
            assert result["hands"][0]["plays"], result
            assert took > 0.3, took  # long enough that the loop would have stalled for it
            assert time.process_time() - started < 0.25 * took + 0.1, (took, gaps[:5])
            assert max(gaps) < 0.25, max(gaps)
        finally:
            await pool.close()

    asyncio.run(go())
