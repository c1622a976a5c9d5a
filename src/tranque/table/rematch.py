"""``Rematch``: "Revancha" at a finished table: the same people in the same seats, again.

Each person at the table answers (accept or decline; partners may both ask to swap seats);
bots always accept. When every person who is still connected has answered and somebody
accepted, the next game opens at a new table with the same settings: the people who accepted in
their seats (two partners who both asked swapped), the bots in theirs, and the seats of the
people who declined (or left) free for anybody to take; it starts by itself once all four seats
are taken, with the first-hand draw and everything else as for any new game.

Why a new table rather than more entries at this one: a finished table is never appended to
again (its record is saved and its lease gone, ``docs/cluster.md``), so its log, its record and
every node's copy of it stay what they were; the new table has its own log from its first entry,
and replay and recovery work on it as on any table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tranque.table.frames import Rematching
from tranque.table.model import Seat


@dataclass(frozen=True, slots=True)
class RematchSeats:
    """The new table's seats: people (seat, guest, nickname) and bots (seat, bot)."""

    people: list[tuple[int, str, str]]
    bots: list[tuple[int, str]]


@dataclass(slots=True)
class Rematch:
    answers: dict[int, bool] = field(default_factory=dict)  # a person's seat -> accepted
    swap: set[int] = field(default_factory=set)  # seats that asked to swap with their partner
    table: str | None = None  # the new table, once opened

    def answer(self, seat: int, accept: bool, swap: bool) -> None:
        self.answers[seat] = accept
        if accept and swap:
            self.swap.add(seat)
        else:
            self.swap.discard(seat)

    def ready(self, seats: list[Seat], connected: set[int]) -> bool:
        """Every connected person answered, and at least one accepted."""
        persons = [s for s, seat in enumerate(seats) if seat.kind == "person"]
        waiting = [s for s in persons if s in connected and s not in self.answers]
        return not waiting and any(self.answers.get(s) for s in persons)

    def seating(self, seats: list[Seat]) -> RematchSeats:
        order = [0, 1, 2, 3]
        for a, b in ((0, 2), (1, 3)):
            if a in self.swap and b in self.swap:
                order[a], order[b] = b, a
        people, bots = [], []
        for new, old in enumerate(order):
            seat = seats[old]
            if seat.kind == "bot" and seat.bot is not None:
                bots.append((new, seat.bot))
            elif seat.kind == "person" and self.answers.get(old) and seat.guest is not None:
                people.append((new, seat.guest, seat.nickname or "guest"))
        return RematchSeats(people, bots)

    def to_json(self, seats: list[Seat]) -> Rematching:
        """What everyone at the table sees: each seat's answer (``yes``, ``no``, null for not
        yet; ``bot`` for a bot), who asked to swap, and the new table once it is open."""
        out: list[str | None] = []
        for s, seat in enumerate(seats):
            if seat.kind == "bot":
                out.append("bot")
            elif s in self.answers:
                out.append("yes" if self.answers[s] else "no")
            else:
                out.append(None)
        return Rematching(out, sorted(self.swap), self.table)
