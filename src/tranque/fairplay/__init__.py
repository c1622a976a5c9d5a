"""Fair play: statistics on the plays of finished games that honest play does not show.

Not to be confused with ``tranque.fair`` (verifiable deals). This room reads records (files or
the database's finished games), rates each person's real decisions with the analysis engine
(``tranque.analysis``: the fair value of every option, what the seat could know; its value in
hindsight, every hand known; its value knowing the partner's tiles), and sums them per person
and per partnership into z-scores against honest play (docs/fairplay.md). It flags; it never
bans: a flag is for a person to review.

Importing this package imports nothing third-party: ``screen_record`` (numpy, the kernels) loads
on first use, in a worker process or an offline command, never on the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FORMAT = "tranque-fairplay/1"


def screen_record(record: Mapping[str, Any], *, all_seats: bool = False) -> dict[str, Any]:
    """The per-seat sums of one finished game or match record (``screen.screen_record``): plain
    data in and out, so a worker process of the pool can run it."""
    from tranque.fairplay.screen import screen_record as run

    return run(record, all_seats=all_seats)
