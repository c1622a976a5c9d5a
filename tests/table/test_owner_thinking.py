"""The owner and its Thinker: a table goes on serving while its bot thinks, and an answer to a
question the table no longer asks is dropped. A real owner, the real SQLite store, real bots (on
a thread); the thinker holds chosen decisions behind a gate, so nothing here depends on timing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tranque.store import open_store
from tranque.table.lobby import Lobby
from tranque.table.ports import ThinkRequest, WallClock
from tranque.table.service import TableSettings, fixed_seeds
from tranque.table.thinking import think

QUICK = TableSettings(
    bot="random",
    bot_delay=0,
    pass_delay=0,
    between_hands=0,
    fair_window=0.05,
    choose_window=0.05,
    redeal_window=0.05,
    move_clock=0.2,
)


class GatedThinker:
    """Thinks on a thread; holds every decision ``hold`` picks until ``gate`` is set."""

    def __init__(self, hold: Any) -> None:
        self.hold = hold
        self.gate = asyncio.Event()
        self.held: list[ThinkRequest] = []
        self.asked = asyncio.Event()
        self.returned: list[ThinkRequest] = []
        self.dropped: list[ThinkRequest] = []  # the owner stopped waiting for them

    async def decide(self, request: ThinkRequest) -> str | bool:
        if not self.gate.is_set() and self.hold(request):
            self.held.append(request)
            self.asked.set()
            try:
                await self.gate.wait()
            except asyncio.CancelledError:
                self.dropped.append(request)
                raise
        answer = await asyncio.to_thread(think, request)
        self.returned.append(request)
        return answer


class Person:
    """A subscriber at seat 0: keeps every frame it is sent."""

    def __init__(self, guest: str) -> None:
        self.guest: str | None = guest
        self.watcher = False
        self.frames: list[dict[str, Any]] = []
        self.changed = asyncio.Event()

    def push(self, frame: bytes) -> None:
        self.frames.append(json.loads(frame))
        self.changed.set()

    async def until(self, pred: Any, timeout: float = 30) -> None:
        async def wait() -> None:
            while not pred():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(wait(), timeout)


def test_a_late_clock_answer_is_dropped_when_the_person_played_meanwhile(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 't.db'}")
        thinker = GatedThinker(hold=lambda r: r.by == "clock" and r.kind == "action")
        lobby = Lobby(store, WallClock(), fixed_seeds(b"unit"), QUICK, thinker=thinker)
        owner = await lobby.create("ana", "Ana", QUICK, seat=0)
        ana = Person("ana")
        owner.attach(ana, None)
        # Ana lets her move clock run out: the clock's move is being thought about...
        await asyncio.wait_for(thinker.asked.wait(), 60)
        (held,) = thinker.held
        assert held.seat == 0 and held.kind == "action"
        svc = owner.service
        n_before = svc.seq
        # ... and the table goes on answering her meanwhile: she plays, and it is hers.
        legal = svc.state_for(0)["legal"]
        assert legal
        owner.command(ana, {"type": "play", "id": "mine", "seq": svc.version, "move": legal[0]})
        await ana.until(lambda: any(f.get("id") == "mine" for f in ana.frames))
        reply = next(f for f in ana.frames if f.get("id") == "mine")
        assert reply["type"] == "ack", reply
        # The table stopped waiting for the clock's answer: the question is no longer asked.
        await ana.until(lambda: held in thinker.dropped)
        thinker.gate.set()
        await ana.until(lambda: svc.seq >= reply["seq"] + 3)  # the bots play on
        await lobby.close()
        log = await store.load_events(owner.table_id)
        await store.close()
        mine = next(e for e in log if e.seq == reply["seq"])
        assert mine.type == "played" and mine.data["by"] == "person" and mine.seq > n_before
        after = [e for e in log if e.seq > mine.seq and e.type == "played"]
        assert after and after[0].data["seat"] == 1  # the next to play; no second move of hers
        assert not any(e.data.get("by") == "clock" for e in log if e.type == "played")

    asyncio.run(go())


def test_a_table_answers_commands_while_its_bot_thinks(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 't.db'}")
        thinker = GatedThinker(hold=lambda r: r.by == "bot")
        lobby = Lobby(store, WallClock(), fixed_seeds(b"unit"), QUICK, thinker=thinker)
        owner = await lobby.create("ana", "Ana", QUICK, seat=0)
        ana = Person("ana")
        owner.attach(ana, None)
        await asyncio.wait_for(thinker.asked.wait(), 60)
        seq = owner.service.seq
        # A bot's decision is out; Ana's commands are answered (here, refused) all the same.
        owner.command(ana, {"type": "sit", "id": "again", "seat": 1})
        owner.sync(ana, None)
        await ana.until(lambda: any(f.get("id") == "again" for f in ana.frames))
        await ana.until(lambda: sum(f["type"] == "sync" for f in ana.frames) >= 2)
        assert next(f for f in ana.frames if f.get("id") == "again")["code"] == "started"
        assert owner.service.seq == seq  # nothing from the bot yet
        thinker.gate.set()
        await ana.until(lambda: owner.service.seq > seq)
        await lobby.close()
        await store.close()

    asyncio.run(go())
