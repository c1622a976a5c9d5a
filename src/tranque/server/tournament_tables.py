"""What a table of a tournament is, for the Swiss's runner and the arena's alike
(docs/tournaments.md, "The service"): one definition, so that the two kinds never drift apart."""

from __future__ import annotations

from dataclasses import replace

from tranque.rules.variants import Rules
from tranque.store.tournaments import TournamentRow
from tranque.table.model import TableSettings

HOST = "tournament"  # the host of a tournament's tables (no guest: nobody may add bots)


def tournament_table(
    defaults: TableSettings, t: TournamentRow, time_cap: float | None = None
) -> TableSettings:
    """The settings of one of ``t``'s tables: its rules (rated: never practice), public as the
    tournament is, no stake, its no-show time as the arrival window, the tournament named (the
    table's end finds its way back to it), and a Swiss's time cap in seconds, if any."""
    return replace(
        defaults,
        rules=Rules.from_json(t.rules),
        practice=False,
        public=t.public,
        stake=0,
        arrival_window=t.no_show,
        tournament=t.id,
        time_cap=time_cap,
    )
