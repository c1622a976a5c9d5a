"""``tranque bench server``: a real server process, and N tables of four WebSocket clients.

The server runs in its own process (``tranque serve`` on a temporary SQLite file, every event
persisted); the clients run in this one, on one event loop. Each table's four people play at R
moves per second (or flat out: each plays the moment its turn comes). Passes are the server's.

Reported: moves per second (all moves, passes included, from the event log's point of view: what
the clients received), latency from a play command to the last of the four recipients' frames for
it (p50, p99), and the server's CPU and memory (RSS) per table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tranque.commands import CommandError


class TableRun:
    def __init__(self, tid: str, rate: float) -> None:
        self.tid = tid
        self.rate = rate
        self.sent: dict[tuple[int, int], float] = {}  # (hand, move index) -> send time
        self.got: dict[tuple[int, int], list[float]] = {}
        self.next_at = 0.0


async def _table(
    base: str,
    http: Any,
    rate: float,
    stats: dict[str, Any],
    stop: asyncio.Event,
    ready: asyncio.Event,
) -> None:
    from tranque.client import TableClient

    guests = []
    for i in range(4):
        r = await http.post("/api/guests", json={"nickname": f"b{i}"})
        guests.append(r.json())
    r = await http.post(
        "/api/tables",
        json={"rules": "havana", "practice": False, "move_clock": 600},
        headers={"Authorization": f"Bearer {guests[0]['token']}"},
    )
    tid = r.json()["table"]
    run = TableRun(tid, rate)
    lat: list[float] = stats["latency"]

    def on_frame(msg: dict[str, Any], now: float) -> None:
        if msg.get("type") != "event":
            return
        ev = msg["event"]
        if ev.get("type") != "played":
            return
        key = (ev["hand"], ev["n"])
        got = run.got.setdefault(key, [])
        got.append(now)
        if len(got) == 4:
            del run.got[key]
            stats["moves"] += 1
            sent = run.sent.pop(key, None)
            if sent is not None and stats["measuring"]:
                lat.append(now - sent)

    clients = [
        TableClient(base, g["token"], tid, keep_frames=False, on_frame=on_frame) for g in guests
    ]
    for s, c in enumerate(clients):
        await c.connect()
        if s:
            await c.do({"type": "sit", "seat": s})
    stats["seated"] += 1
    await ready.wait()
    if rate > 0:  # tables start out of step, as they would in life
        await asyncio.sleep(random.random() / rate)
        run.next_at = time.perf_counter()

    async def seat(c: TableClient, s: int) -> None:
        rng = random.Random(s)
        while not stop.is_set():
            st = c.state
            if st.get("phase") == "over":
                return
            if st.get("legal"):
                if run.rate > 0:
                    now = time.perf_counter()
                    wait = run.next_at - now
                    if wait > 0:
                        await asyncio.sleep(wait)
                    run.next_at = max(now, run.next_at) + 1.0 / run.rate
                move = rng.choice(st["legal"])
                hand = st["hand"]
                key = (hand, _move_index(c))
                run.sent[key] = time.perf_counter()
                reply = await c.play(move)
                if reply["type"] == "error" and reply["code"] not in ("stale", "not_your_turn"):
                    stats["errors"] += 1
                continue
            if st.get("choosing"):
                await c.command({"type": "choose", "seq": c.seq, "choice": "salgo"})
                continue
            if st.get("redeal"):
                await c.command({"type": "redeal", "seq": c.seq, "ask": False})
                continue
            c._changed.clear()
            await c._changed.wait()  # the stop cancels this task

    await asyncio.gather(*(seat(c, s) for s, c in enumerate(clients)))
    for c in clients:
        await c.close()
    stats["games"] += 1


def _move_index(c: Any) -> int:
    """The index the next play will have in its hand: moves seen since the hand's deal."""
    n = 0
    for ev in reversed(c.events):
        t = ev.get("type")
        if t == "played":
            if "hand_end" in ev:
                break
            n += 1
        elif t == "dealt":
            break
    return n


