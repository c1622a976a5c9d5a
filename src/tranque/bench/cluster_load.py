"""The load process of ``tranque bench cluster``: tables of four people spread over the nodes.

It is ``tranque bench server``'s load (the same lean players, the same phases and figures) with
what a cluster adds. Table *i* is created through node *i*, and its four players say hello through
the nodes after it in turn, so with two nodes or more every table has recipients on several nodes
and its creator plays through a node other than the one that made it. A player whose node dies
(or closes its socket) says hello again to the next node that answers, with its last sequence
number, and sends again, with the same ids, the commands that had no answer; the events its
sync says it missed fill the hole, and what they leave out is counted as lost.

The parent writes a line on standard input for each node it kills (its name, when, and the tables
it owned); the first event after it at each of those tables gives that table's takeover time. Its
last line says the kills are over: the measure lasts until then, however long the restarts took.
Once measured, the records of the games that finished are fetched and verified.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import websockets

from tranque.bench.load import figures, load_main, measure, new_stats, pct
from tranque.bench.player import (
    Event,
    Frame,
    Player,
    Refused,
    TableRun,
    add_guest,
    add_table,
    connect,
    decode_frame,
    encode,
    ignore_outcome,
    join,
    play,
)
from tranque.commandline import CommandError
from tranque.fair.verify import verify_record
from tranque.rules.errors import RulesError

T = TypeVar("T")

# What a node answers while a table changes owners: try again (elsewhere) soon.
FAILOVER = ("unavailable", "table_moved")

# How long a node may take to answer again (a takeover, a restart) before the load gives up.
PATIENCE = 60.0


class _ClusterRun(TableRun):
    """A table's run, with its players and the kill it waits to see the end of."""

    def __init__(self, rate: float, stats: dict[str, Any]) -> None:
        super().__init__(rate, stats)
        self.players: list[_Roamer] = []
        self.watch: tuple[float, int] | None = None  # (time of a kill, last seq seen before it)

    def killed(self, at: float) -> None:
        """Its owner was killed at ``at``: the next event past what anyone has seen ends it."""
        if self.watch is None and not self.done.is_set():
            self.watch = (at, max((p.seq for p in self.players), default=0))
            self.stats["tables_stopped"] += 1


class _Roamer(Player):
    """A bench player that outlives its node: it says hello again to the next node that answers.

    The commands it sent that had no answer are sent again with the same ids (a node that took
    one answers it and applies nothing twice), and it decides again from the sync it gets.
    """

    def __init__(
        self, ws: Any, run: _ClusterRun, seed: int, bases: list[str], at: int, hello: str
    ) -> None:
        super().__init__(ws, run, seed)
        self.cluster = run
        self.bases = bases
        self.at = at  # the node its socket is on
        self.hello = hello
        self.unanswered: dict[str, bytes] = {}
        run.players.append(self)

    def _send(self, msg: dict[str, Any]) -> None:
        super()._send(msg)
        self.unanswered[msg["id"]] = encode(msg)

    def take(self, f: Frame, now: float) -> None:
        if f.type == "error" and f.code in FAILOVER:
            # The table left this node under the command: not applied. Reconnect, and send it
            # again with its id from wherever the table is now.
            _refused(self.run.stats, f.code)
            asyncio.ensure_future(self.ws.close()).add_done_callback(ignore_outcome)
            return
        if f.id is not None and f.type in ("ack", "error"):
            self.unanswered.pop(f.id, None)
        super().take(f, now)

    def _event(self, seq: int, ev: Event, now: float) -> None:
        super()._event(seq, ev, now)
        watch = self.cluster.watch
        if watch is not None and seq > watch[1]:
            self.cluster.watch = None
            self.run.stats["takeovers"].append(time.monotonic() - watch[0])

    async def read(self) -> None:
        while True:
            with contextlib.suppress(websockets.ConnectionClosed, OSError):
                await super().read()
            try:
                await self._reconnect()
            except CommandError:  # no node took it back: counted, and its table stands still
                self.run.stats["stranded"] += 1
                return

    async def _reconnect(self) -> None:
        stats = self.run.stats
        stats["reconnects"] += 1
        pause = 0.05
        end = time.monotonic() + PATIENCE
        while True:
            self.at = (self.at + 1) % len(self.bases)
            ws = None
            try:
                ws = await _connect(self.bases[self.at])
                await ws.send(f'{self.hello[:-1]},"last_seq":{self.seq}}}')
                while True:
                    f = decode_frame(await asyncio.wait_for(ws.recv(), 30))
                    if f.type == "sync":
                        break
                    if f.type == "error":
                        raise Refused("hello", f.code)
            except (OSError, TimeoutError, websockets.WebSocketException, Refused) as exc:
                if isinstance(exc, Refused):
                    _refused(stats, exc.code)
                if ws is not None:
                    with contextlib.suppress(Exception):
                        await ws.close()
                if time.monotonic() > end:
                    raise CommandError(f"no node took a player back in {PATIENCE:g} s") from None
                await asyncio.sleep(pause)
                pause = min(2 * pause, 1.0)
                continue
            break
        self.ws = ws
        self.acted = None  # decide again from the sync, whatever was asked before
        for msg in self.unanswered.values():
            await ws.send(msg.decode())
        self.take(f, time.perf_counter())


