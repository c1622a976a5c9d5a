"""What an owner sends: each recipient's frame of an event, a sync, the spectators, the seats'
ratings; and ``frame``, the one encoder of everything a connection is sent.

A mixin of ``TableOwner`` (table/owner.py), apart from it because it only reads: the table's
state, the subscribers and what the owner keeps for the syncs (the recent frames, the rematch,
the ratings). The owner decides when to send; this says what each recipient gets, and encodes
what every recipient shares once per event.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tranque.table.ports import Entry, Subscriber
from tranque.table.recent import Recent
from tranque.table.rematch import Rematch
from tranque.table.service import TableService

_encode = msgspec.json.Encoder().encode


def frame(obj: dict[str, Any]) -> bytes:
    return _encode(obj)


class OwnerFrames:
    """The sending half of ``TableOwner`` (see there for the state it reads)."""

    service: TableService
    subscribers: list[Subscriber]
    recent: Recent
    rematch: Rematch | None
    seat_ratings: dict[str, Any] | None
    rated: dict[str, Any] | None

    # -- the club's words about the seats ----

    def set_seat_ratings(self, ratings: dict[str, Any]) -> None:
        """Each seat's rating (looked up by ``server.seat_ratings`` when the seats change):
        kept for the syncs to come and sent to everyone at the table now."""
        self.seat_ratings = ratings
        self._tell(frame({"type": "ratings", **ratings}))

    def _tell(self, data: bytes) -> None:
        for sub in self.subscribers:
            sub.push(data)

    # -- spectators ----

    def spectators(self) -> dict[str, Any]:
        """Who watches: the count and the nicknames, one per guest (never a guest's id)."""
        names: dict[str, str] = {}
        for sub in self.subscribers:
            if sub.watcher:
                names[sub.guest or ""] = getattr(sub, "nickname", None) or "guest"
        return {"count": len(names), "names": sorted(names.values())}

    # -- sending ----

    def _render(self, entry: Entry) -> tuple[bytes, list[tuple[Subscriber, bytes]]]:
        """The entry's public form (what the log keeps for the table's history, and a spectator
        is sent), and each recipient's frame for the entry just applied, encoded once per seat
        watched.

        The public event and the state every recipient shares are encoded once; each seat's own
        part is encoded on its own and joined to them, giving the bytes that encoding the whole
        ``{"type": "event", "seq", "event", "state"}`` object would. Only seats that someone is
        connected to are rendered (and the watchers' frame only if somebody watches). Who gets
        what is fixed here, with the state it was rendered from.
        """
        svc = self.service
        public = frame(svc.project(entry))
        self.recent.add(entry.seq, public)
        if not self.subscribers:
            return public, []  # nobody connected (bots playing on, everyone away): no frame
        shared = frame(svc.public_state())
        head = b'{"type":"event","seq":%d,"event":%b,"state":' % (entry.seq, public)
        by_seat: dict[int | None, bytes] = {}
        out: list[tuple[Subscriber, bytes]] = []
        for sub in self.subscribers:
            seat = None if sub.watcher else svc.seat_of(sub.guest)
            data = by_seat.get(seat)
            if data is None:
                if seat is None:
                    data = head + shared + b"}"
                else:
                    own = frame(svc.seat_state(seat))
                    data = head + shared[:-1] + b"," + own[1:] + b"}"
                by_seat[seat] = data
            out.append((sub, data))
        return public, out

    @staticmethod
    def _fan_out(frames: list[tuple[Subscriber, bytes]]) -> None:
        for sub, data in frames:
            sub.push(data)

    def _sync_frame(self, sub: Subscriber, last_seq: int | None) -> bytes:
        svc = self.service
        seat = None if sub.watcher else svc.seat_of(sub.guest)
        body = svc.full_view(seat)
        body["type"] = "sync"
        missed: list[Any] | None = None
        if last_seq is not None and self.recent:
            if last_seq >= svc.seq:
                missed = []
            elif last_seq + 1 >= self.recent.first:
                after = self.recent.after(last_seq)
                missed = [msgspec.json.decode(f) | {"seq": s} for s, f in after]
        body["missed"] = missed
        body["spectators"] = self.spectators()
        body["rematch"] = None if self.rematch is None else self.rematch.to_json(svc.seats)
        body["ratings"] = self.seat_ratings
        body["rating"] = self.rated
        return frame(body)
