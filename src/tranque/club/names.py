"""What an account's name and password may be.

A name is what other people see and type to find a profile, so it is unique without regard to
case (``Ana`` and ``ana`` are one name) and to Unicode forms (NFKC): the database keeps the
casefolded ``key`` unique. Letters of any alphabet (Spanish names have ñ and accents), digits,
and single ``.``, ``-`` or ``_`` between them; words that would pass for the house or a bot are
reserved. A password is at least 8 characters and not one of the few thousand everybody tries
first (a short list of the commonest is enough to stop the guesses a rate limit lets through).
"""

from __future__ import annotations

import re
import unicodedata

NAME_LENGTH = (3, 20)
PASSWORD_MIN = 8
PASSWORD_MAX = 256  # longer is no safer, and hashing a megabyte would be an easy load

# Starts and ends with a letter or digit; a separator only between two of them.
_NAME = re.compile(r"^[^\W_](?:[^\W_]|[._-](?=[^\W_]))*$")

# Names that would pass for the house, a bot or a page of the site (compared casefolded,
# and also as the start of a name followed by a separator or digits: "bot-3", "admin1").
RESERVED = frozenset(
    """
    admin administrator anonymous anonimo api bot bots facil fuerte guest guests heuristic
    invitado invitados mod moderator moderador normal null practica practice random root
    server servidor staff strong support soporte system sistema tranque undefined you yo
    """.split()  # noqa: SIM905 (a list to read, not to edit)
)
_RESERVED_PREFIX = re.compile(r"^(" + "|".join(sorted(RESERVED)) + r")[._\-\d]")

# The commonest passwords of the public breach lists (of 8 characters or more, since shorter
# ones are refused anyway), in English and Spanish; compared casefolded.
COMMON_PASSWORDS = frozenset(
    """
    12345678 123456789 1234567890 0123456789 11111111 00000000 12341234 87654321 11223344
    123123123 1q2w3e4r 1qaz2wsx qwertyui qwertyuiop asdfghjk asdfghjkl zxcvbnm1 password
    password1 password12 password123 passw0rd p@ssw0rd iloveyou princess sunshine football
    baseball superman batman123 trustno1 welcome1 welcome123 letmein1 abc12345 abcd1234
    qwerty12 qwerty123 1234qwer q1w2e3r4 q1w2e3r4t5 aaaaaaaa changeme monkey123 dragon12
    master12 shadow12 michael1 jennifer whatever computer internet starwars pokemon1
    contrasena contraseña contrasena1 micontrasena 1234abcd teamo123 tequiero tequiero1
    iloveyou1 mariposa barcelona realmadrid estrella chocolate corazon1 domino123 dominoes
    dominoes1 dominos1 tranque1 tranque123 habana123 cuba1234 doblenueve capicua1
    """.split()  # noqa: SIM905 (a list to read, not to edit)
)


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
    """The form under which names are unique: NFKC, casefolded."""
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
    key = name_key(name)
    if key in RESERVED or _RESERVED_PREFIX.match(key) or key.startswith("guest"):
        raise BadName("reserved_name", f"{name!r} is reserved: choose another name")
    return name


def check_password(password: str, name: str | None = None) -> None:
    """WeakPassword unless the password is long enough and not a common one (nor the name)."""
    if len(password) < PASSWORD_MIN:
        raise WeakPassword(f"a password is at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise WeakPassword(f"a password is at most {PASSWORD_MAX} characters")
    folded = password.casefold()
    if folded in COMMON_PASSWORDS or len(set(folded)) <= 2:
        raise WeakPassword("that password is one of the first everybody tries: choose another")
    if name is not None and name_key(name) in folded:
        raise WeakPassword("a password may not contain the name")
