"""The bodies of a table's log entries, as typed msgspec Structs: one per entry type.

An entry (``table.ports.Entry``) is stored as its type, its data (a JSON object) and its time;
the data as stored is what every log on disk holds, and it stays exactly so. These Structs are
how the table *reads* an entry: ``body_of(entry)`` decodes its data into the Struct of its
type (a microsecond or two), and the appliers and the projection answer it with a ``match``
(``TableApply.apply``, ``TableViews.project``), so that a reader (and mypy) can follow each
field from the entry that logs it to what it changes, and an entry that lacks a field it needs
is refused as it is read, not half applied. A person's command is written as one too
(``checks.decide`` makes the body, ``written`` gives the data to store, exactly the object the
table always wrote).

A field is required where every log ever written has it, and optional (with the default the
table always assumed) where older logs lack it (``by``, ``window``, ``left``, ...). Fields
that older versions wrote and nobody reads any more are ignored.

``guest`` and ``cmd`` are on every body: the person whose command an entry applies, and the
command's id (``TableApply.reply`` answers a resend by them).
"""

from __future__ import annotations

from typing import Any

import msgspec

from tranque.table.ports import Entry


class Body(msgspec.Struct, kw_only=True, tag_field="type", gc=False):
    """What every entry may carry: whose command it applies (``guest``) and its id (``cmd``)."""

    guest: str | None = None
    cmd: str | None = None


class Created(Body, tag="created"):
    """The table's first entry: its settings (``TableSettings.to_json``), its host, and the
    table it is a rematch of (``rematch``: which table, who declined there)."""

    settings: dict[str, Any]
    host: str | None = None
    rematch: dict[str, Any] | None = None


class Sat(Body, tag="sat"):
    """A person took ``seat`` (or, ``renamed``, goes by another name in his own seat)."""

    seat: int
    nickname: str | None = None
    renamed: bool = False


class BotSat(Body, tag="bot_sat"):
    seat: int
    bot: str


class FillSeats(Body, tag="fill"):
    """The free seats are offered to the quick-match queue for ``window`` seconds."""

    seat: int
    window: float


class Stood(Body, tag="stood"):
    seat: int


class Started(Body, tag="started"):
    pass


class HandSeed(Body, tag="hand_seed"):
    """The server's seed of ``hand`` (hex): never shown before the hand ends."""

    hand: int
    server_seed: str


class Committed(Body, tag="committed"):
    seat: int
    hand: int
    commit: str


class RevealOpen(Body, tag="reveal_open"):
    hand: int


class Revealed(Body, tag="revealed"):
    seat: int
    hand: int
    seed: str


class Dealt(Body, tag="dealt"):
    """A deal: its ``attempt`` of the hand, and how long it stays on show (``window``; None in
    logs written before every deal had one)."""

    hand: int
    attempt: int
    window: float | None = None


class Redealt(Body, tag="redeal"):
    """A seat asked for a redeal (``ask``; the declines of old logs too), and who decided it."""

    seat: int
    ask: bool
    by: str | None = None


class RedealClosed(Body, tag="redeal_closed"):
    hand: int


class Chose(Body, tag="chose"):
    """``salgo`` / ``sal_tu``, or None: the clock ran out (written as an explicit null, as every
    log has it: the field has no default, so ``written`` always writes it)."""

    seat: int
    choice: str | None
    by: str | None = None


class Choices(Body, tag="choices"):
    choices: list[str | None]


class Played(Body, tag="played"):
    seat: int
    move: str
    by: str | None = None


class ReadingAsked(Body, tag="reading"):
    seat: int
    hand: int
    done: bool


class NextGame(Body, tag="next_game"):
    game: int
    hand: int


class Away(Body, tag="away"):
    """A person went away: closed his sockets, ``left`` (said so), or never came (``absent``)."""

    seat: int
    left: bool = False
    absent: bool = False


class Back(Body, tag="back"):
    seat: int


class Takeover(Body, tag="takeover"):
    seat: int
    bot: str


class Resumed(Body, tag="resumed"):
    """The table came back from its log after a stop: its clocks move on by ``shift``."""

    shift: float


class Abandoned(Body, tag="abandoned"):
    after: float | None = None


class Aborted(Body, tag="aborted"):
    seat: int


EntryBody = (
    Created
    | Sat
    | BotSat
    | FillSeats
    | Stood
    | Started
    | HandSeed
    | Committed
    | RevealOpen
    | Revealed
    | Dealt
    | Redealt
    | RedealClosed
    | Chose
    | Choices
    | Played
    | ReadingAsked
    | NextGame
    | Away
    | Back
    | Takeover
    | Resumed
    | Abandoned
    | Aborted
)

# Each entry type's Struct, by the type as stored (the Struct's tag).
BODIES: dict[str, type[EntryBody]] = {cls.__struct_config__.tag: cls for cls in EntryBody.__args__}


def body_of(entry: Entry) -> EntryBody:
    """The typed body of an entry's stored data; ValueError for a type or a field the table
    does not know how to apply (nothing of it is applied)."""
    cls = BODIES.get(entry.type)
    if cls is None:
        raise ValueError(f"no entry of type {entry.type!r}")
    try:
        return msgspec.convert(entry.data, cls)
    except msgspec.ValidationError as exc:
        raise ValueError(f"entry {entry.seq} ({entry.type}): {exc}") from None


# The stored type of each Struct, and its own fields (``guest`` and ``cmd`` apart) with their
# defaults (``NODEFAULT``: always written).
_TAGS: dict[type[EntryBody], str] = {cls: tag for tag, cls in BODIES.items()}
_OWN: dict[type[EntryBody], tuple[tuple[str, Any], ...]] = {
    cls: tuple(
        (f.name, f.default) for f in msgspec.structs.fields(cls) if f.name not in ("guest", "cmd")
    )
    for cls in BODIES.values()
}
_ALWAYS = msgspec.NODEFAULT


def written(body: EntryBody) -> tuple[str, dict[str, Any]]:
    """The type and the data to store for a body the table writes: its own fields in their
    order (one at its default left out), then whose command it applies and the command's id;
    exactly the objects the table wrote by hand before, so its logs keep their bytes."""
    cls = type(body)
    data: dict[str, Any] = {}
    for name, default in _OWN[cls]:
        value = getattr(body, name)
        if default is _ALWAYS or value != default:
            data[name] = value
    if body.guest is not None:
        data["guest"] = body.guest
    if body.cmd is not None:
        data["cmd"] = body.cmd
    return _TAGS[cls], data


def logged(seq: int, body: EntryBody, ts: float) -> Entry:
    """The entry ``seq`` that logs ``body`` at ``ts`` (its data as ``written`` gives it)."""
    entry_type, data = written(body)
    return Entry(seq, entry_type, data, ts)


def placed(seq: int, seat: int, guest: str, nickname: str, ts: float) -> Entry:
    """The ``sat`` of a person the table seats itself (at its making, or from the quick-match
    queue): no command of his, so his ``guest`` comes before his name, as every such log has
    it (a ``sit`` command's entry writes it after, with the command's id)."""
    body = Sat(seat=seat, nickname=nickname, guest=guest)
    return Entry(seq, "sat", {"seat": body.seat, "guest": guest, "nickname": body.nickname}, ts)
