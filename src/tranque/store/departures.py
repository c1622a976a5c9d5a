"""Who left the tables he began (``departures``, migration 0007e) and the completion rate.

Written in ``store.settle``'s transaction, with the table's record: exactly once per table, on
whichever node saves it. A completion rate is the bridge sites' figure: the tables a person
finished ÷ the tables he began. A table he finished is one with a play row of his that is not a
leaver's; a table he began is one with a play row, or one he left before it had a result (his
leave aborted it, or everybody left it). A person at a table somebody else aborted did not
leave it: it counts for neither.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa

from tranque.store.schema import departures, plays


def who_left(
    info: Mapping[str, Any], who: Sequence[str | None], leavers: set[int]
) -> list[tuple[str, str]]:
    """``(guest, kind)`` of each person who left the table, from its final info and the log's
    seating ``who``: the seat whose leave aborted it, every person of a table everybody left,
    or the leavers of a finished one."""
    seats = info.get("seats") or []

    def person(s: int) -> str | None:
        kind = seats[s].get("kind") if s < len(seats) else None
        return who[s] if kind == "person" and s < len(who) else None

    aborted = info.get("aborted")
    if isinstance(aborted, Mapping) and isinstance(aborted.get("seat"), int):
        g = person(aborted["seat"])
        return [] if g is None else [(g, "aborted")]
    if info.get("abandoned"):
        found = [person(s) for s in range(4)]
        return [(g, "abandoned") for g in dict.fromkeys(found) if g is not None]
    found = [person(s) for s in sorted(leavers)]
    return [(g, "leaver") for g in dict.fromkeys(found) if g is not None]


async def record(conn: Any, table_id: str, left: list[tuple[str, str]], ts: float) -> None:
    if left:
        await conn.execute(
            departures.insert(),
            [{"table_id": table_id, "guest": g, "kind": k, "ts": ts} for g, k in left],
        )


async def departed_since(conn: Any, guest: str, since: float) -> list[float]:
    """When the person left tables (any kind) since ``since``: the cool-down's input."""
    q = sa.select(departures.c.ts).where(departures.c.guest == guest, departures.c.ts >= since)
    return [float(r.ts) for r in await conn.execute(q)]


async def completion(conn: Any, guest: str) -> dict[str, Any]:
    """``{"finished", "begun", "rate"}`` (``rate`` null before any table begun)."""
    played = (
        await conn.execute(sa.select(sa.func.count()).where(plays.c.guest == guest))
    ).scalar_one()
    q = (
        sa.select(departures.c.kind, sa.func.count())
        .where(departures.c.guest == guest)
        .group_by(departures.c.kind)
    )
    by = {k: int(n) for k, n in await conn.execute(q)}
    finished = int(played) - by.get("leaver", 0)
    begun = int(played) + by.get("aborted", 0) + by.get("abandoned", 0)
    return {
        "finished": finished,
        "begun": begun,
        "rate": None if begun == 0 else round(finished / begun, 3),
    }


async def rates(conn: Any, guests: Sequence[str]) -> dict[str, float | None]:
    """Each person's completion rate (``completion``'s ``rate``), many in two queries."""
    who = list(dict.fromkeys(guests))
    if not who:
        return {}
    q = sa.select(plays.c.guest, sa.func.count()).where(plays.c.guest.in_(who))
    played = {g: int(n) for g, n in await conn.execute(q.group_by(plays.c.guest))}
    q2 = (
        sa.select(departures.c.guest, departures.c.kind, sa.func.count())
        .where(departures.c.guest.in_(who))
        .group_by(departures.c.guest, departures.c.kind)
    )
    by: dict[str, dict[str, int]] = {}
    for g, kind, n in await conn.execute(q2):
        by.setdefault(g, {})[kind] = int(n)
    out: dict[str, float | None] = {}
    for g in who:
        left = by.get(g, {})
        finished = played.get(g, 0) - left.get("leaver", 0)
        begun = played.get(g, 0) + left.get("aborted", 0) + left.get("abandoned", 0)
        out[g] = None if begun == 0 else round(finished / begun, 3)
    return out
