"""The public form of each log entry, as typed msgspec Structs: what every socket at the table
is sent as the ``event`` of an ``{"type": "event", ...}`` frame, and what the log keeps for the
table's history.

``TableViews.event`` makes one from an entry just applied (a ``match`` on the entry's body);
``frame`` encodes it. Each Struct encodes exactly as the dictionary the table sent before them
did, key for key and in the same order (the history on disk and every client read those bytes):
the tag first, as ``type``; then the fields in their order here; a field with a default is left
out when it has its default (``renamed``, ``hand_end``), every other field is always there, null
or not. The big nested parts (a table's info, a hand's end, the match) stay plain objects: they
are read by the browser as they are, and typed where they are made.

No field here may ever hold what its recipients may not see: a seed before its hand ends, a
tile in another seat's hand (the table's tests scan every frame for them).
"""

from __future__ import annotations

from typing import Any

import msgspec


class Event(msgspec.Struct, tag_field="type", omit_defaults=True, gc=False):
    """An event of the table, as everybody may see it."""


class Created(Event, tag="created"):
    table: dict[str, Any]


class Sat(Event, tag="sat"):
    seat: int
    nickname: str | None
    kind: str  # "person"
    renamed: bool = False  # only when a seated person took another name


class BotSat(Event, tag="bot_sat"):
    seat: int
    bot: str
    kind: str  # "bot"


class Fill(Event, tag="fill"):
    seat: int
    deadline: float | None


class Stood(Event, tag="stood"):
    seat: int


class Started(Event, tag="started"):
    pass


class HandCommit(Event, tag="hand_commit"):
    """A hand begins: the server's commitment to its seed (the seed is shown when it ends)."""

    hand: int
    server_commit: str
    seeds_from: list[str] | None
    deadline: float | None


class Committed(Event, tag="committed"):
    seat: int
    hand: int
    commit: str


class RevealOpen(Event, tag="reveal_open"):
    hand: int
    deadline: float | None


class Revealed(Event, tag="revealed"):
    """A seat revealed its seed: which, not what (the seeds are published with the hand)."""

    seat: int
    hand: int


class Dealt(Event, tag="dealt"):
    hand: int
    attempt: int
    draw: list[list[str]] | None
    coin: Any
    leading_pair: Any
    leader: int | None
    redeal_window: bool
    deadline: float | None


class Redeal(Event, tag="redeal"):
    ask: bool
    seat: int | None  # None: a decline of an old log (a decline is never shown now)


class RedealClosed(Event, tag="redeal_closed"):
    hand: int
    leader: int | None


class Chose(Event, tag="chose"):
    seat: int  # the choice itself is revealed with the partner's (``choices``)


class Choices(Event, tag="choices"):
    choices: list[str | None]
    leader: int | None


class Played(Event, tag="played", kw_only=True):
    """A play (``n``: its number in the hand); the one that ended its hand carries the hand's
    end (``hand_end``: every hand face up, the fairness section, the scores)."""

    seat: int
    move: str
    by: str | None
    hand_end: dict[str, Any] | None = None  # only for the play that ended its hand
    n: int | None
    hand: int


class Reading(Event, tag="reading"):
    seat: int
    hand: int
    done: bool


class NextGame(Event, tag="next_game"):
    game: int
    hand: int
    match: dict[str, Any]


class Away(Event, tag="away"):
    seat: int
    left: bool
    absent: bool  # he never came: a bot plays for him at once
    grace: float | None


class Back(Event, tag="back"):
    seat: int


class Takeover(Event, tag="takeover"):
    seat: int
    bot: str


class Resumed(Event, tag="resumed"):
    shift: float


class Abandoned(Event, tag="abandoned"):
    after: float | None


class Aborted(Event, tag="aborted"):
    seat: int


TableEvent = (
    Created
    | Sat
    | BotSat
    | Fill
    | Stood
    | Started
    | HandCommit
    | Committed
    | RevealOpen
    | Revealed
    | Dealt
    | Redeal
    | RedealClosed
    | Chose
    | Choices
    | Played
    | Reading
    | NextGame
    | Away
    | Back
    | Takeover
    | Resumed
    | Abandoned
    | Aborted
)


def as_dict(event: Event) -> dict[str, Any]:
    """The event as the plain object it encodes to (its values as they are, not copied): for
    whoever reads an event in this process rather than off a socket."""
    cls = type(event)
    out: dict[str, Any] = {"type": cls.__struct_config__.tag}
    for f in _fields(cls):
        value = getattr(event, f.name)
        if f.default is msgspec.NODEFAULT or value != f.default:
            out[f.name] = value
    return out


_FIELDS: dict[type[Event], tuple[msgspec.structs.FieldInfo, ...]] = {}


def _fields(cls: type[Event]) -> tuple[msgspec.structs.FieldInfo, ...]:
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = msgspec.structs.fields(cls)
    return fields
