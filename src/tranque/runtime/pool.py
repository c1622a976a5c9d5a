"""``WorkerPool``: the ``Thinker`` of ``tranque serve``, worker processes where bots think.

Each worker is a process of its own (the ``spawn`` start method: the server has an event loop and
threads, which ``fork`` would copy half-way) with a pipe to the server. At start it loads the
bots' kernels from numba's on-disk cache (compiling them only if the cache is missing or stale),
then says it is ready and answers one request at a time with ``table.thinking.think``.

The server side is driven by the event loop, with no thread: it hands each request to an idle
ready worker and reads answers and deaths as the pipes and the process sentinels become readable.

- **Retry.** A decision that does not come back in ``timeout`` seconds (the worker hangs, or is
  far too slow) gets its worker killed; a decision whose worker died is sent again, to the next
  worker free, up to ``attempts`` times in all; then ``decide`` raises ``ThinkError``.
- **Replace.** A worker that dies is replaced at once by a new one; one that dies before it was
  ever ready (it cannot even start) is replaced after a growing pause, so a broken install does
  not spin.
- **Close.** ``close`` asks every worker to stop, waits a little, then kills what is left.

- **Analyses.** ``analyze`` runs one hand's analysis of a finished game
  (``runtime.analysis_job``) on the same workers, behind the decisions: a free worker always
  takes a waiting decision first, and at most ``analysis_slots`` workers (all but one, by
  default) analyse at once, so a burst of finished games queues instead of starving the bots.

``stats()`` gives the figures ``/health`` shows: workers, ready, busy, queued, replaced, retried,
and the analyses running, queued and done.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from tranque.runtime.analysis_job import AnalysisRequest
from tranque.table.ports import ThinkRequest

log = logging.getLogger("tranque.runtime")

WORKER_NICENESS = 10


class ThinkError(Exception):
    """A decision the pool could not make: every attempt's worker died, or the bot raised."""


def _worker_main(conn: Connection, warm: bool, test_gate: str | None) -> None:
    """A worker's life: warm the kernels, say ready, answer requests until told to stop."""
    # Ctrl-C and SIGTERM reach the whole process group; the server closes its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # Below the server in the scheduler's eyes: bots that think flat out use every core the
    # server leaves, but a person's command never waits behind them for the CPU.
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    from tranque.runtime.analysis_job import run_analysis
    from tranque.table.thinking import think, warm_up

    parent = os.getppid()
    started = time.perf_counter()
    if warm:
        warm_up()
    try:
        conn.send(("ready", os.getpid(), time.perf_counter() - started))
        while True:
            msg = conn.recv()
            if msg is None:
                return
            job_id, request = msg
            while test_gate is not None and not os.path.exists(test_gate):
                if os.getppid() != parent:
                    return  # the server is gone
                time.sleep(0.02)  # tests only: every decision waits until the gate file exists
            try:
                if isinstance(request, AnalysisRequest):
                    report = _when_idle(run_analysis, request)
                    answer: tuple[int, bool, Any] = (job_id, True, report)
                else:
                    answer = (job_id, True, think(request))
            except Exception as exc:
                answer = (job_id, False, f"{type(exc).__name__}: {exc}")
            conn.send(answer)
    except (EOFError, OSError):
        return  # the server is gone (its end of the pipe closed)


