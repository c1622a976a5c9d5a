"""What an account's name, a guest's nickname and a password may be.

A name is what other people see and type to find a profile, so two names that *look* alike are
one name: names are compared by their confusable skeleton (``club.skeleton``: Unicode TR39's,
with accents, case and the separators folded), so ``Marta`` and ``Mаrta`` (a Cyrillic ``а``),
``Zoé_Two`` and ``zoe-two`` are one name, and the database keeps the skeleton unique (and, as
before, the NFKC casefolded ``key``). Letters of any alphabet (Spanish names have ñ and accents),
digits, and single ``.``, ``-`` or ``_`` between them. Words that would pass for the house, a
bot, a bot's seat name or a page of the site are reserved, compared by skeleton too (``B0T``,
``Ηouse`` with a Greek Eta, ``ROSA``); a guest's nickname may not be one of them either. A
password is at least 8 characters and not one of the ~20,000 everybody tries first
(``data/common-passwords.txt.gz``: a rate limit lets some guesses through, and those are the
ones an attacker tries).
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from functools import cache
from importlib.resources import files

from tranque.club.skeleton import name_skeleton

NAME_LENGTH = (3, 20)
PASSWORD_MIN = 8
PASSWORD_MAX = 256  # longer is no safer, and hashing a megabyte would be an easy load

# Starts and ends with a letter or digit; a separator only between two of them.
_NAME = re.compile(r"^[^\W_](?:[^\W_]|[._-](?=[^\W_]))*$")

# The names the bots carry at a table, one per seat (web/js/model.js ``BOT_NAMES``): a person
# called "Rosa" would pass for the bot in seat 0.
BOT_NAMES = ("Rosa", "Pancho", "Chela", "Tito")

# Names that would pass for the house, a bot or a page of the site (compared by skeleton, and
# also as the start of a name followed by a separator or digits: "bot-3", "admin1"). The bots'
# own names and levels (bots.base) are here: tests/club/test_names.py checks that none is missing.
RESERVED = frozenset(
    """
    admin administrator anonymous anonimo api bot bots casa facil fuerte greedy guest guests
    heuristic house invitado invitados issuer mod moderator moderador normal null practica
    practice random root server servidor staff strong support soporte system sistema tranque
    undefined you yo
    """.split()  # noqa: SIM905 (a list to read, not to edit)
)
_SPLIT = re.compile(r"[._\-\s'’\d]")  # where a reserved word may end and something follow
_BOT_SUFFIX = re.compile(r"^[._\-\s]?\d+$")  # "Rosa2", "tito-1": a bot's name and a number

# Spanish and domino words the list of the world's commonest passwords lacks (of 8 characters or
# more, since shorter ones are refused anyway); compared casefolded.
OWN_COMMON_PASSWORDS = frozenset(
    """
    contraseña contrasena1 micontrasena contraseña1 domino123 dominoes dominoes1 dominos1
    tranque1 tranque123 habana123 cuba1234 doblenueve doble-nueve capicua1 capicua123
    """.split()  # noqa: SIM905 (a list to read, not to edit)
)


@cache
def common_passwords() -> frozenset[str]:
    """The shipped list (``data/README.md`` says where it is from) and our own, read once."""
    data = files("tranque.club").joinpath("data/common-passwords.txt.gz").read_bytes()
    listed = gzip.decompress(data).decode("utf-8").split()
    return frozenset(p.casefold() for p in listed) | OWN_COMMON_PASSWORDS


@cache
def _reserved_skeletons() -> tuple[frozenset[str], frozenset[str], str]:
    """(the reserved words', the bots' names', "guest"'s) skeletons."""
    return (
        frozenset(name_skeleton(w) for w in RESERVED),
        frozenset(name_skeleton(w) for w in BOT_NAMES),
        name_skeleton("guest"),
    )


def reserved(name: str) -> bool:
    """Whether the name (or nickname) would pass for the house, a bot or a page: its skeleton
    is a reserved word or a bot's name, or starts with a reserved word followed by a separator
    or digits (``admin1``, ``b0t-3``), or is a bot's name and a number (``Rosa2``), or starts
    with "guest" (the server's made-up nicknames)."""
    words, bots, guest = _reserved_skeletons()
    whole = name_skeleton(name)
    if whole in words or whole in bots or whole.startswith(guest):
        return True
    folded = unicodedata.normalize("NFKC", name).casefold()
    for cut in _SPLIT.finditer(folded):
        head, rest = folded[: cut.start()], folded[cut.start() :]
        if not head:
            continue
        key = name_skeleton(head)
        if key in words or (key in bots and _BOT_SUFFIX.match(rest)):
            return True
    return False


class BadName(ValueError):
    """A name refused: ``code`` for programs (``bad_name``, ``reserved_name``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class WeakPassword(ValueError):
    """A password refused: ``code`` ``weak_password``."""

    code = "weak_password"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def name_key(name: str) -> str:
    """The casefolded form (NFKC): ``Ana`` and ``ANA`` are one name, and a login finds it."""
    return unicodedata.normalize("NFKC", name).casefold()


def check_name(raw: str) -> str:
    """The name as it will be shown (NFKC, trimmed), or BadName."""
    name = unicodedata.normalize("NFKC", raw.strip())
    low, high = NAME_LENGTH
    if not low <= len(name) <= high:
        raise BadName("bad_name", f"a name is {low} to {high} characters")
    if not _NAME.match(name):
        raise BadName(
            "bad_name",
            "a name is letters and digits, with single '.', '-' or '_' between them",
        )
    if reserved(name):
        raise BadName("reserved_name", f"{name!r} is reserved: choose another name")
    return name


def check_nickname(nickname: str) -> None:
    """BadName ``reserved_name`` for a guest's nickname that would pass for the house or a bot
    (its form, 1 to 24 letters, digits, spaces or .'-_, is ``server.identity``'s to check)."""
    if reserved(nickname):
        raise BadName(
            "reserved_name", f"{nickname!r} would pass for a bot or the house: choose another"
        )


def check_password(password: str, name: str | None = None) -> None:
    """WeakPassword unless the password is long enough and not a common one (nor the name)."""
    if len(password) < PASSWORD_MIN:
        raise WeakPassword(f"a password is at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise WeakPassword(f"a password is at most {PASSWORD_MAX} characters")
    folded = password.casefold()
    if folded in common_passwords() or len(set(folded)) <= 2:
        raise WeakPassword("that password is one of the first everybody tries: choose another")
    if name is not None and name_key(name) in folded:
        raise WeakPassword("a password may not contain the name")
