"""The quick-match cool-down of a person who abandons games (docs/club.md, "Cool-down").

One departure a day is forgiven (a dropped connection, a call that came in). From the second
within ``WINDOW``, the queue takes the person again only ``FIRST * 2**(n - 2)`` seconds after
his latest departure (n departures: 1 minute, 2, 4, 8, ...), at most ``LONGEST``: it grows with
every repeat, and a day without one clears it. A departure is a table he left before it had a
result (``aborted``, ``abandoned``) or one where a bot took over more than a quarter of his
decisions (``leaver``): the ``departures`` rows (store.departures).
"""

from __future__ import annotations

from collections.abc import Sequence

WINDOW = 24 * 3600.0  # departures older than this are forgotten
FIRST = 60.0  # the cool-down after a second departure, in seconds
LONGEST = 3600.0  # never longer than this


def cooldown_until(departed: Sequence[float]) -> float | None:
    """When the queue takes the person again, from the times of his departures within
    ``WINDOW`` (any order); None: now."""
    if len(departed) < 2:
        return None
    wait = min(LONGEST, FIRST * float(2 ** (len(departed) - 2)))
    return float(max(departed)) + wait
