"""A person's commands to a table, as typed msgspec Structs: one tagged union, decoded once.

The socket's edge (``server.protocol``) decodes a client's frame straight into one of these;
from there the same object travels to the table's owner (here, or on another node through the
bus: ``table.bus.ToOwner``), which answers it with a ``match`` (``TableOwner._command``,
``TableChecks.command``). Nothing on the way looks a field up by its name in a dict, so a reader
(and mypy) can follow each command from the socket to the entry it becomes.

They live in the table's room, not the server's, because the table is what reads them: the
server only decodes and forwards (the layers: the table is below the server). Unknown fields are
refused, and every free string has a length bound besides the frame's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

import msgspec

from tranque.refusals import TableError

MAX_ID = 64
MAX_WORD = 32  # a bot's level or name, a move's notation
MAX_HEX = 256  # a commitment (64 hex digits) or a client seed (table.model.MAX_SEED_HEX)

Ident = Annotated[str, msgspec.Meta(max_length=MAX_ID)]  # a table's id, a party's link
Word = Annotated[str, msgspec.Meta(max_length=MAX_WORD)]
Hex = Annotated[str, msgspec.Meta(max_length=MAX_HEX)]

# The fixed phrases a person may say at a table (the client has their words in each language).
PHRASES = ("buena", "gracias", "revancha", "suerte", "bien_jugado", "otra_vez")
Phrase = Literal["buena", "gracias", "revancha", "suerte", "bien_jugado", "otra_vez"]


class Message(msgspec.Struct, forbid_unknown_fields=True, tag_field="type"):
    """A client's message: a JSON object whose ``type`` names its Struct (the tag)."""


class Sit(Message, tag="sit"):
    """Take a seat before the start, by the connection's nickname or by ``nickname`` (checked
    as a new guest's is); the seat one has already, with a ``nickname``: that name from now on
    (before the first hand only)."""

    id: str
    seat: int
    nickname: Ident | None = None


class AddBot(Message, tag="add_bot"):
    """The host seats a bot: of ``level`` (``facil``, ``normal`` or ``fuerte``), or of the
    table's own level."""

    id: str
    seat: int
    level: Word | None = None


class Leave(Message, tag="leave"):
    id: str


class Ready(Message, tag="ready"):
    """A commitment to this hand's client seed: hex SHA-256("tranque-client|" || seed)."""

    id: str
    hand: int
    commit: Hex


class Reveal(Message, tag="reveal"):
    id: str
    hand: int
    seed: Hex


class Redeal(Message, tag="redeal"):
    id: str
    seq: int
    ask: bool


class Choose(Message, tag="choose"):
    id: str
    seq: int
    choice: Literal["salgo", "sal_tu"]


class Play(Message, tag="play"):
    id: str
    seq: int
    move: Word


class Reading(Message, tag="reading"):
    """Between two hands: ``done`` false asks the next hand to wait while I read the end of
    ``hand`` (for the table's reading wait at most), true says I have read it."""

    id: str
    hand: int
    done: bool


class Say(Message, tag="say"):
    """One of the fixed phrases: before the first hand, between hands, after the game."""

    id: str
    phrase: Phrase


class RematchAnswer(Message, tag="rematch"):
    """ "Revancha": once the game is over, play again with the same people in the same seats
    (``accept``); ``swap``: swap seats with your partner, if he asks it too."""

    id: str
    accept: bool
    swap: bool = False


class Fill(Message, tag="fill"):
    """Before the start, seated at a table with a free seat (a rematch somebody declined):
    offer the free seats to the quick-match queue now, and to bots when nobody came in time."""

    id: str


# The commands a seated person sends the table's owner (a spectator's are refused before it).
TableCommand = (
    Sit
    | AddBot
    | Leave
    | Ready
    | Reveal
    | Redeal
    | Choose
    | Play
    | Reading
    | Say
    | RematchAnswer
    | Fill
)

COMMANDS = (
    Sit,
    AddBot,
    Leave,
    Ready,
    Reveal,
    Redeal,
    Choose,
    Play,
    Reading,
    Say,
    RematchAnswer,
    Fill,
)
_TAGS = frozenset(cls.__struct_config__.tag for cls in COMMANDS)
_DECISIONS = frozenset(("redeal", "choose", "play"))
UNCHECKED = 1 << 62  # a decision's ``seq`` no table reaches: never stale


def as_command(msg: TableCommand | Mapping[str, Any]) -> TableCommand:
    """``msg`` as a typed command: as it is if it is one already (what the socket's edge
    hands on), else a plain mapping decoded as the edge decodes a frame (a program talking to
    a table in its own process: the tests, a script), or refused with a ``TableError``."""
    if isinstance(msg, COMMANDS):
        return msg
    kind = msg.get("type")
    if kind not in _TAGS:
        raise TableError("unknown_type", f"there is no command {kind!r}")
    if kind in _DECISIONS and "seq" not in msg:
        # A program in the table's own process that names no event it saw is not checked for
        # staleness (a socket's decision always names one: its ``seq`` is required there).
        msg = {**msg, "seq": UNCHECKED}
    try:
        command: TableCommand = msgspec.convert(msg, TableCommand)
    except msgspec.ValidationError as exc:
        raise TableError("malformed", f"malformed message: {exc}") from None
    return command
