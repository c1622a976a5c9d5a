"""Play chips: the amounts, the accounts of the ledger, and what a finished chip table pays.

Chips are play money: they cannot be bought, sold or cashed, and nothing outside the game is
worth one. They are kept on a double-entry ledger (``store.ledger``): every movement is a
transaction whose legs sum to zero across these accounts:

- ``p:<guest>``: a person (a guest, or the account that guest claimed: same id, same balance);
- ``escrow:<table>:<holder>``: what one seat of one table holds at stake, the holder being the
  person's guest id or ``house@<seat>`` for a bot seat the house stakes;
- ``house``: the site's own chips, which stake the bot seats of chip tables;
- ``issuer``: where grants come from. Its balance is minus everything ever issued; it is the
  only account allowed below zero.

This module is pure (no database): the rules of amounts, for the ledger (``store.ledger``) and
for what a table shows (its stake, its pot, each seat's payout).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tranque.refusals import TableError

STAKES = (100, 1_000, 10_000)  # per person per game (per match under Miami rules)
OPENING_GRANT = 20_000  # every person's first balance
DAILY_FLOOR = 2_000  # once a day (UTC), a balance below this is topped up to it
HOUSE_FLOAT = 1_000_000  # what the issuer grants the house whenever it cannot cover a bot seat
POLLONA_FACTOR = 2  # a pollona costs (and pays) double

ISSUER = "issuer"
HOUSE = "house"


class ChipError(TableError):
    """A refused movement: a code for programs and a sentence for people. Nothing moved."""


class TooFewChips(ChipError):
    def __init__(self, holder: str, needed: int, balance: int | None = None) -> None:
        has = "" if balance is None else f" (the balance is {balance})"
        super().__init__("too_few_chips", f"this table needs {needed} chips in escrow to sit{has}")
        self.holder, self.needed, self.balance = holder, needed, balance


def person(guest: str) -> str:
    return f"p:{guest}"


def house_holder(seat: int) -> str:
    return f"house@{seat}"


def escrow(table_id: str, holder: str) -> str:
    """The escrow account of one holder (a guest id, or ``house_holder(seat)``) at a table."""
    return f"escrow:{table_id}:{holder}"


def escrow_owner(account: str) -> str:
    """The account an escrow account's chips go back to: the person's, or the house's."""
    _, _, holder = account.split(":", 2)
    return HOUSE if holder.startswith("house@") else person(holder)


def escrow_prefix(table_id: str) -> str:
    return f"escrow:{table_id}:"


def cost(stake: int) -> int:
    """The most one game (or match) at ``stake`` can cost a seat: what the seat escrows."""
    return POLLONA_FACTOR * stake


def check_stake(stake: int) -> int:
    if stake not in STAKES:
        raise ChipError("bad_stake", f"a chip table's stake is one of {STAKES}, not {stake!r}")
    return stake


def deltas(stake: int, winner: int, pollona: bool) -> list[int]:
    """What each seat wins (+) or loses (-) at the end: the stake per seat, double in a
    pollona; pair A is seats 0 and 2, pair B 1 and 3 (``winner`` 0 or 1). Sums to zero."""
    amount = stake * (POLLONA_FACTOR if pollona else 1)
    return [amount if s % 2 == winner else -amount for s in range(4)]


def payouts(escrowed: Sequence[int], stake: int, winner: int, pollona: bool) -> list[int]:
    """What goes back from each seat's escrow to its holder: all of it, plus or minus the seat's
    result. The losers' loss is the winners' gain, so the escrows are emptied exactly."""
    return [e + d for e, d in zip(escrowed, deltas(stake, winner, pollona), strict=True)]


def pot(stake: int) -> int:
    """What the table holds in escrow once its four seats are taken."""
    return 4 * cost(stake)


def view(stake: int, result: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What a table's info says of its chips: None for a free table; the stake, each seat's
    escrow and the pot; once it is over, each seat's payout (its result, + or -)."""
    if not stake:
        return None
    payout = None
    if result is not None and result.get("winner") in ("A", "B"):
        payout = deltas(stake, "AB".index(result["winner"]), bool(result.get("pollona")))
    return {"stake": stake, "escrow": cost(stake), "pot": pot(stake), "payout": payout}
