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
import contextlib
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import msgspec

from tranque.commands import CommandError
from tranque.fair.recipe import client_commit


class _Duty(msgspec.Struct):
    hand: int
    do: str


class _State(msgspec.Struct):
    """The fields of a recipient's state that a bench player reads (the rest is skipped)."""

    phase: str = ""
    hand: int | None = None
    legal: list[str] = []
    choosing: bool = False
    redeal: bool = False
    fair: _Duty | None = None
    match: dict[str, Any] | None = None


class _Event(msgspec.Struct):
    type: str
    hand: int | None = None
    n: int | None = None


class _Frame(msgspec.Struct):
    type: str
    seq: int = 0
    event: _Event | None = None
    state: _State | None = None
    code: str | None = None


_decode_frame = msgspec.json.Decoder(_Frame).decode
_encode = msgspec.json.Encoder().encode


class _TableRun:
    """One table's four players: when each move was sent, and who has seen it."""

    def __init__(self, rate: float, stats: dict[str, Any]) -> None:
        self.rate = rate
        self.stats = stats
        self.sent: dict[tuple[int, int], float] = {}  # (hand, move index) -> send time
        self.seen: dict[tuple[int, int], int] = {}
        self.next_at = 0.0
        self.done = asyncio.Event()

    def saw_move(self, key: tuple[int, int], now: float) -> None:
        n = self.seen.get(key, 0) + 1
        if n < 4:
            self.seen[key] = n
            return
        del self.seen[key]
        stats = self.stats
        stats["moves"] += 1
        sent = self.sent.pop(key, None)
        if sent is not None and stats["measuring"]:
            stats["latency"].append(now - sent)


class _Player:
    """A lean bench client: one socket, typed decoding of the few fields it needs.

    It takes the fairness duties (commit, then reveal, a fresh seed per hand), plays a random
    legal move the moment its turn comes (or on the table's schedule at a fixed rate), and never
    keeps frames: the load generator shares the machine with the server it measures.
    """

    def __init__(self, ws: Any, run: _TableRun, seed: int) -> None:
        self.ws = ws
        self.run = run
        self.rng = random.Random(seed)
        self.seq = 0
        self.moves_seen = 0  # played events since the deal: the index the next play gets
        self.acted: tuple[int, int] | None = None
        self.seeds: dict[int, bytes] = {}
        self.ids = 0

    def _send(self, msg: dict[str, Any]) -> None:
        self.ids += 1
        msg["id"] = str(self.ids)
        task = asyncio.ensure_future(self.ws.send(_encode(msg).decode()))
        task.add_done_callback(_ignore)

    async def read(self) -> None:
        run = self.run
        async for text in self.ws:
            now = time.perf_counter()
            f = _decode_frame(text)
            if f.type == "event" and f.event is not None:
                self.seq = f.seq
                ev = f.event
                if ev.type == "played" and ev.hand is not None and ev.n is not None:
                    run.saw_move((ev.hand, ev.n), now)
                    self.moves_seen = ev.n + 1
                elif ev.type == "dealt":
                    self.moves_seen = 0
            elif f.type == "sync":
                self.seq = f.seq
            elif f.type == "error" and f.code not in ("stale", "not_your_turn", "duplicate"):
                run.stats["errors"] += 1
            if f.state is not None:
                self._decide(f.state)

    def _decide(self, st: _State) -> None:
        if st.phase == "over" and (st.match is None or st.match.get("over")):
            self.run.done.set()
            return
        duty = st.fair
        if duty is not None:
            seed = self.seeds.setdefault(duty.hand, secrets.token_bytes(32))
            key = (duty.hand, 0 if duty.do == "commit" else 1)
            if self.acted != key:
                self.acted = key
                if duty.do == "commit":
                    self._send({"type": "ready", "hand": duty.hand, "commit": client_commit(seed)})
                else:
                    self._send({"type": "reveal", "hand": duty.hand, "seed": seed.hex()})
            return
        version = (self.seq, 2)
        if self.acted == version:
            return
        if st.legal:
            self.acted = version
            move = self.rng.choice(st.legal)
            key = (st.hand or 0, self.moves_seen)
            run = self.run
            if run.rate > 0:
                now = time.perf_counter()
                at = max(now, run.next_at)
                run.next_at = at + 1.0 / run.rate
                asyncio.get_running_loop().call_later(at - now, self._play, key, move)
            else:
                self._play(key, move)
        elif st.choosing:
            self.acted = version
            self._send({"type": "choose", "seq": self.seq, "choice": "salgo"})
        elif st.redeal:
            self.acted = version
            self._send({"type": "redeal", "seq": self.seq, "ask": False})

    def _play(self, key: tuple[int, int], move: str) -> None:
        self.run.sent[key] = time.perf_counter()
        self._send({"type": "play", "seq": self.seq, "move": move})


def _ignore(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def _table(
    base: str,
    http: Any,
    rate: float,
    stats: dict[str, Any],
    stop: asyncio.Event,
    ready: asyncio.Event,
) -> None:
    import websockets

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
    run = _TableRun(rate, stats)
    url = base.replace("http", "ws", 1) + "/ws"
    sockets = []
    for s, g in enumerate(guests):
        ws = await websockets.connect(url, max_size=2**22, open_timeout=60, compression=None)
        sockets.append(ws)
        await ws.send(_encode({"type": "hello", "token": g["token"], "table": tid}).decode())
        await ws.recv()  # the sync
        if s:
            await ws.send(_encode({"type": "sit", "id": "sit", "seat": s}).decode())
            while _decode_frame(await ws.recv()).type != "ack":
                pass
    stats["seated"] += 1
    await ready.wait()
    if rate > 0:  # tables start out of step, as they would in life
        await asyncio.sleep(random.random() / rate)
        run.next_at = time.perf_counter()
    players = [_Player(ws, run, s) for s, ws in enumerate(sockets)]
    readers = [asyncio.create_task(p.read()) for p in players]
    for p in players:  # the state each was sent while the others sat
        await p.ws.send(_encode({"type": "sync", "last_seq": None}).decode())
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait(
        [stopping, asyncio.create_task(run.done.wait())], return_when="FIRST_COMPLETED"
    )
    for t in [*readers, stopping]:
        t.cancel()
    for ws in sockets:
        with contextlib.suppress(Exception):
            await ws.close()
    stats["games"] += 1


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


def _loop_factory() -> Any:
    try:
        import uvloop
    except ModuleNotFoundError:  # uvicorn[standard] brings it; plain asyncio works too
        return None
    return uvloop.new_event_loop


def _load_main() -> None:  # the client process
    import gc

    gc.set_threshold(50_000, 50, 1000)
    base, tables, rate, seconds, warmup = sys.argv[1:6]
    # The clients share the machine with the server: the leaner loop leaves it more of the CPU.
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        out = runner.run(_load(base, int(tables), float(rate), float(seconds), float(warmup)))
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
