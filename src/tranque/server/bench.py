"""``tranque bench server``: a real server process, and tables of WebSocket clients against it.

The server runs in its own process (``tranque serve`` on a temporary SQLite file, every event
persisted, bots in its worker processes); the clients run in this one, on one event loop. Each
people table's four players play at R moves per second (or flat out: each plays the moment its
turn comes); passes are the server's. ``--practice K`` adds K practice tables beside them: one
fast player each (he plays the moment his turn comes) and three bots of ``--bot-level``.

Reported: the people tables' moves per second (passes included: what the clients received),
latency from a play command to the last of the four recipients' frames for it, and from a command
to its ack (p50, p99); for the practice tables, their players' ack latency and the bots' plays
per second; the CPU of the server, of its bot workers and of the clients, and the server's memory.
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

from tranque.commands import CommandError, print_figures
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
    by: str | None = None


class _Frame(msgspec.Struct):
    type: str
    seq: int = 0
    id: str | None = None
    event: _Event | None = None
    state: _State | None = None
    code: str | None = None


_decode_frame = msgspec.json.Decoder(_Frame).decode
_encode = msgspec.json.Encoder().encode


class _TableRun:
    """One table's players: when each move was sent, who has seen it, how fast acks came."""

    def __init__(self, rate: float, stats: dict[str, Any], *, practice: bool = False) -> None:
        self.rate = rate
        self.stats = stats
        self.practice = practice
        self.recipients = 1 if practice else 4
        self.acks: list[float] = stats["ack_practice" if practice else "ack_people"]
        self.sent: dict[tuple[int, int], float] = {}  # (hand, move index) -> send time
        self.seen: dict[tuple[int, int], int] = {}
        self.next_at = 0.0
        self.done = asyncio.Event()

    def saw_move(self, key: tuple[int, int], by: str | None, now: float) -> None:
        stats = self.stats
        if self.practice:
            if by == "bot" and stats["measuring"]:
                stats["bot_plays"] += 1
            return
        n = self.seen.get(key, 0) + 1
        if n < self.recipients:
            self.seen[key] = n
            return
        del self.seen[key]
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
        self.asked: dict[str, float] = {}  # command id -> when it was sent

    def _send(self, msg: dict[str, Any]) -> None:
        self.ids += 1
        cid = msg["id"] = str(self.ids)
        self.asked[cid] = time.perf_counter()
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
                    run.saw_move((ev.hand, ev.n), ev.by, now)
                    self.moves_seen = ev.n + 1
                elif ev.type == "dealt":
                    self.moves_seen = 0
            elif f.type == "sync":
                self.seq = f.seq
            elif f.type in ("ack", "error") and f.id is not None:
                asked = self.asked.pop(f.id, None)
                if asked is not None and run.stats["measuring"]:
                    run.acks.append(now - asked)
                # Refusals that are part of the game, not failures: a play the table moved past,
                # and a seed that came after its window closed (a table that started while the
                # benchmark was still seating the others deals without it, as documented).
                if f.type == "error" and f.code not in _EXPECTED_REFUSALS:
                    run.stats["errors"] += 1
                    codes = run.stats["error_codes"]
                    codes[f.code] = codes.get(f.code, 0) + 1
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


_EXPECTED_REFUSALS = ("stale", "not_your_turn", "duplicate", "no_commit_due", "no_reveal_due")


