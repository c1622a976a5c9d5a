"""The lean players of ``tranque bench server`` and ``bench cluster``: one WebSocket seat each.

The load generator shares the machine with the server it measures, so its players are lean:
typed decoding of the few fields they read, no frames kept. A player answers its turn, its
fairness duties and its resyncs; ``TableRun`` keeps one table's timings. How many tables play,
and the figures read from them, are ``bench.load``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import secrets
import time
from collections.abc import Callable
from typing import Any

import msgspec

from tranque.commandline import CommandError
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


class Event(msgspec.Struct):
    type: str
    hand: int | None = None
    n: int | None = None
    by: str | None = None
    seq: int = 0  # in a sync's ``missed`` only (a live event's is the frame's)


class Frame(msgspec.Struct):
    type: str
    seq: int = 0
    id: str | None = None
    event: Event | None = None
    state: _State | None = None
    code: str | None = None
    missed: list[Event] | None = None


decode_frame = msgspec.json.Decoder(Frame).decode
encode = msgspec.json.Encoder().encode


class TableRun:
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

    def first_at(self, now: float, spread: float) -> float:
        """When the table's first move goes: at a random moment of the next ``spread`` seconds
        (tables that sit down over that time, as a crowd does) or, at a rate, of the next
        1/rate seconds when that is longer. Drawn, not read off the clock: thousands of tasks
        that wake together from the busy load's loop read the same moment."""
        span = max(spread, 1.0 / self.rate if self.rate > 0 else 0.0)
        return now + random.random() * span

    def tick_after(self, at: float) -> float:
        """The table's next move time after a move at ``at``: the next tick of its own
        schedule (one every 1/rate seconds from a random start), at most 1/rate after ``at``.

        A late move (a slow answer, the pause between two hands) goes at once, but the next one
        keeps the table's tick: were it 1/rate after the late one, every table held up by one
        slow stretch of the server would play in step from then on (at 2,000 tables, 800 moves
        in one quarter of every second and 90 in another), which no crowd of players does.
        """
        step = 1.0 / self.rate
        return self.next_at + (math.floor((at - self.next_at) / step) + 1) * step

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


class Player:
    """A lean bench client: one socket, typed decoding of the few fields it needs.

    It takes the fairness duties (commit, then reveal, a fresh seed per hand), plays a random
    legal move the moment its turn comes (or on the table's schedule at a fixed rate), and never
    keeps frames: the load generator shares the machine with the server it measures.

    It also counts what a client must never see: an event twice, or a hole in the sequence
    numbers that its resync (``sync`` with its last seq, as the protocol asks) does not fill.
    """

    def __init__(self, ws: Any, run: TableRun, seed: int) -> None:
        self.ws = ws
        self.run = run
        self.rng = random.Random(seed)
        self.seq = 0  # the last event seen, every one before it seen too (once ``based``)
        self.based = False  # a sync has given the position the sequence numbers count from
        self.resyncing = False  # a gap was seen: live events wait for the sync's ``missed``
        self.moves_seen = 0  # played events since the deal: the index the next play gets
        self.acted: tuple[int, int] | None = None
        self.seeds: dict[int, bytes] = {}
        self.ids = 0
        self.asked: dict[str, float] = {}  # command id -> when it was sent

    def _send(self, msg: dict[str, Any]) -> None:
        self.ids += 1
        cid = msg["id"] = str(self.ids)
        self.asked[cid] = time.perf_counter()
        task = asyncio.ensure_future(self.ws.send(encode(msg).decode()))
        task.add_done_callback(ignore_outcome)

    async def read(self) -> None:
        async for text in self.ws:
            self.take(decode_frame(text), time.perf_counter())

    def take(self, f: Frame, now: float) -> None:
        run = self.run
        if f.type == "event" and f.event is not None:
            if self.based and f.seq != self.seq + 1:
                self._gap(f.seq)
                return
            self._event(f.seq, f.event, now)
        elif f.type == "sync":
            self._synced(f, now)
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
        if f.state is not None and not self.resyncing:
            self._decide(f.state)

    def _event(self, seq: int, ev: Event, now: float) -> None:
        self.seq = seq
        if ev.type == "played" and ev.hand is not None and ev.n is not None:
            self.run.saw_move((ev.hand, ev.n), ev.by, now)
            self.moves_seen = ev.n + 1
        elif ev.type == "dealt":
            self.moves_seen = 0

    def _gap(self, seq: int) -> None:
        """A live event that is not the next one: a repeat is dropped; past a hole, the client
        asks for a sync from its last seq and leaves the events until then to its ``missed``."""
        stats = self.run.stats
        if seq <= self.seq:
            stats["duplicates"] += 1
        elif not self.resyncing:
            self.resyncing = True
            stats["resyncs"] += 1
            task = asyncio.ensure_future(
                self.ws.send(encode({"type": "sync", "last_seq": self.seq}).decode())
            )
            task.add_done_callback(ignore_outcome)

    def _synced(self, f: Frame, now: float) -> None:
        """A sync: the events it says were missed fill the hole since the last seq seen; what
        they leave out, up to the sync's own seq, is lost."""
        if self.based:
            stats = self.run.stats
            if f.missed is None and f.seq > self.seq:
                stats["resyncs_without_missed"] += 1
            for ev in f.missed or ():
                if ev.seq <= self.seq:
                    continue
                stats["lost"] += ev.seq - self.seq - 1
                self._event(ev.seq, ev, now)
            stats["lost"] += max(0, f.seq - self.seq)
        self.seq = f.seq
        self.based = True
        self.resyncing = False

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
                run.next_at = run.tick_after(at)
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


