"""How a chip table uses the ledger's port (``ledger.ports.ChipLedger``; ``store.chips.SqlChips``
is the adapter), and the crash points the kill tests inject.

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
from collections.abc import Sequence
from typing import Any

from tranque.ledger.ports import ChipLedger as ChipLedger  # the table's modules import it here
from tranque.ledger.stakes import ChipError, cost
from tranque.table.entries import BotSat, Sat, Stood, body_of
from tranque.table.model import TableError
from tranque.table.ports import Entry

log = logging.getLogger("tranque.table")

# ``TRANQUE_CRASH_AT=<point>``: the process kills itself (SIGKILL, as ``kill -9`` would) the
# first time it reaches that point. For the tests of recovery only; unset, nothing happens.
CRASH_AT = os.environ.get("TRANQUE_CRASH_AT", "")
CRASH_POINTS = ("escrow_taken", "sat_logged", "started_logged", "over_logged", "settled")


def crash_point(name: str) -> None:
    if CRASH_AT and name == CRASH_AT:
        os.kill(os.getpid(), signal.SIGKILL)


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
    match body_of(entry):
        case Sat(renamed=True):
            return  # a new name in a seat already staked
        case Sat(guest=guest):
            holder = str(guest)
        case BotSat(seat=seat):
            holder = f"house@{seat}"
        case _:
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
    body = body_of(entry)
    if isinstance(body, Sat):
        crash_point("sat_logged")
    if not isinstance(body, Stood):
        return
    try:
        await chips.give_back(table_id, [str(body.guest)])
    except Exception:
        log.exception("table %s: an escrow could not be given back yet", table_id)
