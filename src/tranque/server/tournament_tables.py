"""What a table of a tournament is, for the Swiss's runner and the arena's alike
(docs/tournaments.md, "The service"): one definition, so that the two kinds never drift apart;
and how either runner knows a table it named was made."""

from __future__ import annotations

import logging
from dataclasses import replace

from tranque.rules.variants import Rules
from tranque.store.tournaments import TournamentRow
from tranque.table.lobby import Lobby
from tranque.table.model import TableSettings

log = logging.getLogger("tranque.tournaments")

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


class MadeTables:
    """Whether a table that a round (or an arena's game) names was made. A runner writes a
    table's id down before it makes the table, so a crash between the two leaves an id with no
    table: the next look finds it here and makes the table under that id (no second table for
    the same people). Asked of the store once per table and node, then remembered."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.known: set[str] = set()

    def add(self, table_id: str) -> None:
        self.known.add(table_id)

    async def made(self, table_id: str) -> bool:
        if table_id in self.known or table_id in self.lobby.owners:
            return True
        if await self.lobby.store.table_exists(table_id):
            self.known.add(table_id)
            return True
        log.warning("table %s was named but never made (a crash in between): made now", table_id)
        return False
