"""What a connection at a table is sent besides the events themselves (table/events.py), as
typed msgspec Structs: the state an event carries, an answer (``ack``, ``error``), who watches,
and the resync (``sync``).

Each Struct encodes exactly as the dictionary the table sent before them did, key for key and in
the same order (the browser and the bots read these bytes, and the tests pin them): a frame's tag
first, as ``type``; then the fields in their order here. A field that a dictionary had only at
times is ``UNSET`` when it is not there (left out), which is not ``None`` (sent as null): the
state's ``deadline`` is sometimes null and sometimes absent, and both say something different.
The big nested parts that are made elsewhere (a table's info, a seat's view of the game, the
club's ratings) stay plain objects: they are read by the browser as they are.

A recipient's state is two Structs: ``PublicState``, the same for everyone at the table, and
``SeatState``, one seat's own. Their keys never meet, so the owner encodes each once and joins
the bytes into one object (``OwnerFrames._render``); ``state`` in a ``Sync`` is those joined bytes.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType


class Tally(msgspec.Struct, gc=False):
    """The match tally every state carries (``views.tally``): game number, games won by pair A
    and B, and ``hand_base`` (hand ``n`` of the current game is table hand ``hand_base + n``)."""

    game: int
    hand_base: int
    wins: list[int]
    to_win: int
    over: bool
    winner: int | None


class PublicState(msgspec.Struct, gc=False):
    """The part of every recipient's state that is the same for all of them."""

    phase: str
    hand: int
    version: int
    scores: list[int]
    match: Tally
    turn: int | None
    ends: list[int] | None
    counts: list[int]
    # The clock of the seat to play, or of the deal on show; absent between hands.
    deadline: float | UnsetType | None = UNSET
    # Between hands (or games): when the next one starts, and who it waits for.
    next_hand: float | UnsetType = UNSET
    reading: list[int] | UnsetType = UNSET
    time_up: float | UnsetType = UNSET  # only a capped game's (a tournament's)


class FairDue(msgspec.Struct, gc=False):
    """What a person owes the fairness round of ``hand`` now: ``commit`` or ``reveal``."""

    hand: int
    do: str


class SeatState(msgspec.Struct, gc=False):
    """A seat's own part of its state: its tiles and what it may decide now."""

    seat: int
    tiles: str
    legal: list[str]
    redeal: bool
    choosing: bool
    fair: FairDue | None
    my_deadline: float | None


class Commitments(msgspec.Struct, gc=False):
    """The fairness round of the hand not published yet: the server's commitment, the seats'."""

    hand: int
    server_commit: str
    client_commits: list[str | None]
    stage: str


class Watching(msgspec.Struct, gc=False):
    """Who watches: the count and the nicknames, one per guest (never a guest's id)."""

    count: int
    names: list[str]


class Frame(msgspec.Struct, tag_field="type", gc=False):
    """A frame a table sends that is not an event."""


class Ack(Frame, tag="ack"):
    """A command taken: ``seq`` is the table's entry it made (or the table's seq then)."""

    id: str | None
    seq: int


class Error(Frame, tag="error"):
    """A command, hello or sync refused: ``id`` is the command's (None for the others)."""

    id: str | None
    code: str
    message: str


class Said(Frame, tag="said"):
    """A phrase somebody seated said (never logged)."""

    seat: int
    phrase: str


class Rematching(Frame, tag="rematch"):
    """The rematch's answers so far (``yes``, ``no``, null for not yet, ``bot``), the seats that
    asked to swap, and the new table once it is open; a sync carries it too."""

    answers: list[str | None]
    swap: list[int]
    table: str | None


class Spectators(Frame, tag="spectators"):
    """Who watches now, sent to everyone at the table when it changes."""

    count: int
    names: list[str]


class Sync(msgspec.Struct, gc=False):
    """Everything a recipient may know now: the answer to a hello or a ``sync``.

    Untagged, for its ``type`` comes after the view (as it always did): the field says it.
    ``missed``: the events after the recipient's ``last_seq``, each with its ``seq`` (None when
    they are no longer kept: the view is all he gets); ``log``: the hand's public events.
    """

    table: dict[str, Any]
    seq: int
    view: dict[str, Any]
    state: msgspec.Raw
    commitments: Commitments | None
    fairness: dict[str, Any]
    type: Literal["sync"]
    missed: list[msgspec.Raw] | None
    log: list[msgspec.Raw]
    spectators: Watching
    rematch: Rematching | None
    ratings: dict[str, Any] | None
    rating: dict[str, Any] | None
