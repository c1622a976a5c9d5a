"""Guest identities: a nickname and a signed token that expires, no registration.

A token is ``{"g": guest, "n": nickname}`` signed with a time stamp (itsdangerous); a logged-in
account's token also names its session, ``"s"`` (``club.accounts``), which the server checks on
every use so that logging out ends it. It is valid
for ``max_age`` seconds from when it was signed; a client renews it while it is still valid
(``POST /api/guests/renew``), so a guest who comes back within that time keeps his identity and
one who does not becomes a new guest. The newest secret signs; every secret in the list verifies,
so a secret can be rotated without logging everyone out: the old one stays in the list for one
token lifetime.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Sequence
from enum import Enum
from typing import NamedTuple

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from tranque.club.names import check_nickname

NICK = re.compile(r"^[\w .'-]{1,24}$", re.UNICODE)
DEFAULT_MAX_AGE = 30 * 24 * 3600  # thirty days


def checked_nickname(raw: str) -> str:
    """A guest's nickname as it will be shown (trimmed), or ValueError: its form (1 to 24
    letters, digits, spaces or .'-_; never cut to fit), and BadName ``reserved_name`` for one
    that would pass for a bot or the house (compared by its confusable skeleton). The one check
    of a nickname wherever one is given: a new guest, a new name, a seat taken with it."""
    nick = raw.strip()
    if not NICK.match(nick):
        raise ValueError("a nickname is 1 to 24 letters, digits, spaces or .'-_")
    check_nickname(nick)
    return nick


class TokenState(Enum):
    VALID = "valid"
    EXPIRED = "expired"
    BAD = "bad"


class Verdict(NamedTuple):
    state: TokenState
    who: tuple[str, str] | None  # (guest id, nickname) when valid
    age: float = 0.0  # seconds since it was signed, when valid
    session: str | None = None  # an account's session the token names


class Identity:
    def __init__(
        self, secret: str, old_secrets: Sequence[str] = (), max_age: int = DEFAULT_MAX_AGE
    ):
        if not secret:
            raise ValueError("the signing secret is empty")
        # itsdangerous takes the keys oldest to newest and signs with the last.
        keys = [*(s for s in old_secrets if s and s != secret), secret]
        self._signer = URLSafeTimedSerializer(keys, salt="tranque-guest")
        self.max_age = max_age

    def new_guest(self, nickname: str | None) -> tuple[str, str, str]:
        """(guest id, nickname, token) for a first visit."""
        nick = (nickname or "").strip()
        nick = checked_nickname(nick) if nick else f"guest-{secrets.randbelow(10000):04d}"
        guest = secrets.token_urlsafe(9)
        return guest, nick, self.sign(guest, nick)

    def sign(self, guest: str, nickname: str, session: str | None = None) -> str:
        data = {"g": guest, "n": nickname}
        if session is not None:
            data["s"] = session
        return self._signer.dumps(data)

    def inspect(self, token: str) -> Verdict:
        """The token's state and, when valid, (guest id, nickname) and age."""
        try:
            data, signed = self._signer.loads(token, max_age=self.max_age, return_timestamp=True)
        except SignatureExpired:
            return Verdict(TokenState.EXPIRED, None)
        except BadSignature:
            return Verdict(TokenState.BAD, None)
        if not isinstance(data, dict) or not isinstance(data.get("g"), str):
            return Verdict(TokenState.BAD, None)
        who = (data["g"], str(data.get("n", "guest")))
        session = data.get("s")
        age = max(0.0, time.time() - signed.timestamp())
        return Verdict(TokenState.VALID, who, age, session if isinstance(session, str) else None)

    def renewal(self, token: str) -> str | None:
        """A fresh token for a valid one past half its life (else None): a client in use is
        handed it on ``hello`` and keeps it, so it never sees its token expire."""
        state, who, age, session = self.inspect(token)
        if state is not TokenState.VALID or who is None or age < self.max_age / 2:
            return None
        return self.sign(*who, session)

    def check(self, token: str) -> tuple[str, str] | None:
        """(guest id, nickname) of a valid, unexpired token, else None."""
        return self.inspect(token).who