def _when_idle(work: Callable[[Any], Any], arg: Any) -> Any:
    """``work(arg)`` on a thread of the idle scheduling class: it gets a core only when nothing
    else wants it. An analysis is work nobody waits for; at nice 10 alone it still took a share
    of the cores from the server and its clients when they were busy (2,000 tables at one move a
    second: p99 133-289 ms with it, 79 ms without, docs/server.md). The policy is the thread's, so
    it ends with the thread, and the worker's next decision runs at its usual priority."""
    out: list[Any] = []
    failed: list[BaseException] = []

    def run() -> None:
        with contextlib.suppress(AttributeError, OSError):  # not Linux: at nice 10 as before
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        try:
            out.append(work(arg))
        except BaseException as exc:  # handed to the caller, as if it had run here
            failed.append(exc)

    thread = threading.Thread(target=run, name="analysis", daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return out[0]


@dataclass(eq=False)
class _Job:
    id: int
    request: ThinkRequest | AnalysisRequest
    future: asyncio.Future[Any]
    tries: int = 0
    slow: bool = False  # an analysis: behind every decision, on a bounded number of workers


@dataclass(eq=False)
class _Worker:
    process: Any  # multiprocessing.Process (of the spawn context)
    conn: Connection
    ready: bool = False
    job: _Job | None = None
    timer: asyncio.TimerHandle | None = None
    gone: bool = False
    watched: list[int] = field(default_factory=list)  # the file descriptors the loop reads


class WorkerPool:
    """A pool of ``size`` worker processes; ``await decide(request)`` from any table owner."""

    def __init__(
        self,
        size: int,
        *,
        timeout: float = 30.0,
        attempts: int = 3,
        warm: bool = True,
        test_gate: str | None = None,
        analysis_slots: int | None = None,
        analysis_timeout: float = 300.0,
    ) -> None:
        if size < 1:
            raise ValueError("a worker pool has at least one worker")
        self.size = size
        self.timeout = timeout
        self.attempts = attempts
        self.warm = warm
        # Tests only: a decision is not made before this file exists (decisions that stay out as
        # long as a test needs, whatever the machine's speed).
        self.test_gate = test_gate
        self.ctx = multiprocessing.get_context("spawn")
        self.workers: list[_Worker] = []
        self.queue: deque[_Job] = deque()
        self.slow: deque[_Job] = deque()  # analyses waiting
        # None: all but one worker (at least one); 0: no analysis here (another node does it).
        self.analysis_slots = max(1, size - 1) if analysis_slots is None else analysis_slots
        self.analysis_timeout = analysis_timeout
        self.analysed = 0  # hands analysed
        self.screened = 0  # games screened for fair play (the analyst's, after their analysis)
        self.ids = itertools.count(1)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.closing = False
        self.replaced = 0
        self.retried = 0
        self.start_failures = 0

    # -- life -------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the workers (they warm up in the background; requests wait for the first)."""
        self.loop = asyncio.get_running_loop()
        for _ in range(self.size):
            self._spawn()

    async def close(self, wait: float = 3.0) -> None:
        """Stop every worker: ask, wait up to ``wait`` seconds, kill the rest. Pending
        decisions fail with ``ThinkError``."""
        self.closing = True
        for job in [*self.queue, *self.slow]:
            if not job.future.done():
                job.future.set_exception(ThinkError("the pool is closing"))
        self.queue.clear()
        self.slow.clear()
        workers = list(self.workers)
        for w in workers:
            if w.ready and w.job is None:
                with contextlib.suppress(OSError, ValueError):
                    w.conn.send(None)
            else:
                w.process.kill()  # still warming up, or thinking for a table that has stopped
        deadline = time.monotonic() + wait
        for w in workers:
            while w.process.is_alive() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            if w.process.is_alive():
                w.process.kill()
            self._lost(w, reason=None)

    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers if w.process.pid is not None]

    def stats(self) -> dict[str, int]:
        return {
            "workers": len(self.workers),
            "ready": sum(1 for w in self.workers if w.ready),
            "busy": sum(1 for w in self.workers if w.job is not None),
            "queued": len(self.queue),
            "replaced": self.replaced,
            "retried": self.retried,
            "analysing": self._analysing(),
            "analyses_queued": len(self.slow),
            "analysed": self.analysed,
            "screened": self.screened,
        }

    def _analysing(self) -> int:
        return sum(1 for w in self.workers if w.job is not None and w.job.slow)

    # -- the Thinker port -------------------------------------------------------------------------

    async def decide(self, request: ThinkRequest) -> str | bool:
        if self.closing or self.loop is None:
            raise ThinkError("the pool is not running")
        job = _Job(next(self.ids), request, self.loop.create_future())
        self.queue.append(job)
        self._dispatch()
        result: str | bool = await job.future
        return result

    async def analyze(self, request: AnalysisRequest) -> dict[str, Any]:
        """One hand's analysis (``runtime.analysis_job``), in a worker, behind the decisions."""
        if self.closing or self.loop is None:
            raise ThinkError("the pool is not running")
        job = _Job(next(self.ids), request, self.loop.create_future(), slow=True)
        self.slow.append(job)
        self._dispatch()
        result: dict[str, Any] = await job.future
        return result

    # -- inside -----------------------------------------------------------------------------------

    def _spawn(self) -> None:
        assert self.loop is not None
        mine, theirs = self.ctx.Pipe(duplex=True)
        process = self.ctx.Process(
            target=_worker_main,
            args=(theirs, self.warm, self.test_gate),
            name="tranque-worker",
            daemon=True,
        )
        process.start()
        theirs.close()
        w = _Worker(process, mine)
        self.workers.append(w)
        self.loop.add_reader(mine.fileno(), self._readable, w)
        self.loop.add_reader(process.sentinel, self._exited, w)
        w.watched = [mine.fileno(), process.sentinel]

    def _readable(self, w: _Worker) -> None:
        try:
            while not w.gone and w.conn.poll():
                self._message(w, w.conn.recv())
        except (EOFError, OSError):
            self._lost(w, reason="its pipe closed")

    def _exited(self, w: _Worker) -> None:
        self._lost(w, reason="it exited")

    def _message(self, w: _Worker, msg: tuple[Any, ...]) -> None:
        if msg[0] == "ready":
            w.ready = True
            self.start_failures = 0
            log.info("worker %s ready (warmed up in %.1f s)", msg[1], msg[2])
            self._dispatch()
            return
        job_id, ok, result = msg
        job = w.job
        if job is None or job.id != job_id:
            return
        w.job = None
        if w.timer is not None:
            w.timer.cancel()
            w.timer = None
        if not job.future.done():
            if ok:
                if isinstance(job.request, AnalysisRequest) and job.request.mode == "screen":
                    self.screened += 1
                else:
                    self.analysed += job.slow
                job.future.set_result(result)
            else:
                job.future.set_exception(ThinkError(f"the bot failed: {result}"))
        self._dispatch()

    def _next(self) -> _Job | None:
        """The next job to hand out: a decision if one waits, else an analysis while fewer
        than ``analysis_slots`` workers analyse; jobs nobody waits for any more are dropped."""
        while self.queue:
            job = self.queue.popleft()
            if not job.future.done():  # else its table stopped waiting for it
                return job
        while self.slow and self._analysing() < self.analysis_slots:
            job = self.slow.popleft()
            if not job.future.done():
                return job
        return None

    def _dispatch(self) -> None:
        assert self.loop is not None
        for w in list(self.workers):
            if not self.queue and not self.slow:
                return
            if not w.ready or w.job is not None or w.gone:
                continue
            job = self._next()
            if job is None:
                return
            job.tries += 1
            w.job = job
            try:
                w.conn.send((job.id, job.request))
            except (OSError, ValueError):
                self._lost(w, reason="its pipe broke")
                continue
            timeout = self.analysis_timeout if job.slow else self.timeout
            w.timer = self.loop.call_later(timeout, self._timed_out, w, job)

    def _timed_out(self, w: _Worker, job: _Job) -> None:
        if w.job is job and not w.gone:
            log.warning(
                "worker %s took over %.1f s on a %s of table %s: replacing it",
                w.process.pid,
                self.analysis_timeout if job.slow else self.timeout,
                "hand's analysis" if job.slow else "decision",
                job.request.table_id,
            )
            w.process.kill()  # its sentinel fires; _lost sends the decision again

    def _lost(self, w: _Worker, reason: str | None) -> None:
        """A worker is gone: forget it, send its decision again, start another."""
        if w.gone:
            return
        w.gone = True
        assert self.loop is not None
        for fd in w.watched:
            self.loop.remove_reader(fd)
        if w.timer is not None:
            w.timer.cancel()
        with contextlib.suppress(OSError):
            w.conn.close()
        if w.process.is_alive():
            w.process.kill()
        w.process.join(timeout=1)
        self.workers.remove(w)
        job, w.job = w.job, None
        if self.closing:
            if job is not None and not job.future.done():
                job.future.set_exception(ThinkError("the pool is closing"))
            return
        log.warning(
            "worker %s is gone (%s, exit code %s): starting another",
            w.process.pid,
            reason,
            w.process.exitcode,
        )
        if job is not None and not job.future.done():
            if job.tries >= self.attempts:
                job.future.set_exception(
                    ThinkError(f"no worker came back with the decision in {job.tries} tries")
                )
            else:
                self.retried += 1
                (self.slow if job.slow else self.queue).appendleft(job)
        self.replaced += 1
        if w.ready:
            self._spawn()
        else:
            # It died before it was ever ready: it may not be able to start at all.
            self.start_failures += 1
            pause = min(30.0, 0.5 * 2**self.start_failures)
            self.loop.call_later(pause, self._respawn)
        self._dispatch()

    def _respawn(self) -> None:
        if not self.closing and len(self.workers) < self.size:
            self._spawn()


__all__ = ["ThinkError", "WorkerPool"]