async def _load(
    base: str, tables: int, rate: float, seconds: float, warmup: float
) -> dict[str, Any]:
    stats: dict[str, Any] = {
        "moves": 0,
        "latency": [],
        "errors": 0,
        "games": 0,
        "seated": 0,
        "measuring": False,
    }
    stop = asyncio.Event()
    ready = asyncio.Event()
    http = httpx.AsyncClient(base_url=base, timeout=120, limits=httpx.Limits(max_connections=20))

    async def table_forever(i: int) -> None:
        while not stop.is_set():
            await _table(base, http, rate, stats, stop, ready)

    tasks = [asyncio.create_task(table_forever(i)) for i in range(tables)]
    while stats["seated"] < tables:  # every table seated before anybody plays
        await asyncio.sleep(0.2)
    ready.set()
    await asyncio.sleep(warmup)
    stats["measuring"] = True
    m0 = stats["moves"]
    t0 = time.perf_counter()
    print(json.dumps({"phase": "measuring"}), flush=True)
    await asyncio.sleep(seconds)
    elapsed = time.perf_counter() - t0
    moves = stats["moves"] - m0
    stats["measuring"] = False
    print(json.dumps({"phase": "done"}), flush=True)
    stop.set()
    await asyncio.wait(tasks, timeout=10)
    for t in tasks:
        t.cancel()
    lat = sorted(stats["latency"])

    def pct(p: float) -> float | None:
        if not lat:
            return None
        return float(round(1000 * lat[min(len(lat) - 1, int(p * len(lat)))], 2))

    return {
        "moves_per_second": round(moves / elapsed, 1),
        "latency_ms_p50": pct(0.50),
        "latency_ms_p99": pct(0.99),
        "latency_samples": len(lat),
        "errors": stats["errors"],
    }


def _load_main() -> None:  # the client process
    import gc

    gc.set_threshold(50_000, 50, 1000)
    base, tables, rate, seconds, warmup = sys.argv[1:6]
    out = asyncio.run(_load(base, int(tables), float(rate), float(seconds), float(warmup)))
    print(json.dumps({"result": out}), flush=True)


def run_bench(args: argparse.Namespace) -> int:
    import psutil

    if args.tables < 1:
        raise CommandError("--tables must be at least 1")
    tmp = tempfile.mkdtemp(prefix="tranque-bench-")
    db = args.db or f"sqlite:///{Path(tmp) / 'bench.db'}"
    pass_delay = "0" if args.rate <= 0 else str(round(1.0 / args.rate, 3))
    cmd = [sys.executable, "-m", "tranque.cli", "serve", "--host", "127.0.0.1", "--port", "0"]
    cmd += ["--db", db, "--pass-delay", pass_delay, "--bot-delay", "0", "--between-hands", "0"]
    cmd += ["--rate", "1000", "--grace", "600"]
    # One client address opens every socket and table of the benchmark: no per-client limits.
    cmd += ["--guests-per-minute", "0", "--tables-per-minute", "0", "--max-sockets-per-ip", "0"]
    cmd += ["--max-open-tables", "0"]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    load: subprocess.Popen[str] | None = None
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if "serving at" not in line:
            raise CommandError(f"the server did not start: {line!r}")
        base = line.split()[3].rstrip("/")
        proc = psutil.Process(server.pid)
        rss0 = proc.memory_info().rss
        load = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from tranque.server.bench import _load_main; _load_main()",
                base,
                str(args.tables),
                str(args.rate),
                str(args.seconds),
                str(args.warmup),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert load.stdout is not None
        result: dict[str, Any] = {}
        cpu0 = None
        t0 = 0.0
        for out in load.stdout:
            msg = json.loads(out)
            if msg.get("phase") == "measuring":
                cpu0 = proc.cpu_times()
                lproc = psutil.Process(load.pid)
                lcpu0 = lproc.cpu_times()
                t0 = time.perf_counter()
            elif msg.get("phase") == "done" and cpu0 is not None:
                cpu1 = proc.cpu_times()
                wall = time.perf_counter() - t0
                busy = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
                result["server_cpu_percent"] = round(100 * busy / wall, 1)
                lcpu1 = lproc.cpu_times()
                lbusy = (lcpu1.user - lcpu0.user) + (lcpu1.system - lcpu0.system)
                result["clients_cpu_percent"] = round(100 * lbusy / wall, 1)
                result["server_rss_mb"] = round(proc.memory_info().rss / 2**20, 1)
            elif "result" in msg:
                result.update(msg["result"])
        load.wait(timeout=60)
    finally:
        for p in (load, server):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
    result["tables"] = args.tables
    result["rate_per_table"] = args.rate or "flat out"
    if "server_cpu_percent" in result:
        result["server_cpu_percent_per_table"] = round(
            result["server_cpu_percent"] / args.tables, 3
        )
        result["server_rss_mb_per_table"] = round(
            (result["server_rss_mb"] - rss0 / 2**20) / args.tables, 3
        )
    result["cores"] = os.cpu_count()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for k, v in result.items():
            print(f"{k:32} {v}")
    return 0
