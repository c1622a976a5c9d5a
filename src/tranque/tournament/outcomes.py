"""What a Swiss table of the service ended with: a game's result, or a no-show's forfeit.

Pure, so the service and its tests agree on every forfeit (docs/tournaments.md): pair A sits in
seats 0 and 2, pair B in 1 and 3. A pair *showed* when at least one of its two people came to
the table within the no-show time (the other gets a bot, marked as every bot that plays for a
person is); a pair neither of whose people came loses by forfeit, ``[target, 0]`` for the pair
that showed; when neither pair showed, there is no winner, ``[0, 0]``, and both take a loss.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Side = Literal["a", "b"]
PAIR_SEATS: dict[Side, tuple[int, int]] = {"a": (0, 2), "b": (1, 3)}


@dataclass(frozen=True, slots=True)
class Outcome:
    """A table's line in the file: its points (A, B), its winner (None: nobody won), whether
    it was a forfeit."""

    points: tuple[int, int]
    winner: Side | None
    forfeit: bool


def showed(absent: set[int], side: Side) -> bool:
    return not set(PAIR_SEATS[side]) <= absent


def no_show(absent: set[int], target: int) -> Outcome | None:
    """The forfeit that the seats who never came (``absent``) make, or None: both pairs came,
    and the game decides."""
    a, b = showed(absent, "a"), showed(absent, "b")
    if a and b:
        return None
    if a:
        return Outcome((target, 0), "a", True)
    if b:
        return Outcome((0, target), "b", True)
    return Outcome((0, 0), None, True)


def played(info: dict[str, Any]) -> Outcome:
    """The outcome of a table that ended (its final info, as the store keeps it): the game's
    real score and winner. A table that ended with no result (its people all gone: abandoned)
    counts as if neither pair had shown."""
    result = info.get("result")
    if not isinstance(result, dict) or result.get("winner") not in ("A", "B"):
        return Outcome((0, 0), None, True)
    pa, pb = result["points"]
    side: Side = "a" if result["winner"] == "A" else "b"
    return Outcome((int(pa), int(pb)), side, False)
