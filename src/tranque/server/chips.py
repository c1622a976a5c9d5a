"""The chips' HTTP routes: the bearer's balance and the history of its movements.

Play money only: chips cannot be bought, sold or cashed, and every answer says so
(``play_money``). The amounts are ``ledger.stakes``'; the rows ``store.chips``. A person's answer
is his own (the bearer's): nobody else's balance, and no account name of the ledger but his.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tranque.ledger import stakes as chips
from tranque.server.http_schemas import HttpError
from tranque.server.late_routes import refusal
from tranque.store.chips import SqlChips

if TYPE_CHECKING:
    from tranque.server.club import Club

HISTORY = 100  # movements of a history page, by default and at most
KINDS = ("grant", "escrow", "release", "settle", "void")


class ChipRoutes:
    def __init__(self, ledger: SqlChips, club: Club) -> None:
        self.ledger, self.club = ledger, club

    async def balance(self, request: Request) -> Response:
        """``GET /api/chips``: the bearer's balance (after the opening grant or the day's
        top-up, when due), what he has in escrow now, and the rules of the amounts."""
        try:
            who = await self.club.who(request)
        except HttpError as exc:
            return refusal(exc)
        return JSONResponse(
            {
                "balance": await self.ledger.balance(who.guest),
                "in_escrow": await self.ledger.in_escrow(who.guest),
                **rules(),
            }
        )

    async def history(self, request: Request) -> Response:
        """``GET /api/chips/history?limit=N``: the bearer's newest movements, newest first,
        each with the balance after it and a link to its table's page and record."""
        try:
            who = await self.club.who(request)
            try:
                limit = int(request.query_params.get("limit", str(HISTORY)))
            except ValueError:
                limit = -1
            if not 1 <= limit <= HISTORY:
                raise HttpError(400, "bad_limit", f"limit is 1 to {HISTORY}")
        except HttpError as exc:
            return refusal(exc)
        moves = await self.ledger.history(who.guest, limit)
        return JSONResponse(
            {
                "balance": moves[0]["balance"] if moves else 0,
                "movements": [_movement(m) for m in moves],
                "play_money": True,
            }
        )


def rules() -> dict[str, Any]:
    return {
        "play_money": True,  # never bought, sold or cashed
        "stakes": list(chips.STAKES),
        "opening_grant": chips.OPENING_GRANT,
        "daily_floor": chips.DAILY_FLOOR,
        "pollona_factor": chips.POLLONA_FACTOR,
    }


def _movement(m: dict[str, Any]) -> dict[str, Any]:
    tid = m["table"]
    return {
        "kind": m["kind"],
        "amount": m["amount"],
        "balance": m["balance"],
        "ts": m["ts"],
        "table": tid,
        "page": None if tid is None else f"/t/{tid}",
        "record": None if tid is None else f"/api/tables/{tid}/record",
    }
