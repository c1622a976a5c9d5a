"""``TableService``: one table's state machine, from inputs (log entries) to state and views.

Two ways in, one way to change state:

- ``command(guest, msg, now)`` checks a person's command against the state and returns the entry
  that applies it, or raises ``TableError`` (code + sentence) and changes nothing.
- ``due(now)`` returns the next entry the table makes by itself: a bot's decision, a forced pass,
  a clock that ran out, the next hand's server seed, the end of a fairness window.
- ``apply(entry)`` is the only method that changes state. Rebuilding a table is applying its
  logged entries in order, so everything ``apply`` does depends on the entry and the state only
  (deadlines are computed from the entry's own time stamp).

The work is done by plain functions over the table's state (``TableState``, table/state.py:
the attributes, ``__init__`` and the reading helpers they all share), one module per concern:
table/checks.py (``decide``: state + command -> entry; ``may_fill``, ``may_say``), table/due.py
(``due``: state + time -> entry or a bot's request; ``answer_request``), table/apply.py
(``apply_entry``: state + entry -> state; ``reply``) and table/views.py (``event``: state +
entry -> its public form; ``state_for``: state + recipient -> his state; ``full_view``). Each
function names the state it reads and writes as its first argument, so a reader can follow
every change from the entry that makes it. ``TableService`` is that state with those functions
as its methods (``TableChecks``, ``TableDue``, ``TableApply``, ``TableViews``: one line each),
the one object the owner holds.

What leaves the table: ``event(entry)`` (the public form of an entry, typed: no seed before the
hand ends, no tile anyone may not see; ``project`` is its plain object), ``state_for(seat)``
(the small per-recipient state attached to every event) and ``full_view(seat)`` (a resync).
The plain data (settings, seats, the fairness round, the refusal type) is in table/model.py.
"""

from __future__ import annotations

from tranque.table.apply import TableApply
from tranque.table.checks import TableChecks
from tranque.table.due import TableDue
from tranque.table.model import (
    FairHand,
    Seat,
    SeedSource,
    TableError,
    TableSettings,
    fixed_seeds,
    resolve_bot_name,
    secure_seeds,
)
from tranque.table.ports import Entry
from tranque.table.views import TableViews


class TableService(TableChecks, TableDue, TableApply, TableViews):
    """One table: its state (``TableState``) with the functions of each concern as its methods
    (see the module)."""


def rebuild(table_id: str, entries: list[Entry], seed_source: SeedSource) -> TableService:
    svc = TableService(table_id, seed_source)
    for e in entries:
        svc.apply(e)
    return svc


__all__ = [
    "Entry",
    "FairHand",
    "Seat",
    "SeedSource",
    "TableError",
    "TableService",
    "TableSettings",
    "fixed_seeds",
    "rebuild",
    "resolve_bot_name",
    "secure_seeds",
]
