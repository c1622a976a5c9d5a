"""The HTTP request bodies, as typed msgspec schemas, and the bounds the edge puts on them.

Every field has one type and no coercion: ``"practice": "false"`` is not a bool and ``"seat":
1.0`` is not a seat, so each gets a 400 with a code and a sentence rather than a guess. Unknown
fields are refused. The rules core checks that the options make a game; the edge adds upper
bounds, so that nobody can open a table that would never end (a target of 10^30). Every string
has a length bound and every object a count bound, far over what a person types and far under
what would cost memory: whatever a field keys (a rate limit's bucket, a lookup) stays small.
Past one, the field's 400 code, like any mistyped field.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, TypeVar

import msgspec

from tranque.club.names import PASSWORD_MAX
from tranque.rules.errors import RulesError
from tranque.rules.variants import Rules

MAX_BODY = 1024 * 1024  # bytes; larger bodies get 413 before they are read whole

# Upper bounds on the rule options a table may be created with (the lower bounds are the rules
# core's). The presets are all well inside.
RULE_BOUNDS: dict[str, int] = {
    "target": 1000,
    "games_to_win_match": 5,
    "capicua_multiplier": 4,
    "first_pass_points": 100,
    "unanswered_double_lead_points": 200,
    "redeal_doubles": 10,
}
MOVE_CLOCK = (0.5, 600.0)
NESTED = "the body is nested too deeply to be one of the API's objects"

# Length bounds of the string fields, in characters (the checks behind them are stricter: a
# name is 3 to 20, a nickname 1 to 24; these only keep what reaches them small).
NAME_FIELD = 64  # an account's name, to claim or to log in
NICKNAME_FIELD = 64
WORD_FIELD = 32  # a preset's, a bot's or a level's name, a rules option's value
RULES_OPTIONS = 32  # options in a rules object (there are fewer than 20)

Name = Annotated[str, msgspec.Meta(max_length=NAME_FIELD)]
Nickname = Annotated[str, msgspec.Meta(max_length=NICKNAME_FIELD)]
Password = Annotated[str, msgspec.Meta(max_length=PASSWORD_MAX)]
Word = Annotated[str, msgspec.Meta(max_length=WORD_FIELD)]
RulesObject = Annotated[dict[Word, int | Word], msgspec.Meta(max_length=RULES_OPTIONS)]


class HttpError(Exception):
    """A refused request: its status, a code for programs and a sentence for people."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