def _ignore(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def _people_table(
    base: str,
    http: Any,
    guests: list[dict[str, Any]],
    rate: float,
    stats: dict[str, Any],
    stop: asyncio.Event,
    ready: asyncio.Event,
) -> None:
    tid = await _new_table(http, guests[0], {"practice": False})
    sockets = []
    for s, g in enumerate(guests):
        sockets.append(await _join(base, g, tid, sit=s if s else None))
    await _play(sockets, _TableRun(rate, stats), stats, stop, ready)


async def _practice_table(
    base: str,
    http: Any,
    guest: dict[str, Any],
    level: str,
    stats: dict[str, Any],
    stop: asyncio.Event,
    ready: asyncio.Event,
) -> None:
    tid = await _new_table(http, guest, {"practice": True, "seat": 0, "bot": level})
    ws = await _join(base, guest, tid, sit=None)
    await _play([ws], _TableRun(0.0, stats, practice=True), stats, stop, ready)


async def _guest(http: Any, nickname: str) -> dict[str, Any]:
    r = await http.post("/api/guests", json={"nickname": nickname})
    r.raise_for_status()
    return dict(r.json())


async def _new_table(http: Any, host: dict[str, Any], options: dict[str, Any]) -> str:
    body = {"rules": "havana", "move_clock": 600, **options}
    r = await http.post(
        "/api/tables", json=body, headers={"Authorization": f"Bearer {host['token']}"}
    )
    r.raise_for_status()
    return str(r.json()["table"])


async def _join(base: str, guest: dict[str, Any], tid: str, sit: int | None) -> Any:
    import websockets

    url = base.replace("http", "ws", 1) + "/ws"
    ws = await websockets.connect(url, max_size=2**22, open_timeout=120, compression=None)
    await ws.send(_encode({"type": "hello", "token": guest["token"], "table": tid}).decode())
    while _decode_frame(await ws.recv()).type != "sync":
        pass
    if sit is not None:
        await ws.send(_encode({"type": "sit", "id": "sit", "seat": sit}).decode())
        while _decode_frame(await ws.recv()).type != "ack":
            pass
    return ws


async def _play(
    sockets: list[Any],
    run: _TableRun,
    stats: dict[str, Any],
    stop: asyncio.Event,
    ready: asyncio.Event,
) -> None:
    stats["seated"] += 1
    await ready.wait()
    if run.rate > 0:  # tables start out of step, as they would in life
        await asyncio.sleep(random.random() / run.rate)
        run.next_at = time.perf_counter()
    players = [_Player(ws, run, s) for s, ws in enumerate(sockets)]
    readers = [asyncio.create_task(p.read()) for p in players]
    for p in players:  # the state each was sent while the others sat
        await p.ws.send(_encode({"type": "sync", "last_seq": None}).decode())
    stopping = asyncio.create_task(stop.wait())
    finished = asyncio.create_task(run.done.wait())
    await asyncio.wait([stopping, finished], return_when=asyncio.FIRST_COMPLETED)
    for t in [*readers, stopping, finished]:
        t.cancel()
    for ws in sockets:
        with contextlib.suppress(Exception):
            await ws.close()
    stats["games"] += 1


def _pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return float(round(1000 * ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2))


async def _load(plan: dict[str, Any]) -> dict[str, Any]:
    base, tables, practice = plan["base"], plan["tables"], plan["practice"]
    stats: dict[str, Any] = {
        "moves": 0,
        "latency": [],
        "ack_people": [],
        "ack_practice": [],
        "bot_plays": 0,
        "errors": 0,
        "error_codes": {},
        "games": 0,
        "seated": 0,
        "measuring": False,
    }
    stop = asyncio.Event()
    ready = asyncio.Event()
    http = httpx.AsyncClient(base_url=base, timeout=120, limits=httpx.Limits(max_connections=20))

    # The same people play game after game: a finished table is followed by a new one.
    async def people_forever() -> None:
        guests = [await _guest(http, f"b{i}") for i in range(4)]
        while not stop.is_set():
            await _people_table(base, http, guests, plan["rate"], stats, stop, ready)

    async def practice_forever() -> None:
        guest = await _guest(http, "p")
        while not stop.is_set():
            await _practice_table(base, http, guest, plan["level"], stats, stop, ready)

    tasks = [asyncio.create_task(people_forever()) for _ in range(tables)]
    tasks += [asyncio.create_task(practice_forever()) for _ in range(practice)]
    while stats["seated"] < tables + practice:  # every table seated before anybody plays
        await asyncio.sleep(0.2)
    ready.set()
    await asyncio.sleep(plan["warmup"])
    stats["measuring"] = True
    m0 = stats["moves"]
    t0 = time.perf_counter()
    print(json.dumps({"phase": "measuring"}), flush=True)
    await asyncio.sleep(plan["seconds"])
    elapsed = time.perf_counter() - t0
    moves = stats["moves"] - m0
    stats["measuring"] = False
    print(json.dumps({"phase": "done"}), flush=True)
    stop.set()
    await asyncio.wait(tasks, timeout=10)
    for t in tasks:
        t.cancel()
    lat, acks = stats["latency"], stats["ack_people"]
    out: dict[str, Any] = {
        "moves_per_second": round(moves / elapsed, 1),
        "latency_ms_p50": _pct(lat, 0.50),
        "latency_ms_p99": _pct(lat, 0.99),
        "latency_samples": len(lat),
        "ack_ms_p50": _pct(acks, 0.50),
        "ack_ms_p99": _pct(acks, 0.99),
        "errors": stats["errors"],
        "error_codes": stats["error_codes"],
    }
    if practice:
        pa = stats["ack_practice"]
        out["practice_ack_ms_p50"] = _pct(pa, 0.50)
        out["practice_ack_ms_p99"] = _pct(pa, 0.99)
        out["practice_ack_samples"] = len(pa)
        out["bot_plays_per_second"] = round(stats["bot_plays"] / elapsed, 1)
    return out


def _loop_factory() -> Any:
    try:
        import uvloop
    except ModuleNotFoundError:  # uvicorn[standard] brings it; plain asyncio works too
        return None
    return uvloop.new_event_loop


def _load_main() -> None:  # the client process
    import gc

    gc.set_threshold(50_000, 50, 1000)
    plan = json.loads(sys.argv[1])
    # The clients share the machine with the server: the leaner loop leaves it more of the CPU.
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        out = runner.run(_load(plan))
    print(json.dumps({"result": out}), flush=True)


def _cpu(procs: list[Any]) -> float:
    """CPU seconds (user + system) of the processes that are still there."""
    total = 0.0
    for proc in procs:
        with contextlib.suppress(Exception):
            t = proc.cpu_times()
            total += t.user + t.system
    return total


def start_server(db: str, extra: list[str]) -> tuple[subprocess.Popen[str], str]:
    """``tranque serve`` for a benchmark, on a free loopback port: the process and its address.

    Every client of a benchmark is one address, so the per-client limits are off.
    """
    cmd = [sys.executable, "-m", "tranque.cli", "serve", "--host", "127.0.0.1", "--port", "0"]
    cmd += ["--db", db, "--rate", "1000", *extra]
    cmd += ["--guests-per-minute", "0", "--tables-per-minute", "0", "--max-sockets-per-ip", "0"]
    cmd += ["--max-open-tables", "0"]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    if "serving at" not in line:
        stop_process(server)
        raise CommandError(f"the server did not start: {line!r}")
    return server, line.split()[3].rstrip("/")


def stop_process(proc: subprocess.Popen[str] | None) -> None:
    """SIGTERM, then SIGKILL if it has not ended within 15 s."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_bench(args: argparse.Namespace) -> int:
    import psutil

    if args.tables < 1 and args.practice < 1:
        raise CommandError("--tables (or --practice) must be at least 1")
    if args.tables < 0 or args.practice < 0:
        raise CommandError("--tables and --practice count tables: 0 or more")
    tmp = tempfile.mkdtemp(prefix="tranque-bench-")
    db = args.db or f"sqlite:///{Path(tmp) / 'bench.db'}"
    pass_delay = args.pass_delay
    if pass_delay is None:
        pass_delay = 0.0 if args.rate <= 0 else round(1.0 / args.rate, 3)
    extra = ["--pass-delay", str(pass_delay), "--bot-delay", str(args.bot_delay)]
    extra += ["--between-hands", "0", "--grace", "600"]
    if args.workers is not None:
        extra += ["--workers", str(args.workers)]
    load: subprocess.Popen[str] | None = None
    result: dict[str, Any] = {}
    server, base = start_server(db, extra)
    try:
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
        }
        load = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from tranque.server.bench import _load_main; _load_main()",
                json.dumps(plan),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert load.stdout is not None
        lproc = psutil.Process(load.pid)
        workers: list[Any] = []
        cpu0 = wcpu0 = lcpu0 = t0 = 0.0
        for out in load.stdout:
            msg = json.loads(out)
            if msg.get("phase") == "measuring":
                workers = proc.children(recursive=True)
                cpu0, wcpu0, lcpu0 = _cpu([proc]), _cpu(workers), _cpu([lproc])
                t0 = time.perf_counter()
            elif msg.get("phase") == "done" and t0:
                wall = time.perf_counter() - t0
                result["server_cpu_percent"] = round(100 * (_cpu([proc]) - cpu0) / wall, 1)
                result["workers_cpu_percent"] = round(100 * (_cpu(workers) - wcpu0) / wall, 1)
                result["clients_cpu_percent"] = round(100 * (_cpu([lproc]) - lcpu0) / wall, 1)
                result["server_rss_mb"] = round(proc.memory_info().rss / 2**20, 1)
            elif "result" in msg:
                result.update(msg["result"])
        load.wait(timeout=60)
    finally:
        stop_process(load)
        stop_process(server)
    result["tables"] = args.tables
    result["practice_tables"] = args.practice
    result["rate_per_table"] = args.rate or "flat out"
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
