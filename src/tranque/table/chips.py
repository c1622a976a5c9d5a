"""What a chip table asks of the ledger (the port; ``store.chips.SqlChips`` is the adapter), and
the crash points the kill tests inject.

A seat at a chip table is paid for before it is logged: the owner asks ``take`` for the seat's
escrow (the game's most cost) and logs the ``sat`` only once the ledger has it, so a seat in the
log always has its chips in escrow. The other way round (chips in escrow, no seat in the log:
the node died in between, or a person stood up) is repaired by ``reconcile`` when the table is
rebuilt, and by the settlement or the expiry, which give back every escrow no seat holds.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from tranque.table.model import TableError
from tranque.table.ports import Entry
from tranque.table.stakes import ChipError, cost

log = logging.getLogger("tranque.table")

# ``TRANQUE_CRASH_AT=<point>``: the process kills itself (SIGKILL, as ``kill -9`` would) the
# first time it reaches that point. For the tests of recovery only; unset, nothing happens.
CRASH_AT = os.environ.get("TRANQUE_CRASH_AT", "")
CRASH_POINTS = ("escrow_taken", "sat_logged", "started_logged", "over_logged", "settled")


def crash_point(name: str) -> None:
    if CRASH_AT and name == CRASH_AT:
        os.kill(os.getpid(), signal.SIGKILL)


class ChipLedger(Protocol):
    async def take(self, table_id: str, holders: Sequence[str], amount: int) -> None:
        """Move ``amount`` from each holder (a guest id, or ``house@<seat>``) into its escrow at
        the table, all or none (``table.stakes.ChipError``: ``too_few_chips``...)."""
        ...

    async def create_table(
        self,
        table_id: str,
        host: str,
        info: dict[str, Any],
        holders: Sequence[str],
        amount: int,
        people: Sequence[str] = (),
    ) -> None:
        """The table's row (and its ``people``, as ``TableStore.create_table``) and its first
        seats' escrows, in one transaction (all or none)."""
        ...

    async def give_back(self, table_id: str, holders: Iterable[str]) -> None:
        """The escrows of these holders at the table back to them (once)."""
        ...

    async def reconcile(self, table_id: str, seated: Sequence[str | None]) -> int:
        """Give back every escrow of the table that none of ``seated`` holds; chips moved."""
        ...


def holders_of(seats: Sequence[Any]) -> list[str | None]:
    """Each seat's escrow holder from a table's seats (``Seat``): the person's guest id, or
    ``house@<seat>`` for a bot seat, or None for an empty one."""
    out: list[str | None] = []
    for s, seat in enumerate(seats):
        if seat.kind == "person":
            out.append(seat.guest)
        elif seat.kind == "bot":
            out.append(f"house@{s}")
        else:
            out.append(None)
    return out


async def stake_seat(chips: ChipLedger, table_id: str, stake: int, entry: Entry) -> None:
    """Before a chip table's seat is logged (``sat``, ``bot_sat``): the game's most cost moves
    into the seat's escrow, or ``TableError`` and nothing moved (the command is refused)."""
    if entry.type == "sat":
        holder = str(entry.data["guest"])
    elif entry.type == "bot_sat":
        holder = f"house@{entry.data['seat']}"
    else:
        return
    try:
        await chips.take(table_id, [holder], cost(stake))
    except ChipError as exc:
        raise TableError(exc.code, exc.message) from None
    except Exception:
        log.exception("table %s: the ledger could not be reached", table_id)
        raise TableError("unavailable", "the chips cannot be reached now: try again") from None
    crash_point("escrow_taken")


async def seat_staked(chips: ChipLedger, table_id: str, entry: Entry) -> None:
    """After a chip table's seat change is logged: a person who stood up before the start gets
    his escrow back (if this fails, the rebuild's reconciling or the end does it)."""
    if entry.type == "sat":
        crash_point("sat_logged")
    if entry.type != "stood":
        return
    try:
        await chips.give_back(table_id, [str(entry.data["guest"])])
    except Exception:
        log.exception("table %s: an escrow could not be given back yet", table_id)
