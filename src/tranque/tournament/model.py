"""The tournament file, ``tranque-tournament/1``, and the checks that make it one.

Other tools read and write this file, so its shape is fixed (docs/tournaments.md): a Swiss
(``swiss-pairs``) lists what was ``played`` round by round; an arena lists its ``games`` in the
order they ended. Decoding checks the types (msgspec) and then what types cannot say: entrants
named once, every result about known entrants, nobody twice in a round. Any fault is a
``TournamentError`` with one line that says what is wrong and where.
"""

from __future__ import annotations

from typing import Literal

import msgspec

FORMAT = "tranque-tournament/1"
Kind = Literal["swiss-pairs", "arena"]
Side = Literal["a", "b"]


class TournamentError(ValueError):
    """The file is not a valid tournament, or asks for something it cannot give."""


class Entrant(msgspec.Struct, forbid_unknown_fields=False):
    """A pair (Swiss) or a person (arena). ``rating``: at registration, for the seeding."""

    id: str
    players: list[str]
    rating: float = 0.0
    withdrawn: bool = False


class Table(msgspec.Struct, forbid_unknown_fields=False):
    """A game of a Swiss round: entrant ``a`` is the record's pair A (seats 0 and 2).
    ``points`` are the game's real final score; ``winner`` null only when neither showed."""

    a: str
    b: str
    points: tuple[int, int] = (0, 0)
    winner: Side | None = None
    forfeit: bool = False
    record: str | None = None


class Round(msgspec.Struct, forbid_unknown_fields=False):
    round: int
    byes: list[str] = msgspec.field(default_factory=list)
    tables: list[Table] = msgspec.field(default_factory=list)


class ArenaGame(msgspec.Struct, forbid_unknown_fields=False):
    """A finished arena game: seats name entrant ids (null for a bot); ``ended`` in seconds
    since the arena's start."""

    table: str
    ended: float
    seats: tuple[str | None, str | None, str | None, str | None]
    points: tuple[int, int]
    winner: Side
    pollona: bool = False


class Tournament(msgspec.Struct, forbid_unknown_fields=False):
    format: str
    kind: Kind
    rules: str = "havana"
    target: int = 100
    minutes: float | None = None
    rounds: int | None = None
    entrants: list[Entrant] = msgspec.field(default_factory=list)
    played: list[Round] = msgspec.field(default_factory=list)
    games: list[ArenaGame] = msgspec.field(default_factory=list)

    def entrant(self, eid: str) -> Entrant:
        for e in self.entrants:
            if e.id == eid:
                return e
        raise TournamentError(f"no entrant {eid!r}")


def decode(raw: bytes | str) -> Tournament:
    """The tournament in ``raw`` (JSON), checked; TournamentError with one line otherwise."""
    try:
        t = msgspec.json.decode(raw, type=Tournament)
    except msgspec.ValidationError as e:
        raise TournamentError(f"not a tournament file: {e}") from None
    except msgspec.DecodeError as e:
        raise TournamentError(f"not JSON: {e}") from None
    check(t)
    return t


def check(t: Tournament) -> None:
    """What the types cannot say. Raises TournamentError naming the first fault."""
    if t.format != FORMAT:
        raise TournamentError(f"format is {t.format!r}, expected {FORMAT!r}")
    if t.target <= 0:
        raise TournamentError(f"target must be positive, not {t.target}")
    ids: set[str] = set()
    for e in t.entrants:
        if e.id in ids:
            raise TournamentError(f"entrant {e.id!r} is listed twice")
        ids.add(e.id)
    if t.kind == "swiss-pairs":
        _check_swiss(t, ids)
    else:
        _check_arena(t, ids)


def _check_swiss(t: Tournament, ids: set[str]) -> None:
    if t.rounds is None or t.rounds < 1:
        raise TournamentError("a Swiss needs 'rounds', a whole number of at least 1")
    if t.games:
        raise TournamentError("a Swiss lists its results under 'played', not 'games'")
    if len(t.played) > t.rounds:
        raise TournamentError(f"{len(t.played)} rounds played of {t.rounds}")
    for n, r in enumerate(t.played, 1):
        where = f"round {r.round}"
        if r.round != n:
            raise TournamentError(f"the rounds played must be 1, 2, ... in order: {where}")
        seen: set[str] = set()
        for eid in [*r.byes, *(x for tb in r.tables for x in (tb.a, tb.b))]:
            if eid not in ids:
                raise TournamentError(f"{where}: a result for an unknown entrant {eid!r}")
            if eid in seen:
                raise TournamentError(f"{where}: entrant {eid!r} appears twice")
            seen.add(eid)
        for tb in r.tables:
            if min(tb.points) < 0:
                raise TournamentError(f"{where}: negative points at {tb.a} v {tb.b}")
            if tb.winner is None and not tb.forfeit:
                raise TournamentError(f"{where}: {tb.a} v {tb.b} has no winner")


def _check_arena(t: Tournament, ids: set[str]) -> None:
    if t.minutes is None or t.minutes <= 0:
        raise TournamentError("an arena needs 'minutes', its length")
    if t.played:
        raise TournamentError("an arena lists its results under 'games', not 'played'")
    tables: set[str] = set()
    for g in t.games:
        if g.table in tables:
            raise TournamentError(f"game {g.table!r} is listed twice")
        tables.add(g.table)
        people = [s for s in g.seats if s is not None]
        for eid in people:
            if eid not in ids:
                raise TournamentError(f"game {g.table}: a result for an unknown entrant {eid!r}")
        if len(set(people)) != len(people):
            raise TournamentError(f"game {g.table}: an entrant in two seats")