def _refused(stats: dict[str, Any], code: str | None) -> None:
    codes = stats["failover_refusals"]
    codes[str(code)] = codes.get(str(code), 0) + 1


async def _connect(base: str) -> Any:
    return await connect(base, open_timeout=10)


async def _on_any(
    clients: list[httpx.AsyncClient], first: int, call: Callable[[httpx.AsyncClient], Awaitable[T]]
) -> T:
    """``call`` through node ``first``, else the next ones in turn until one answers."""
    pause = 0.05
    end = time.monotonic() + PATIENCE
    k = first
    while True:
        try:
            return await call(clients[k % len(clients)])
        except httpx.HTTPError as exc:
            if time.monotonic() > end:
                raise CommandError(f"no node answered in {PATIENCE:g} s: {exc}") from None
        k += 1
        if k % len(clients) == first % len(clients):
            await asyncio.sleep(pause)
            pause = min(2 * pause, 1.0)


async def _join_any(
    bases: list[str],
    first: int,
    guest: dict[str, Any],
    tid: str,
    sit: int | None,
    stats: dict[str, Any],
) -> tuple[Any, int]:
    """A seated socket through node ``first``, else the next one that answers; and its node."""
    end = time.monotonic() + PATIENCE
    k = first
    while True:
        at = k % len(bases)
        try:
            return await join(bases[at], guest, tid, sit), at
        except (OSError, TimeoutError, websockets.WebSocketException, Refused) as exc:
            if isinstance(exc, Refused):
                if exc.code not in FAILOVER:
                    raise
                _refused(stats, exc.code)
            if time.monotonic() > end:
                raise CommandError(f"no node seated a player in {PATIENCE:g} s: {exc}") from None
            await asyncio.sleep(0.05)
        k += 1


async def _table(
    i: int,
    plan: dict[str, Any],
    clients: list[httpx.AsyncClient],
    guests: list[dict[str, Any]],
    stats: dict[str, Any],
    runs: dict[str, _ClusterRun],
    stop: asyncio.Event,
    ready: asyncio.Event,
) -> None:
    """One game at slot ``i``: made through node i, its seats through the nodes after it."""
    bases: list[str] = plan["bases"]
    tid = await _on_any(clients, i, lambda h: add_table(h, guests[0], {"practice": False}))
    sockets, where = [], []
    for s, g in enumerate(guests):
        ws, at = await _join_any(bases, i + s + 1, g, tid, s if s else None, stats)
        sockets.append(ws)
        where.append(at)
    stats["tables_made"] += 1
    if len(set(where)) > 1:
        stats["tables_across_nodes"] += 1
    run = _ClusterRun(plan["rate"], stats)
    hellos = [encode({"type": "hello", "token": g["token"], "table": tid}).decode() for g in guests]

    def roamer(ws: Any, run: TableRun, s: int) -> Player:
        assert isinstance(run, _ClusterRun)
        return _Roamer(ws, run, s, bases, where[s], hellos[s])

    runs[tid] = run
    try:
        await play(sockets, run, stats, stop, ready, roamer)
    finally:
        del runs[tid]
        if run.watch is not None and not run.done.is_set():
            stats["takeovers_unresolved"] += 1
    if run.done.is_set():
        stats["finished"].append(tid)


