"""Who sits with whom: the quick-match queue's pure rule, the same for every adapter.

A waiting person is a ``Ticket``. Two friends who share a ``party`` are one *unit* and always
partners (seats 0 and 2, or 1 and 3). ``form_tables`` takes everybody waiting for one variant and
returns the tables to open now:

- four people waiting make a table at once, in the order they came ("seated as they arrive");
- once ``choose_from`` people or more wait, the longest-waiting unit is seated with the units
  whose ratings are closest to its own, rather than merely the next ones to come;
- when the longest-waiting unit has waited ``fill`` seconds, it is seated with whoever else waits
  (up to four people) and the empty seats go to bots, so nobody waits long.

Two people of whom one blocks the other are never seated together: each ticket carries whom its
person blocks and who blocks him (``avoid``, read when he queues), and a unit that would sit
with somebody it avoids is passed over (at the fill time too: bots rather than him).

A party with one friend still missing is not seatable: it waits for the friend. A party's
clock is its first friend's: the one who made the link has waited since he came, and the
friend's arrival does not start the fill time again (he was promised ``fill`` seconds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

NEUTRAL_RATING = 1500.0  # everyone's rating until ratings exist
FILL = 15.0  # seconds before the empty seats go to bots
CHOOSE_FROM = 8  # people waiting before the closest ratings are preferred to the order of arrival


@dataclass(frozen=True, slots=True)
class Ticket:
    """One person in the queue of one variant, since ``since`` (seconds since the epoch)."""

    guest: str
    nickname: str
    variant: str
    since: float
    party: str | None = None
    rating: float = NEUTRAL_RATING
    # The guests this person blocks or is blocked by (moderation): never at his table.
    avoid: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Seating:
    """A table to open: ``seats[s]`` is the ticket in seat ``s``, or None for a bot."""

    variant: str
    seats: tuple[Ticket | None, Ticket | None, Ticket | None, Ticket | None]

    @property
    def people(self) -> list[Ticket]:
        return [t for t in self.seats if t is not None]


def units(waiting: Sequence[Ticket]) -> list[tuple[Ticket, ...]]:
    """The seatable units, longest waiting first: a single, or a party whose two friends both
    wait (a party's third member waits alone as a single)."""
    parties: dict[str, list[Ticket]] = {}
    out: list[tuple[Ticket, ...]] = []
    for t in sorted(waiting, key=lambda t: (t.since, t.guest)):
        if t.party is None:
            out.append((t,))
            continue
        members = parties.setdefault(t.party, [])
        if len(members) < 2:
            members.append(t)
            if len(members) == 2 and _clash((members[0],), [(t,)]):
                out.extend([(members[0],), (t,)])  # a block undoes the party: two singles
            elif len(members) == 2:
                out.append(tuple(members))
        else:
            out.append((t,))
    return sorted(out, key=_since)


def _since(unit: tuple[Ticket, ...]) -> float:
    """Since when a unit waits: its first member's arrival."""
    return min(t.since for t in unit)


def _rating(unit: tuple[Ticket, ...]) -> float:
    return sum(t.rating for t in unit) / len(unit)


def _clash(unit: tuple[Ticket, ...], chosen: list[tuple[Ticket, ...]]) -> bool:
    """Whether someone of ``unit`` blocks, or is blocked by, someone already chosen."""
    return any(a.guest in b.avoid or b.guest in a.avoid for a in unit for c in chosen for b in c)


def _pick(
    anchor: tuple[Ticket, ...], others: list[tuple[Ticket, ...]], closest: bool
) -> list[tuple[Ticket, ...]]:
    """Units to fill four seats with ``anchor``: in order of arrival, or closest ratings first."""
    if closest:
        r = _rating(anchor)
        others = sorted(others, key=lambda u: abs(_rating(u) - r))
    chosen = [anchor]
    room = 4 - len(anchor)
    for u in others:
        if len(u) <= room and not _clash(u, chosen):
            chosen.append(u)
            room -= len(u)
        if room == 0:
            break
    return chosen


def _seat(variant: str, chosen: list[tuple[Ticket, ...]]) -> Seating:
    """Parties to a pair each (0 and 2, then 1 and 3); singles fill what is left, in order."""
    seats: list[Ticket | None] = [None] * 4
    pairs = [(0, 2), (1, 3)]
    for u in (u for u in chosen if len(u) == 2):
        a, b = pairs.pop(0)
        seats[a], seats[b] = u[0], u[1]
    free = [s for p in pairs for s in p]
    for single in (u for u in chosen if len(u) == 1):
        seats[free.pop(0)] = single[0]
    return Seating(variant, (seats[0], seats[1], seats[2], seats[3]))


def form_tables(
    waiting: Sequence[Ticket],
    now: float,
    *,
    fill: float = FILL,
    choose_from: int = CHOOSE_FROM,
) -> list[Seating]:
    """The tables to open now from the tickets of one variant (see the module's docstring)."""
    if not waiting:
        return []
    variant = waiting[0].variant
    left = units(waiting)
    out: list[Seating] = []
    i = 0
    while i < len(left):
        people = sum(len(u) for u in left)
        anchor = left[i]
        others = left[:i] + left[i + 1 :]
        chosen = _pick(anchor, others, closest=people >= choose_from)
        full = sum(len(u) for u in chosen) == 4
        if full or now - _since(anchor) >= fill:
            out.append(_seat(variant, chosen))
            left = [u for u in left if u not in chosen]
            i = 0
        else:
            i += 1  # a later unit may still make a full table without this one
    return out