def ignore_outcome(task: asyncio.Future[Any]) -> None:
    """A done callback for a send nobody awaits: its exception (a closed socket) is read, so
    that asyncio does not report it as never retrieved."""
    if not task.cancelled():
        task.exception()


async def add_guest(http: Any, nickname: str) -> dict[str, Any]:
    r = await http.post("/api/guests", json={"nickname": nickname})
    r.raise_for_status()
    return dict(r.json())


async def add_table(http: Any, host: dict[str, Any], options: dict[str, Any]) -> str:
    body = {"rules": "havana", "move_clock": 600, **options}
    r = await http.post(
        "/api/tables", json=body, headers={"Authorization": f"Bearer {host['token']}"}
    )
    r.raise_for_status()
    return str(r.json()["table"])


class Refused(CommandError):
    """The server answered with an error frame: its code (``unavailable``: try again soon)."""

    def __init__(self, what: str, code: str | None) -> None:
        super().__init__(f"{what} refused: {code}")
        self.code = code


async def connect(base: str, open_timeout: float) -> Any:
    """A bench client's socket to the server at ``base``, as a browser opens it: no compression
    and no keepalive pings (a browser sends none; the page pings only after 8 s of silence; the
    client's default, one every 20 s, made 400 pings a second at 8,000 sockets)."""
    import websockets

    url = base.replace("http", "ws", 1) + "/ws"
    return await websockets.connect(
        url, max_size=2**22, open_timeout=open_timeout, compression=None, ping_interval=None
    )


async def join(base: str, guest: dict[str, Any], tid: str, sit: int | None) -> Any:
    ws = await connect(base, open_timeout=120)
    await ws.send(encode({"type": "hello", "token": guest["token"], "table": tid}).decode())
    await _answer(ws, "sync", None, "hello")
    if sit is not None:
        await ws.send(encode({"type": "sit", "id": "sit", "seat": sit}).decode())
        try:
            await _answer(ws, "ack", "sit", f"seat {sit}")
        except Refused as exc:
            # A sit sent again after a lost answer finds the seat already its own.
            if exc.code != "already_seated":
                raise
    return ws


async def _answer(ws: Any, kind: str, cid: str | None, what: str) -> None:
    """Read up to the answer of ``kind``; an error for ``cid`` instead closes the socket."""
    while True:
        f = decode_frame(await ws.recv())
        if f.type == kind:
            return
        if f.type == "error" and f.id == cid:
            await ws.close()
            raise Refused(what, f.code)


async def play(
    sockets: list[Any],
    run: TableRun,
    stats: dict[str, Any],
    stop: asyncio.Event,
    ready: asyncio.Event,
    player: Callable[[Any, TableRun, int], Player] = Player,
    spread: float = 0.0,
) -> None:
    stats["seated"] += 1
    await ready.wait()
    if run.rate > 0 or spread > 0:
        # Tables start out of step, as they would in life: each at its own random point of the
        # second (or of the spread), drawn now (``TableRun.first_at``).
        run.next_at = run.first_at(time.perf_counter(), spread)
        await asyncio.sleep(run.next_at - time.perf_counter())
    players = [player(ws, run, s) for s, ws in enumerate(sockets)]
    readers = [asyncio.create_task(p.read()) for p in players]
    for p in players:  # the state each was sent while the others sat
        await p.ws.send(encode({"type": "sync", "last_seq": None}).decode())
    stopping = asyncio.create_task(stop.wait())
    finished = asyncio.create_task(run.done.wait())
    await asyncio.wait([stopping, finished], return_when=asyncio.FIRST_COMPLETED)
    for t in [*readers, stopping, finished]:
        t.cancel()
    for p in players:  # a player may have moved to another socket meanwhile
        with contextlib.suppress(Exception):
            await p.ws.close()
    stats["games"] += 1
