"""The WebSocket protocol's client messages, as typed msgspec schemas (see docs/protocol.md).

Every message is one JSON object with a ``type``. Unknown fields are refused, so a message that
tries to name a seat (or anything else the server decides) is malformed, not ignored. Every free
string has a length bound besides the frame's (``MAX_MESSAGE_BYTES``): what a field keys or is
logged under stays small, whatever the frame limit becomes.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

MAX_MESSAGE_BYTES = 2048  # larger text frames get an error frame; far larger ones close (1009)
MAX_ID = 64
MAX_TOKEN = 1024  # a signed token is a few hundred characters
MAX_WORD = 32  # a bot's level or name, a move's notation
MAX_HEX = 256  # a commitment (64 hex digits) or a client seed (table.model.MAX_SEED_HEX)

Token = Annotated[str, msgspec.Meta(max_length=MAX_TOKEN)]
Ident = Annotated[str, msgspec.Meta(max_length=MAX_ID)]  # a table's id, a party's link
Word = Annotated[str, msgspec.Meta(max_length=MAX_WORD)]
Hex = Annotated[str, msgspec.Meta(max_length=MAX_HEX)]


class _Msg(msgspec.Struct, forbid_unknown_fields=True, tag_field="type"):
    pass


class Hello(_Msg, tag="hello"):
    """First message of a connection: who I am, which table, and the last event I saw."""

    token: Token
    table: Ident
    role: Literal["player", "spectator"] = "player"
    last_seq: int | None = None


class Sync(_Msg, tag="sync"):
    """Ask again for a full view (and the events after ``last_seq``, if still in memory)."""

    last_seq: int | None = None


class Ping(_Msg, tag="ping"):
    id: str | None = None


class Sit(_Msg, tag="sit"):
    id: str
    seat: int


class AddBot(_Msg, tag="add_bot"):
    """The host seats a bot: of ``level`` (``facil``, ``normal``, ``fuerte``, or a bot's name),
    or of the table's own level."""

    id: str
    seat: int
    level: Word | None = None


class Leave(_Msg, tag="leave"):
    id: str


class Ready(_Msg, tag="ready"):
    """A commitment to this hand's client seed: hex SHA-256("tranque-client|" || seed)."""

    id: str
    hand: int
    commit: Hex


class Reveal(_Msg, tag="reveal"):
    id: str
    hand: int
    seed: Hex


class Redeal(_Msg, tag="redeal"):
    id: str
    seq: int
    ask: bool


class Choose(_Msg, tag="choose"):
    id: str
    seq: int
    choice: Literal["salgo", "sal_tu"]


class Play(_Msg, tag="play"):
    id: str
    seq: int
    move: Word


class Reading(_Msg, tag="reading"):
    """Between two hands: ``done`` false asks the next hand to wait while I read the end of
    ``hand`` (for the table's reading wait at most), true says I have read it."""

    id: str
    hand: int
    done: bool


# The fixed phrases a person may say at a table (the client has their words in each language).
PHRASES = ("buena", "gracias", "revancha", "suerte", "bien_jugado", "otra_vez")
Phrase = Literal["buena", "gracias", "revancha", "suerte", "bien_jugado", "otra_vez"]
Variant = Literal["havana", "miami", "oriente", "barrio"]


class Say(_Msg, tag="say"):
    """One of the fixed phrases: before the first hand, between hands, after the game."""

    id: str
    phrase: Phrase


class RematchAnswer(_Msg, tag="rematch"):
    """ "Revancha": once the game is over, play again with the same people in the same seats
    (``accept``); ``swap``: swap seats with your partner, if he asks it too."""

    id: str
    accept: bool
    swap: bool = False


class Lobby(_Msg, tag="lobby"):
    """Before any hello: the lobby's listing now, and again whenever it changes."""


class Queue(_Msg, tag="queue"):
    """Before any hello: wait for a table of people of ``variant`` ("Jugar ahora · Con
    personas"); with ``party``, as the partner of the friend who shares it."""

    token: Token
    variant: Variant = "havana"
    party: Ident | None = None
    stake: int | None = None  # a chip table's queue (table.stakes.STAKES); None: no chips


class Unqueue(_Msg, tag="unqueue"):
    """Out of the queue (one tap)."""


ClientMessage = (
    Hello
    | Sync
    | Ping
    | Sit
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
    | Lobby
    | Queue
    | Unqueue
)
TABLE_COMMANDS = (
    *("sit", "add_bot", "leave", "ready", "reveal", "redeal", "choose", "play", "reading"),
    *("say", "rematch"),
)
MESSAGE_TYPES = ("hello", "sync", "ping", "lobby", "queue", "unqueue", *TABLE_COMMANDS)

decoder = msgspec.json.Decoder(ClientMessage)


class ProtocolError(Exception):
    def __init__(self, code: str, message: str, cid: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.cid = cid


def parse(raw: str | bytes) -> ClientMessage:
    """A typed message, or ProtocolError with ``malformed`` / ``unknown_type`` / ``too_large``."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
    try:
        msg = decoder.decode(raw)
    except msgspec.ValidationError as exc:
        text = str(exc)
        cid = _peek_id(raw)
        if "`$.type`" in text or "missing required field `type`" in text:
            try:
                kind = msgspec.json.decode(raw).get("type")
            except Exception:
                kind = None
            if kind is None or kind not in MESSAGE_TYPES:
                raise ProtocolError("unknown_type", f"unknown message type {kind!r}", cid) from None
        raise ProtocolError("malformed", f"malformed message: {text}", cid) from None
    except msgspec.DecodeError as exc:
        raise ProtocolError("malformed", f"not a JSON object: {exc}") from None
    except RecursionError:
        # A message without its ``type`` first makes the union skip the other keys' values, one
        # recursion per level: 2,048 bytes of brackets reach msgspec's limit. No message nests.
        raise ProtocolError("malformed", "the message is nested too deeply") from None
    cid = getattr(msg, "id", None)
    if cid is not None and (not cid or len(cid) > MAX_ID):
        raise ProtocolError("malformed", f"a command id is 1 to {MAX_ID} characters")
    return msg


def _peek_id(raw: str | bytes) -> str | None:
    try:
        obj = msgspec.json.decode(raw)
    except Exception:
        return None
    cid = obj.get("id") if isinstance(obj, dict) else None
    return cid if isinstance(cid, str) and len(cid) <= MAX_ID else None
