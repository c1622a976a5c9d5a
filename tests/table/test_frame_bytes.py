"""Every frame an owner sends, pinned byte for byte over whole games: each recipient's event
frames (with their states), the syncs (with the events missed), the acks and the refusals, who
watches, and the goodbye of a closed table; and every entry the game logs, as the log stores it.
The digests were taken when all of these were plain dictionaries; typing them must not move a
byte."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field, replace

import msgspec

from tranque.table import entries
from tranque.table.entries import written
from tranque.table.frames import Error, PublicState, Said, Tally
from tranque.table.messages import as_command
from tranque.table.model import Seat
from tranque.table.owner import TableOwner
from tranque.table.owner_frames import frame
from tranque.table.ports import Entry
from tranque.table.rematch import Rematch
from tranque.table.service import TableService, TableSettings, fixed_seeds

GUESTS = ("ana", "beto", "cuca", "dani")
FAST = TableSettings(
    practice=False, pass_delay=0, bot_delay=0, between_hands=0, fair_window=1, move_clock=30
)
GOLDEN = {
    "free": (1002, "f8fb00d5e47d3ea2f377e64ce26d77439f32ebe1c2158d73a9010152d0922840"),
    "capped": (1002, "e540c2a7ef3dfca3ecbebcc19432523663ce77dc5cfb9a429a5fa026c12f62ed"),
}


@dataclass
class Recipient:
    guest: str | None
    watcher: bool = False
    nickname: str | None = None
    frames: list[bytes] = field(default_factory=list)

    def push(self, data: bytes) -> None:
        self.frames.append(data)


@dataclass
class Hands:
    """The test's clock: the owner reads the time the game is at."""

    at: float = 0.0

    def now(self) -> float:
        return self.at


def _seated(settings: TableSettings) -> TableService:
    svc = TableService("bytes", fixed_seeds(b"bytes"))
    svc.apply(Entry(1, "created", {"settings": settings.to_json(), "host": GUESTS[0]}, 0.0))
    for seat, guest in enumerate(GUESTS):
        svc.apply(Entry(svc.seq + 1, "sat", {"seat": seat, "guest": guest}, 0.0))
    return svc


def _decision(svc: TableService) -> tuple[int, dict[str, object]] | None:
    """The first person who has something to decide, and his command."""
    for seat in range(4):
        st = svc.state_for(seat)
        if st["legal"]:
            return seat, {"type": "play", "move": st["legal"][0]}
        if st["choosing"]:
            return seat, {"type": "choose", "choice": "sal_tu"}
        if st["redeal"]:
            return seat, {"type": "redeal", "ask": False}
    return None


async def _game(settings: TableSettings) -> tuple[int, str]:
    svc = _seated(settings)
    clock = Hands()
    owner = TableOwner(svc, store=None, clock=clock)  # type: ignore[arg-type]
    people = [Recipient(g) for g in GUESTS]
    watchers = [Recipient("mirón", watcher=True, nickname="Mirón"), Recipient("x", True)]
    everyone = [*people, *watchers]
    owner.subscribers = list(everyone)
    owner._spectators_changed()
    cmd = 0
    logged: list[bytes] = []  # each entry as the log stores it: its type and its data
    while not svc.over:
        entry = svc.due(clock.at)
        decided = None if entry is not None else _decision(svc)
        if entry is None and decided is not None:
            seat, msg = decided
            cmd += 1
            # Somebody out of turn is refused (and a resend of it gets the same refusal).
            wrong = as_command({"type": "play", "id": f"w{cmd}", "move": "66@L"})
            await owner._command(people[(seat + 1) % 4], wrong)
            await owner._command(people[(seat + 1) % 4], wrong)
            entry = svc.command(GUESTS[seat], {"id": f"c{cmd}", **msg}, clock.at)
        if entry is None:
            wake = svc.next_wake()
            assert wake is not None and wake > clock.at, "the table is stuck"
            clock.at = wake
            continue
        logged.append(msgspec.json.encode([entry.type, entry.data]))
        svc.apply(entry)
        for sub, data in owner._render(entry)[1]:
            sub.push(data)
        if decided is not None:  # the resend of a logged command gets its ack again
            again = as_command({"id": f"c{cmd}", **decided[1]})
            await owner._command(people[decided[0]], again)
        # Every fifth entry, and right after a hand's end (its log marks the play that ended it).
        if entry.seq % 5 == 0 or "hand_end" in svc.project(entry):
            for n, sub in enumerate(everyone):
                sub.push(owner._sync_frame(sub, None if n % 3 == 0 else entry.seq - n))
    owner.close("closing", "the table is closed")
    digest = hashlib.sha256()
    count = 0
    for data in [*(f for sub in everyone for f in sub.frames), *logged]:
        digest.update(data + b"\n")
        count += 1
    return count, digest.hexdigest()


