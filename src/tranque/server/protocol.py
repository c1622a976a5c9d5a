"""The WebSocket protocol's client messages, as typed msgspec schemas (see docs/protocol.md).

Every message is one JSON object with a ``type``. Unknown fields are refused, so a message that
tries to name a seat (or anything else the server decides) is malformed, not ignored. Every free
string has a length bound besides the frame's (``MAX_MESSAGE_BYTES``): what a field keys or is
logged under stays small, whatever the frame limit becomes.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from tranque.table.messages import (
    MAX_ID,
    PHRASES,
    AddBot,
    Choose,
    Fill,
    Ident,
    Leave,
    Message,
    Phrase,
    Play,
    Reading,
    Ready,
    Redeal,
    RematchAnswer,
    Reveal,
    Say,
    Sit,
    TableCommand,
)
from tranque.table.owner_frames import frame

MAX_MESSAGE_BYTES = 2048  # larger text frames get an error frame; far larger ones close (1009)
MAX_TOKEN = 1024  # a signed token is a few hundred characters

Token = Annotated[str, msgspec.Meta(max_length=MAX_TOKEN)]
Variant = Literal["havana", "miami", "oriente", "barrio"]


class Hello(Message, tag="hello"):
    """First message of a connection: who I am, which table, and the last event I saw."""

    token: Token
    table: Ident
    role: Literal["player", "spectator"] = "player"
    last_seq: int | None = None


class Sync(Message, tag="sync"):
    """Ask again for a full view (and the events after ``last_seq``, if still in memory)."""

    last_seq: int | None = None


class Ping(Message, tag="ping"):
    id: str | None = None


class Lobby(Message, tag="lobby"):
    """Before any hello: the lobby's listing now, and again whenever it changes. With an
    account's ``token``, the tables of his peñas too (members only: docs/club.md)."""

    token: Token | None = None


class Queue(Message, tag="queue"):
    """Before any hello: wait for a table of people of ``variant`` ("Jugar ahora · Con
    personas"); with ``party``, as the partner of the friend who shares it."""

    token: Token
    variant: Variant = "havana"
    party: Ident | None = None
    stake: int | None = None  # a chip table's queue (ledger.stakes.STAKES); None: no chips


class Unqueue(Message, tag="unqueue"):
    """Out of the queue (one tap)."""


class Notices(Message, tag="notices"):
    """Before any hello, with an account's token: this socket gets the account's notices (the
    bell) and its friends' presence from now on, and counts as the account being online."""

    token: Token


# The table's commands are the table's own Structs (table/messages.py): decoded here, once,
# and handed on as they are.
ClientMessage = Hello | Sync | Ping | TableCommand | Lobby | Queue | Unqueue | Notices
TABLE_COMMANDS = (
    *("sit", "add_bot", "leave", "ready", "reveal", "redeal", "choose", "play", "reading"),
    *("say", "rematch", "fill"),
)
MESSAGE_TYPES = ("hello", "sync", "ping", "lobby", "queue", "unqueue", "notices", *TABLE_COMMANDS)

decoder = msgspec.json.Decoder(ClientMessage)

__all__ = [
    "MAX_ID",
    "MAX_MESSAGE_BYTES",
    "PHRASES",
    "AddBot",
    "Choose",
    "ClientMessage",
    "Fill",
    "Hello",
    "Leave",
    "Lobby",
    "Phrase",
    "Ping",
    "Play",
    "ProtocolError",
    "Queue",
    "Reading",
    "Ready",
    "Redeal",
    "RematchAnswer",
    "Reveal",
    "Say",
    "Sit",
    "Sync",
    "TableCommand",
    "Unqueue",
    "error_frame",
    "parse",
]


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


def error_frame(code: str, message: str, cid: str | None = None) -> bytes:
    """The frame that refuses a message: its ``code`` for programs, its ``message`` for people,
    and the ``id`` of the message it answers, when it had one."""
    return frame({"type": "error", "id": cid, "code": code, "message": message})


def _peek_id(raw: str | bytes) -> str | None:
    try:
        obj = msgspec.json.decode(raw)
    except Exception:
        return None
    cid = obj.get("id") if isinstance(obj, dict) else None
    return cid if isinstance(cid, str) and len(cid) <= MAX_ID else None
