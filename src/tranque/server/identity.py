"""Guest identities: a nickname and a signed token, no registration."""

from __future__ import annotations

import re
import secrets

from itsdangerous import BadSignature, URLSafeSerializer

NICK = re.compile(r"^[\w .'-]{1,24}$", re.UNICODE)


class Identity:
    def __init__(self, secret: str) -> None:
        self._signer = URLSafeSerializer(secret, salt="tranque-guest")

    def new_guest(self, nickname: str | None) -> tuple[str, str, str]:
        """(guest id, nickname, token) for a first visit."""
        nick = (nickname or "").strip() or f"guest-{secrets.randbelow(10000):04d}"
        if not NICK.match(nick):
            raise ValueError("a nickname is 1 to 24 letters, digits, spaces or .'-_")
        guest = secrets.token_urlsafe(9)
        return guest, nick, self._signer.dumps({"g": guest, "n": nick})

    def check(self, token: str) -> tuple[str, str] | None:
        """(guest id, nickname) of a valid token, else None."""
        try:
            data = self._signer.loads(token)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("g"), str):
            return None
        return data["g"], str(data.get("n", "guest"))