def test_a_free_tables_frames_keep_their_bytes() -> None:
    assert asyncio.run(_game(FAST)) == GOLDEN["free"]


def test_a_capped_tables_frames_keep_their_bytes() -> None:
    """A capped game's state says when its time is up (``time_up``), a field only it has."""
    assert asyncio.run(_game(replace(FAST, time_cap=600.0))) == GOLDEN["capped"]


def test_a_states_clock_is_null_or_absent_as_it_always_was() -> None:
    """``deadline``: null when the seat to play has no clock, absent between hands; the
    fields a state has only at times are left out, never sent as null."""
    tally = Tally(1, 0, [0, 0], 2, False, None)
    state = PublicState("play", 3, 7, [0, 0], tally, 1, [6, 5], [9, 9, 8, 9])
    head = (
        b'{"phase":"play","hand":3,"version":7,"scores":[0,0],"match":{"game":1,"hand_base":0,'
        b'"wins":[0,0],"to_win":2,"over":false,"winner":null},"turn":1,"ends":[6,5],'
        b'"counts":[9,9,8,9]'
    )
    assert frame(state) == head + b"}"
    state.deadline = None
    assert frame(state) == head + b',"deadline":null}'
    state.next_hand, state.reading = 12.5, [0, 2]
    assert frame(state) == head + b',"deadline":null,"next_hand":12.5,"reading":[0,2]}'
    assert frame(Error(None, "closing", "bye")) == (
        b'{"type":"error","id":null,"code":"closing","message":"bye"}'
    )


def test_a_phrase_and_a_rematch_are_sent_as_they_always_were() -> None:
    assert frame(Said(2, "¡Agua!")) == '{"type":"said","seat":2,"phrase":"¡Agua!"}'.encode()
    rematch = Rematch({0: True, 1: False})
    rematch.swap.add(0)
    seats = [Seat(kind="person", guest=g) for g in ("ana", "beto", "cuca")] + [Seat(kind="bot")]
    assert frame(rematch.to_json(seats)) == (
        b'{"type":"rematch","answers":["yes","no",null,"bot"],"swap":[0],"table":null}'
    )


def test_the_entries_of_peoples_commands_are_written_as_they_always_were() -> None:
    """Seats taken, a new name, a bot, a seat left: the stored data, key for key, in order."""
    svc = TableService("writers", fixed_seeds(b"writers"))
    svc.apply(Entry(1, "created", {"settings": FAST.to_json(), "host": "ana"}, 0.0))
    stored = []
    for guest, msg in (
        ("ana", {"type": "sit", "id": "a1", "seat": 0, "nickname": "Ana"}),
        ("ana", {"type": "sit", "id": "a2", "seat": 0, "nickname": "Anita"}),
        ("ana", {"type": "add_bot", "id": "a3", "seat": 1}),
        ("beto", {"type": "sit", "id": "b1", "seat": 2}),
        ("beto", {"type": "leave", "id": "b2"}),
    ):
        entry = svc.command(guest, msg, 1.0)
        assert entry is not None
        svc.apply(entry)
        stored.append(msgspec.json.encode([entry.type, entry.data]))
    bot = svc.seats[1].bot
    assert stored == [
        b'["sat",{"seat":0,"nickname":"Ana","guest":"ana","cmd":"a1"}]',
        b'["sat",{"seat":0,"nickname":"Anita","renamed":true,"guest":"ana","cmd":"a2"}]',
        b'["bot_sat",{"seat":1,"bot":"%b","guest":"ana","cmd":"a3"}]' % str(bot).encode(),
        b'["sat",{"seat":2,"nickname":"guest","guest":"beto","cmd":"b1"}]',
        b'["stood",{"seat":2,"guest":"beto","cmd":"b2"}]',
    ]


def test_the_entries_an_owner_logs_itself_are_written_as_they_always_were() -> None:
    """Somebody back, away, never came; a resumed table, a forfeit, a fill of the free seats."""
    made = [
        written(entries.Back(seat=1)),
        written(entries.Away(seat=2)),
        written(entries.Away(seat=3, absent=True)),
        written(entries.Resumed(shift=12.5)),
        written(entries.Aborted(seat=0)),
        written(entries.FillSeats(seat=3, window=15.0, guest="ana", cmd="f1")),
    ]
    assert [msgspec.json.encode(m) for m in made] == [
        b'["back",{"seat":1}]',
        b'["away",{"seat":2}]',
        b'["away",{"seat":3,"absent":true}]',
        b'["resumed",{"shift":12.5}]',
        b'["aborted",{"seat":0}]',
        b'["fill",{"seat":3,"window":15.0,"guest":"ana","cmd":"f1"}]',
    ]