class NewGuest(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/guests``: an empty body or ``{"nickname": ...}``."""

    nickname: Nickname | None = None


class NewTable(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/tables``."""

    rules: Word | RulesObject = "havana"
    move_clock: float | None = None  # seconds; None: the server's default
    practice: bool = True
    seat: int | None = 0
    bot: Word | None = None  # the bot for empty seats and clocks; None: the server's default
    public: bool = False  # listed in the lobby; else reached by its link only
    stake: int | None = None  # a chip table's stake (ledger.stakes.STAKES); None: no chips
    pena: Name | None = None  # a peña's table: its members alone sit (club.penas)


class Credentials(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/accounts`` (claim the guest's account) and ``POST /api/sessions`` (log in).
    The password is only ever hashed or compared: it is never logged nor sent back."""

    name: Name
    password: Password

    def __repr__(self) -> str:  # a stray log line must not show the password
        return f"Credentials(name={self.name!r}, password=...)"


class NewPassword(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/accounts/password``."""

    old: Password
    new: Password

    def __repr__(self) -> str:
        return "NewPassword(old=..., new=...)"


REASON_FIELD = 500  # a moderator's reason (moderation.rules: 3 to 500 characters)
Reason = Annotated[str, msgspec.Meta(max_length=REASON_FIELD)]
Handle = Annotated[str, msgspec.Meta(max_length=NAME_FIELD + 2)]  # a name, or ~ and a guest id
Subject = Annotated[str, msgspec.Meta(max_length=2 * NAME_FIELD + 5)]  # a flag's: "a" or "a+b"


class ModAction(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/mod/actions``: a moderator's action on a person (moderation.rules)."""

    action: Word
    person: Handle
    reason: Reason
    hours: int | None = None  # a suspension's length
    subject: Subject | None = None  # a review: the flag it marks reviewed


class NewReport(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/reports``: a reason of the short list, about a person, maybe at a table."""

    person: Handle
    reason: Word
    table: Word | None = None


class NewBlock(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/blocks``."""

    person: Handle


# The code of a mistyped field, by the field's name; anything else is ``bad_request``.
_FIELD_CODES = {
    "nickname": "bad_nickname",
    "rules": "bad_rules",
    "move_clock": "bad_clock",
    "public": "bad_public",
    "practice": "bad_practice",
    "seat": "bad_seat",
    "bot": "bad_bot",
    "stake": "bad_stake",
    "name": "bad_name",
    "password": "bad_password",
    "old": "bad_password",
    "new": "bad_password",
    "action": "bad_action",
    "person": "bad_person",
    "reason": "bad_reason",
    "hours": "bad_hours",
    "subject": "bad_subject",
    "table": "bad_table",
}
_AT = re.compile(r"`\$\.(\w+)")  # "at `$.seat`", "at `key` in `$.rules`"
_DECODERS: dict[type[Any], msgspec.json.Decoder[Any]] = {
    NewGuest: msgspec.json.Decoder(NewGuest),
    NewTable: msgspec.json.Decoder(NewTable),
    Credentials: msgspec.json.Decoder(Credentials),
    NewPassword: msgspec.json.Decoder(NewPassword),
    ModAction: msgspec.json.Decoder(ModAction),
    NewReport: msgspec.json.Decoder(NewReport),
    NewBlock: msgspec.json.Decoder(NewBlock),
}


T = TypeVar("T")


def decode_club(schema: type[T], body: bytes) -> T:
    """The body of a club request (friends, pairs, peñas, tournaments) as ``schema``: an
    empty body is ``{}``; a wrong field is 400 ``unknown_field`` or ``bad_request``."""
    try:
        return msgspec.json.decode(body or b"{}", type=schema)
    except msgspec.ValidationError as exc:
        code = "unknown_field" if str(exc).startswith("Object contains unknown") else "bad_request"
        raise HttpError(400, code, str(exc)) from None
    except msgspec.DecodeError as exc:
        raise HttpError(400, "malformed", f"the body is not JSON: {exc}") from None


def decode(schema: type[T], body: bytes, *, empty_ok: bool = False) -> T:
    """The body as ``schema``, or HttpError 400 naming the field that is wrong."""
    if not body.strip():
        if empty_ok:
            return schema()
        raise HttpError(400, "malformed", "the body must be a JSON object")
    try:
        return _DECODERS[schema].decode(body)  # type: ignore[no-any-return]
    except RecursionError:
        # msgspec recurses once per level of a free-form value (``rules``) and stops with
        # RecursionError near a thousand: no real body nests past three.
        raise HttpError(400, "malformed", NESTED) from None
    except msgspec.DecodeError as exc:
        if not isinstance(exc, msgspec.ValidationError):
            raise HttpError(400, "malformed", f"the body is not JSON: {exc}") from None
        text = str(exc)
        if text.startswith("Object contains unknown field"):
            raise HttpError(400, "unknown_field", f"{text}") from None
        match = _AT.search(text)
        if match is None:
            raise HttpError(400, "malformed", f"the body must be a JSON object: {text}") from None
        field = match.group(1)
        raise HttpError(400, _FIELD_CODES.get(field, "bad_request"), f"{field}: {text}") from None


def table_rules(spec: str | dict[str, Any]) -> Rules:
    """The rules of a new table, within the edge's bounds."""
    try:
        rules = Rules.from_json(spec)
    except RulesError as exc:
        raise HttpError(400, exc.code, str(exc)) from None
    for name, top in RULE_BOUNDS.items():
        value = getattr(rules, name)
        if value > top:
            raise HttpError(400, "bad_rules", f"rules option {name} is at most {top}, not {value}")
    return rules


def move_clock(value: float | None, default: float) -> float:
    clock = default if value is None else value
    low, high = MOVE_CLOCK
    if not low <= clock <= high:
        raise HttpError(400, "bad_clock", f"move_clock is {low:g} to {high:g} seconds")
    return float(clock)


def seat(value: int | None) -> int | None:
    if value is not None and value not in (0, 1, 2, 3):
        raise HttpError(400, "bad_seat", "seat is 0, 1, 2, 3 or null")
    return value


def bot(value: str | None, default: str) -> str:
    """The bots' level a guest asks for: one of the three levels people choose (``LEVELS``),
    else the server's own (``--bot``). A bot's own name is not taken from a guest: ``strong-slow``
    thinks for 100-200 ms a move, and any guest could have set it at a table of his."""
    if value is None:
        return default
    from tranque.bots.base import LEVELS, resolve_bot

    if value not in LEVELS:
        raise HttpError(400, "bad_bot", f"bot is a level: {', '.join(LEVELS)}, not {value!r}")
    try:
        resolve_bot(value)
    except ValueError as exc:  # its bot is not installed here (the 'bots' extra)
        raise HttpError(400, "bad_bot", str(exc)) from None
    return value
