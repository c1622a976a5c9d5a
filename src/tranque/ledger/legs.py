"""The legs of the ledger's transactions: whose account each movement debits and credits, by
how much, so that every transaction sums to zero. Pure: ``store.ledger`` posts what these
return, in the database's transaction, under its key.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from tranque.ledger import stakes as chips
from tranque.ledger.stakes import HOUSE

Legs = Sequence[tuple[str, int]]


def merge(legs: Legs) -> list[tuple[str, int]]:
    """The legs by account (one per account), in the order of the accounts. A leg of zero is
    kept: a loser of a pollona gets nothing back, and his history still shows the game."""
    by: dict[str, int] = {}
    for account, amount in legs:
        by[account] = by.get(account, 0) + int(amount)
    return sorted(by.items())


def check_balanced(key: str, merged: Sequence[tuple[str, int]]) -> None:
    """ValueError unless the legs sum to zero: chips are moved, never made or lost."""
    if sum(x for _, x in merged) != 0:
        raise ValueError(f"the legs of {key!r} do not sum to zero: {list(merged)}")


def day_of(ts: float) -> str:
    """The day (UTC) of a daily top-up's key: once a day, whatever the hour."""
    return datetime.datetime.fromtimestamp(ts, datetime.UTC).strftime("%Y-%m-%d")


def holder_account(holder: str) -> str:
    """The account an escrow's holder pays from: the house for a bot seat, else the person."""
    return HOUSE if holder.startswith("house@") else chips.person(holder)


def seat_holders(info: Mapping[str, Any], who: Sequence[str | None]) -> list[str | None]:
    """Who holds each seat's escrow: the person seated there (from the log: a leaver keeps his
    seat, and a bot that took over plays on his stake), ``house@<seat>`` for a bot seat."""
    seats = info.get("seats") or []
    out: list[str | None] = []
    for s in range(4):
        kind = seats[s].get("kind") if s < len(seats) else None
        if kind == "person":
            out.append(who[s])
        elif kind == "bot":
            out.append(chips.house_holder(s))
        else:
            out.append(None)
    return out


def stake_of(info: Mapping[str, Any]) -> int:
    """A table's stake from its info (0: not a chip table)."""
    settings = info.get("settings") or {}
    stake = settings.get("stake", 0) if isinstance(settings, Mapping) else 0
    return int(stake) if isinstance(stake, int) else 0


def back_to_owners(held: Mapping[str, int]) -> list[tuple[str, int]]:
    """Every escrow given back whole to whoever put it in."""
    legs: list[tuple[str, int]] = []
    for account, amount in held.items():
        legs += [(account, -amount), (chips.escrow_owner(account), amount)]
    return legs


def settlement(
    table_id: str,
    stake: int,
    held: Mapping[str, int],
    holders: Sequence[str | None],
    outcome: tuple[int, bool] | None,
) -> tuple[str, list[tuple[str, int]]]:
    """What a finished chip table pays, and the transaction's kind: each seat's escrow back to
    its holder, plus the stake for a winner, minus it for a loser (double in a pollona); any
    other escrow of the table back to its owner (``settle``). A table without a result
    (``outcome``: the winning pair and whether it was a pollona), or whose seats do not all
    hold their escrow (which the ledger never lets happen), gives every escrow back instead
    (``void``)."""
    held = dict(held)
    legs: list[tuple[str, int]] = []
    kind = "void"
    seat_accounts = [None if h is None else chips.escrow(table_id, h) for h in holders]
    if outcome is not None and all(
        a is not None and held.get(a, 0) >= chips.cost(stake) for a in seat_accounts
    ):
        kind = "settle"
        winner, pollona = outcome
        escrowed = [held[a] for a in seat_accounts if a is not None]
        pays = chips.payouts(escrowed, stake, winner, pollona)
        for account, pay in zip(seat_accounts, pays, strict=True):
            assert account is not None
            legs += [(account, -held.pop(account)), (chips.escrow_owner(account), pay)]
    return kind, legs + back_to_owners(held)
