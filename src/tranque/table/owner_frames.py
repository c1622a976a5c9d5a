"""What an owner sends: each recipient's frame of an event, a sync, the spectators, the seats'
ratings; and ``frame``, the one encoder of everything a connection is sent.

A mixin of ``TableOwner`` (table/owner.py), apart from it because it only reads: the table's
state, the subscribers and what the owner keeps for the syncs (the recent frames, the rematch,
the ratings). The owner decides when to send; this says what each recipient gets, and encodes
what every recipient shares once per event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from tranque.table.events import Played
from tranque.table.frames import Spectators, Sync, Watching
from tranque.table.ports import Entry, Subscriber
from tranque.table.recent import Recent
from tranque.table.rematch import Rematch
from tranque.table.service import TableService
from tranque.table.views import (
    commitments,
    event,
    fairness,
    game_view,
    info,
    public_state,
    seat_state,
)

_encode = msgspec.json.Encoder().encode
# A hand's first public event: the server's commitment (``hand_seed`` in the log).
HAND_START = b'{"type":"hand_commit"'
# Only the play that ended a hand has it (``Played.hand_end``, left out when None).
HAND_END = b'"hand_end":'
_read_play = msgspec.json.Decoder(Played).decode


def frame(obj: msgspec.Struct | dict[str, Any]) -> bytes:
    """A frame's bytes: a typed frame (table/frames.py, table/events.py), or a plain object for
    the club's words that the table passes on as they are (the ratings), as JSON."""
    return _encode(obj)


class OwnerFrames:
    """The sending half of ``TableOwner`` (see there for the state it reads)."""

    service: TableService
    subscribers: list[Subscriber]
    recent: Recent
    rematch: Rematch | None
    seat_ratings: dict[str, Any] | None
    rated: dict[str, Any] | None
    gone: set[str]
    on_change: Callable[[Any], None] | None

    # -- the club's words about the seats ----

    def set_seat_ratings(self, ratings: dict[str, Any]) -> None:
        """Each seat's rating (looked up by ``server.seat_ratings`` when the seats change):
        kept for the syncs to come and sent to everyone at the table now."""
        self.seat_ratings = ratings
        self._tell(frame({"type": "ratings", **ratings}))

    def _tell(self, data: bytes) -> None:
        for sub in self.subscribers:
            sub.push(data)

    # -- who is here ----

    def present(self) -> list[bool]:
        """Which seats' people have not gone: a person seated by the queue or a rematch who
        has not come yet counts as here (he has the arrival window); one whose every
        connection (here, or relayed from another node) closed counts as gone until he is
        back. The lobby marks the gone ones ``away`` (``club.lobby.summary``)."""
        return [
            seat.kind == "person" and seat.guest not in self.gone for seat in self.service.seats
        ]

    def _changed_presence(self) -> None:
        if self.on_change is not None:
            self.on_change(self)

    # -- spectators ----

    def spectators(self) -> Watching:
        """Who watches: the count and the nicknames, one per guest (never a guest's id)."""
        names: dict[str, str] = {}
        for sub in self.subscribers:
            if sub.watcher:
                names[sub.guest or ""] = getattr(sub, "nickname", None) or "guest"
        return Watching(len(names), sorted(names.values()))

    def _spectators_changed(self) -> None:
        watching = self.spectators()
        self._tell(frame(Spectators(watching.count, watching.names)))
        if self.on_change is not None:
            self.on_change(self)

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
        public = frame(event(svc, entry))
        self.recent.add(entry.seq, public)
        if not self.subscribers:
            return public, []  # nobody connected (bots playing on, everyone away): no frame
        shared = frame(public_state(svc))
        head = b'{"type":"event","seq":%d,"event":%b,"state":' % (entry.seq, public)
        by_seat: dict[int | None, bytes] = {}
        out: list[tuple[Subscriber, bytes]] = []
        for sub in self.subscribers:
            seat = None if sub.watcher else svc.seat_of(sub.guest)
            data = by_seat.get(seat)
            if data is None:
                data = head + _state_bytes(svc, shared, seat) + b"}"
                by_seat[seat] = data
            out.append((sub, data))
        return public, out

    @staticmethod
    def _fan_out(frames: list[tuple[Subscriber, bytes]]) -> None:
        for sub, data in frames:
            sub.push(data)

    def hand_log(self) -> list[msgspec.Raw]:
        """The public events of the hand on the table (the one being dealt or played, or the
        one just finished until the next one's commitment), each with its ``seq``: what a page
        reloaded in the middle of a hand writes its log from.

        Only this hand's: a frame before its ``hand_commit`` never comes (another hand's plays
        would name tiles that this hand's hands hold). The last play's ``hand_end`` (the hands
        face up, the fairness section) is left out, for the sync's own ``view`` says how the hand
        ended; ``ended`` marks that play. Before the first hand: empty.

        Each line is the event's kept bytes with ``seq`` added; only the play that ended the
        hand is read again (a ``Played`` without its end, then ``ended``).
        """
        out: list[msgspec.Raw] = []
        for seq, data in self.recent.since_last(HAND_START):
            if HAND_END in data:  # a key, never inside a string (its quotes would be escaped)
                play = msgspec.structs.replace(_read_play(data), hand_end=None)
                out.append(msgspec.Raw(b'%b,"ended":true,"seq":%d}' % (frame(play)[:-1], seq)))
            else:
                out.append(msgspec.Raw(b'%b,"seq":%d}' % (data[:-1], seq)))
        return out

    def _sync_frame(self, sub: Subscriber, last_seq: int | None) -> bytes:
        """The recipient's ``Sync``: what ``full_view`` says, and what the owner keeps. The
        events he missed are their kept bytes, each with its ``seq`` added (no decoding)."""
        svc = self.service
        seat = None if sub.watcher else svc.seat_of(sub.guest)
        missed: list[msgspec.Raw] | None = None
        if last_seq is not None and self.recent:
            if last_seq >= svc.seq:
                missed = []
            elif last_seq + 1 >= self.recent.first:
                after = self.recent.after(last_seq)
                missed = [msgspec.Raw(b'%b,"seq":%d}' % (f[:-1], s)) for s, f in after]
        return frame(
            Sync(
                table=info(svc),
                seq=svc.seq,
                view=game_view(svc, seat),
                state=msgspec.Raw(_state_bytes(svc, frame(public_state(svc)), seat)),
                commitments=commitments(svc),
                fairness=fairness(svc),
                type="sync",
                missed=missed,
                log=self.hand_log(),
                spectators=self.spectators(),
                rematch=None if self.rematch is None else self.rematch.to_json(svc.seats),
                ratings=self.seat_ratings,
                rating=self.rated,
            )
        )


def _state_bytes(svc: TableService, shared: bytes, seat: int | None) -> bytes:
    """A recipient's state: the shared part's bytes (``PublicState``), and for a seat its own
    part (``SeatState``) joined into the same object; their keys never meet."""
    if seat is None:
        return shared
    own = frame(seat_state(svc, seat))
    return shared[:-1] + b"," + own[1:]