async def _notices(runs: dict[str, _ClusterRun], over: asyncio.Event) -> None:
    """The parent's kills, one JSON line each: every table the dead node owned is watched.
    Its last line says the kills are over (``over`` is set then, or when the pipe closes)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    try:
        while line := await reader.readline():
            note = json.loads(line)
            if note.get("kills_over"):
                return
            owned = note["tables"]
            for tid, run in list(runs.items()):
                if owned is None or tid in owned:
                    run.killed(note["at"])
    finally:
        over.set()


async def _settled(runs: dict[str, _ClusterRun], seconds: float) -> None:
    """Until every table a kill stopped has moved again (at most ``seconds``)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(r.watch is not None for r in runs.values()):
        await asyncio.sleep(0.1)


async def _verified(clients: list[httpx.AsyncClient], tid: str) -> bool:
    """The finished table's record, fetched from any node, passes every check of verify."""

    async def fetch(http: httpx.AsyncClient) -> Any:
        r = await http.get(f"/api/tables/{tid}/record")
        r.raise_for_status()
        return r.json()

    record = await _on_any(clients, 0, fetch)
    try:
        return all(c.ok for c in verify_record(record))
    except RulesError:
        return False


async def cluster_load(plan: dict[str, Any]) -> dict[str, Any]:
    bases: list[str] = plan["bases"]
    stats = new_stats()
    stats.update(
        tables_made=0,
        tables_across_nodes=0,
        reconnects=0,
        stranded=0,
        failover_refusals={},
        takeovers=[],
        tables_stopped=0,
        takeovers_unresolved=0,
        finished=[],
    )
    stop, ready = asyncio.Event(), asyncio.Event()
    limits = httpx.Limits(max_connections=20)
    clients = [httpx.AsyncClient(base_url=b, timeout=30, limits=limits) for b in bases]
    runs: dict[str, _ClusterRun] = {}

    # The same four people play game after game at each slot, as in ``bench server``.
    async def table_forever(i: int) -> None:
        guests = [
            await _on_any(clients, i + s, functools.partial(add_guest, nickname=f"b{s}"))
            for s in range(4)
        ]
        while not stop.is_set():
            await _table(i, plan, clients, guests, stats, runs, stop, ready)

    # With kills, the measure lasts until the parent's kills are over (at least ``seconds``).
    kills_over = asyncio.Event()
    notices = asyncio.create_task(_notices(runs, kills_over)) if plan["kill"] else None
    tasks = [asyncio.create_task(table_forever(i)) for i in range(plan["tables"])]
    moves, elapsed = await measure(
        plan,
        stats,
        tasks,
        ready,
        stop,
        linger=lambda: _settled(runs, PATIENCE),
        hold=kills_over if plan["kill"] else None,
    )
    if notices is not None:
        notices.cancel()
    out = figures(stats, moves, elapsed)
    finished: list[str] = stats["finished"]
    verified = [await _verified(clients, tid) for tid in finished]
    for http in clients:
        await http.aclose()
    takeovers = stats["takeovers"]
    out.update(
        tables_made=stats["tables_made"],
        tables_across_nodes=stats["tables_across_nodes"],
        games_finished=len(finished),
        records_verified=sum(verified),
        records_failed=len(verified) - sum(verified),
        events_lost=stats["lost"],
        events_twice=stats["duplicates"],
        resyncs=stats["resyncs"],
        resyncs_without_missed=stats["resyncs_without_missed"],
        reconnects=stats["reconnects"],
        players_stranded=stats["stranded"],
        failover_refusals=stats["failover_refusals"],
    )
    if plan["kill"]:
        out.update(
            tables_stopped=stats["tables_stopped"],
            takeovers=len(takeovers),
            takeover_s_p50=_seconds(pct(takeovers, 0.50)),
            takeover_s_max=_seconds(pct(takeovers, 1.0)),
            takeovers_unresolved=stats["takeovers_unresolved"],
        )
    return out


def _seconds(ms: float | None) -> float | None:
    return None if ms is None else round(ms / 1000, 2)


def main() -> None:  # the client process
    load_main(cluster_load)
