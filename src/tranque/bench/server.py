"""``tranque bench server``: a real server process, and tables of WebSocket clients against it.

The server runs in its own process (``tranque serve`` on a temporary SQLite file, every event
persisted, bots in its worker processes); the clients run in another, on one event loop
(``bench.load``, its players in ``bench.player``). Each people table's four players play at R
moves per second (or flat out: each plays the moment its turn comes); passes are the server's.
``--practice K`` adds K practice tables beside them: one fast player each (he plays the moment
his turn comes) and three bots of ``--bot-level``.

Reported: the people tables' moves per second (passes included: what the clients received),
latency from a play command to the last of the four recipients' frames for it, and from a command
to its ack (p50, p99); for the practice tables, their players' ack latency and the bots' plays
per second; the CPU of the server, of its bot workers and of the clients, and the server's memory.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tranque.commandline import CommandError, print_figures
from tranque.server import gclog


def cpu_seconds(procs: list[Any]) -> float:
    """CPU seconds (user + system) of the processes that are still there."""
    total = 0.0
    for proc in procs:
        with contextlib.suppress(Exception):
            t = proc.cpu_times()
            total += t.user + t.system
    return total


def start_server(
    db: str, extra: list[str], log: Path | None = None, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    """``tranque serve`` for a benchmark, on a free loopback port (``extra`` may name one): the
    process and its address. Its standard error goes to ``log`` (appended), else nowhere;
    ``env``: variables added to its environment.

    Every client of a benchmark is one address, so the per-client limits are off.
    """
    cmd = [sys.executable, "-m", "tranque.cli", "serve", "--host", "127.0.0.1", "--port", "0"]
    # Every deal stays on show for the redeal window at a table with a person (the same for every
    # hand, so that nobody learns who may ask): a benchmark measures plays, not that pause.
    cmd += ["--db", db, "--rate", "1000", "--redeal-window", "0", *extra]
    cmd += ["--guests-per-minute", "0", "--tables-per-minute", "0", "--max-sockets-per-ip", "0"]
    cmd += ["--max-open-tables", "0", "--api-gets-per-minute", "0", "--max-http-per-ip", "0"]
    with contextlib.ExitStack() as files:
        err = subprocess.DEVNULL if log is None else files.enter_context(log.open("a"))
        server = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=err, text=True, env={**os.environ, **(env or {})}
        )
    assert server.stdout is not None
    line = server.stdout.readline()
    if "serving at" not in line:
        stop_process(server)
        tail = "" if log is None else log.read_text()[-1500:]
        raise CommandError(f"the server did not start: {line!r} {tail}".rstrip())
    return server, line.split()[3].rstrip("/")


def wait_for_workers(base: str, timeout: float = 300.0) -> float:
    """Wait until every bot worker of the server at ``base`` is warm (its ``/health`` says so);
    the seconds waited. A worker warms its kernels from numba's on-disk cache in about a second,
    but compiles them when the cache is missing or stale (a fresh checkout): 15 s of a core each,
    which a measure that began at once would count against the server's neighbours."""
    import httpx

    t0 = time.perf_counter()
    while True:
        workers = httpx.get(f"{base}/health", timeout=10).json().get("workers")
        if workers is None or workers["ready"] >= workers["workers"]:
            return time.perf_counter() - t0
        if time.perf_counter() - t0 > timeout:
            raise CommandError(f"the server's workers were not warm after {timeout:.0f} s")
        time.sleep(0.2)


