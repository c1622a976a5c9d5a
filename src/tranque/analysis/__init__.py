"""Analysis: every play of a record that was a real choice, rated by what it cost the pair.

``analyze_record`` is the one entry point, for ``tranque analyze`` and for a worker process of
the pool alike: plain data in (a record as loaded from JSON), plain data out (the
``tranque-analysis/1`` JSON of docs/analysis.md), nothing that cannot be pickled. Importing this
package imports no third-party package (``tranque --help`` runs on the bare core); the engine,
numpy and numba load on the first call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

SEATS = (0, 1, 2, 3)


def analyze_record(
    record: Mapping[str, Any],
    *,
    seats: Sequence[int] = SEATS,
    mode: str = "fair",
    hand: int | None = None,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The ``tranque-analysis/1`` JSON of a hand, game or match record.

    ``seats``: the seats whose plays are rated (default all four). ``mode``: ``"fair"`` (from
    what the seat knew) or ``"hindsight"`` (all hands face up). ``hand``: only hand ``hand`` of
    each game. ``seed``: fair mode's worlds; the same seed gives the same values. ``progress``
    is called with (decisions done, decisions in all) as the work goes on.

    Raises ``RulesError`` for a record that does not replay and ``AnalysisError`` (a
    ``ValueError``) for seats, a mode or a hand that are not there.
    """
    from tranque.analysis.engine import analyze

    return analyze(record, seats=seats, mode=mode, hand=hand, seed=seed, progress=progress)
