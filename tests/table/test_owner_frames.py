"""The owner's frames: each recipient's bytes, built from shared parts, equal the whole object's."""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from tranque.table.owner import TableOwner
from tranque.table.owner_frames import frame
from tranque.table.ports import Entry
from tranque.table.service import TableService, TableSettings, fixed_seeds

GUESTS = ("ana", "beto", "cuca", "dani")
FAST = TableSettings(
    practice=False, pass_delay=0, bot_delay=0, between_hands=0, fair_window=1, move_clock=30
)


@dataclass
class Recipient:
    guest: str | None
    watcher: bool = False
    frames: list[bytes] = field(default_factory=list)

    def push(self, data: bytes) -> None:
        self.frames.append(data)


def _table() -> TableService:
    svc = TableService("frames", fixed_seeds(b"frames"))
    svc.apply(Entry(1, "created", {"settings": FAST.to_json(), "host": GUESTS[0]}, 0.0))
    for seat, guest in enumerate(GUESTS):
        svc.apply(Entry(svc.seq + 1, "sat", {"seat": seat, "guest": guest}, 0.0))
    return svc


def _next_entry(svc: TableService, now: float) -> Entry | None:
    """What the table does by itself, else the first person who has something to decide."""
    entry = svc.due(now)
    if entry is not None:
        return entry
    for seat, guest in enumerate(GUESTS):
        st = svc.state_for(seat)
        msg: dict[str, object] | None = None
        if st["legal"]:
            msg = {"type": "play", "move": st["legal"][-1]}
        elif st["choosing"]:
            msg = {"type": "choose", "choice": "sal_tu"}
        elif st["redeal"]:
            msg = {"type": "redeal", "ask": False}
        if msg is not None:
            return svc.command(guest, {"id": f"c{svc.seq}", **msg}, now)
    return None


def test_every_frame_is_the_whole_event_encoded_for_its_recipient() -> None:
    svc = _table()
    owner = TableOwner(svc, store=None, clock=None)  # type: ignore[arg-type]
    seats = [Recipient(g) for g in GUESTS]
    twin = Recipient(GUESTS[2])  # a second tab of the same player
    watcher = Recipient("mirón", watcher=True)
    owner.subscribers = [*seats, twin, watcher]
    now, kinds = 0.0, []
    while not svc.over:
        entry = _next_entry(svc, now)
        if entry is None:
            wake = svc.next_wake()
            assert wake is not None and wake > now, "the table is stuck"
            now = wake
            continue
        svc.apply(entry)
        sent = dict((id(sub), data) for sub, data in owner._render(entry)[1])
        public = svc.project(entry)
        for seat, sub in enumerate(seats):
            whole = {"type": "event", "seq": entry.seq, "event": public}
            assert sent[id(sub)] == frame(whole | {"state": svc.state_for(seat)})
        assert sent[id(twin)] == sent[id(seats[2])]
        watched = msgspec.json.decode(sent[id(watcher)])
        assert watched == {
            "type": "event",
            "seq": entry.seq,
            "event": public,
            "state": svc.state_for(None),
        }
        assert "tiles" not in watched["state"]
        kinds.append(public["type"])
    assert len(kinds) > 50  # a whole game's events, not a handful
    assert {"hand_commit", "reveal_open", "dealt", "played"} <= set(kinds)