def stop_process(proc: subprocess.Popen[str] | None) -> None:
    """SIGTERM, then SIGKILL if it has not ended within 15 s; its pipes closed."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


def _profile(spy: str, pid: int, seconds: float, out: str) -> subprocess.Popen[str]:
    """py-spy sampling the server (not its workers) for the measured seconds, 200 times a
    second, into ``out`` as collapsed stacks (one line per stack and its count: ``grep``,
    ``flamegraph.pl`` or a few lines of Python read them)."""
    cmd = [spy, "record", "-p", str(pid), "-r", "200", "-d", str(max(1, int(seconds)))]
    cmd += ["-f", "raw", "-o", out, "--nonblocking"]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)


def run_bench(args: argparse.Namespace) -> int:
    import psutil

    if args.tables < 1 and args.practice < 1:
        raise CommandError("--tables (or --practice) must be at least 1")
    if args.tables < 0 or args.practice < 0:
        raise CommandError("--tables and --practice count tables: 0 or more")
    spy = None
    if getattr(args, "profile", None):
        spy = shutil.which("py-spy")
        if spy is None:
            raise CommandError("--profile needs py-spy on PATH (pip install py-spy)")
    tmp = tempfile.mkdtemp(prefix="tranque-bench-")
    db = args.db or f"sqlite:///{Path(tmp) / 'bench.db'}"
    pass_delay = args.pass_delay
    if pass_delay is None:
        pass_delay = 0.0 if args.rate <= 0 else round(1.0 / args.rate, 3)
    extra = ["--pass-delay", str(pass_delay), "--bot-delay", str(args.bot_delay)]
    extra += ["--between-hands", "0", "--grace", "600"]
    if args.workers is not None:
        extra += ["--workers", str(args.workers)]
    if getattr(args, "analysis", None) is not None:
        extra += ["--analysis", str(args.analysis)]
    if getattr(args, "ws_impl", None):
        extra += ["--ws-impl", args.ws_impl]
    load: subprocess.Popen[str] | None = None
    profiler: subprocess.Popen[str] | None = None
    result: dict[str, Any] = {}
    gc_log = Path(tmp) / "gc.log"  # the server's collections, timed (server.gclog)
    server, base = start_server(db, extra, env={gclog.ENV: str(gc_log)})
    try:
        warming = wait_for_workers(base)
        if warming > 5:
            print(f"(the server's workers took {warming:.0f} s to warm up)", file=sys.stderr)
        proc = psutil.Process(server.pid)
        rss0 = proc.memory_info().rss
        plan = {
            "base": base,
            "tables": args.tables,
            "practice": args.practice,
            "level": args.bot_level,
            "rate": args.rate,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "spread": args.spread,
        }
        load = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from tranque.bench.load import load_main; load_main()",
                json.dumps(plan),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert load.stdout is not None
        lproc = psutil.Process(load.pid)
        workers: list[Any] = []
        cpu0 = wcpu0 = lcpu0 = t0 = wall0 = 0.0
        for out in load.stdout:
            msg = json.loads(out)
            if msg.get("phase") == "measuring":
                workers = proc.children(recursive=True)
                cpu0, wcpu0, lcpu0 = cpu_seconds([proc]), cpu_seconds(workers), cpu_seconds([lproc])
                t0, wall0 = time.perf_counter(), time.time()
                if spy is not None:
                    profiler = _profile(spy, server.pid, args.seconds, args.profile)
            elif msg.get("phase") == "done" and t0:
                wall = time.perf_counter() - t0
                result["server_cpu_percent"] = round(100 * (cpu_seconds([proc]) - cpu0) / wall, 1)
                result["workers_cpu_percent"] = round(
                    100 * (cpu_seconds(workers) - wcpu0) / wall, 1
                )
                result["clients_cpu_percent"] = round(
                    100 * (cpu_seconds([lproc]) - lcpu0) / wall, 1
                )
                result["server_rss_mb"] = round(proc.memory_info().rss / 2**20, 1)
                result.update(gclog.pauses(gc_log, wall0, time.time()))
            elif "result" in msg:
                result.update(msg["result"])
        load.wait(timeout=60)
        if profiler is not None:
            profiler.wait(timeout=60)
    finally:
        stop_process(profiler)
        stop_process(load)
        stop_process(server)
        shutil.rmtree(tmp, ignore_errors=True)  # the temporary database (its log is large)
    result["tables"] = args.tables
    result["practice_tables"] = args.practice
    result["rate_per_table"] = args.rate or "flat out"
    result["start_spread_seconds"] = args.spread
    every = args.tables + args.practice
    if "server_cpu_percent" in result:
        result["server_cpu_percent_per_table"] = round(result["server_cpu_percent"] / every, 3)
        result["server_rss_mb_per_table"] = round(
            (result["server_rss_mb"] - rss0 / 2**20) / every, 3
        )
    if result.get("moves_per_second"):
        result["server_cpu_ms_per_move"] = round(
            10 * result["server_cpu_percent"] / result["moves_per_second"], 3
        )
    result["cores"] = os.cpu_count()
    print_figures(result, args.json)
    return 0
