"""A rated game that a person leaves before its first hand ends is aborted (docs/club.md).

Lichess's rule, for a game of pairs: a leave at the very start says nothing of anybody's play,
and a bot carrying the leaver's seat for a whole match would rate three people on a bot's
result. So when a person's grace runs out (he left, or never came) at a table that would be
rated, before any hand of it has ended, the table does not give him a bot: it logs ``aborted``
and ends like an abandoned table, with no result (nobody's rating moves, every escrow goes
back through the ledger's ``void`` settlement) and out of the lobby. A reconnect within the
grace cancels the grace timer, so it never gets here: it is never a leave.

Pure: it reads the table's state only, so a rebuild from the log decides the same.
"""

from __future__ import annotations

from tranque.rules.variants import PRESETS
from tranque.table.state import TableState


def would_be_rated(state: TableState) -> bool:
    """The club rates the table when it ends (``club.ratings``): four different people sit in
    it and its rules are exactly one of the presets."""
    seats = state.seats
    guests = {seat.guest for seat in seats if seat.kind == "person" and seat.guest is not None}
    return len(guests) == 4 and state.settings.rules.name in PRESETS


def aborts_on_leave(state: TableState) -> bool:
    """A grace running out now aborts the table: a started, rated table not over, none of whose
    hands has ended yet (a hand's end publishes its fairness section). Never at a tournament's
    table: there a bot plays for whoever is missing, and the tournament rules on no-shows."""
    if state.settings.tournament is not None:
        return False
    return state.started and not state.over and not state.published and would_be_rated(state)


def count_decision(state: TableState, seat: int, by: str | None) -> None:
    """Count one decision of ``seat`` (a play, a lead choice, an asked redeal) logged ``by``
    whom: a forced pass (``server``) is nobody's decision; ``bot`` at a person's seat is a bot
    playing for him while he is away. A clock that ran out on him counts as his own (he was
    there, slow)."""
    if by == "server":
        return
    state.decisions[seat] += 1
    if by == "bot" and state.seats[seat].kind == "person":
        state.bot_decisions[seat] += 1
