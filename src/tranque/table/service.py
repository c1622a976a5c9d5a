"""``TableService``: one table's state machine, from inputs (log entries) to state and views.

Two ways in, one way to change state:

- ``command(guest, msg, now)`` checks a person's command against the state and returns the entry
  that applies it, or raises ``TableError`` (code + sentence) and changes nothing.
- ``due(now)`` returns the next entry the table makes by itself: a bot's decision, a forced pass,
  a clock that ran out, the next hand's server seed, the end of a fairness window.
- ``apply(entry)`` is the only method that changes state. Rebuilding a table is applying its
  logged entries in order, so everything ``apply`` does depends on the entry and the state only
  (deadlines are computed from the entry's own time stamp).

``TableService`` is the sum of one mixin per concern over ``TableState`` (table/state.py: the
attributes, ``__init__`` and the reading helpers they all share): ``TableChecks``
(table/checks.py: ``command``, ``may_say``), ``TableDue`` (table/due.py: ``due``, ``answer``),
``TableApply`` (table/apply.py: ``apply``, ``reply``) and ``TableViews`` (table/views.py).

What leaves the table is read by the ``TableViews`` mixin: ``project(entry)``
(the public form of an entry: no seed before the hand ends, no tile anyone may not see),
``state_for(seat)`` (the small per-recipient state attached to every event) and
``full_view(seat)`` (a resync). The plain data (settings, seats, the fairness round, the refusal
type) is in table/model.py.
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
    """One table: its state (``TableState``) and one mixin per concern (see the module)."""


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
