"""A person's standing (moderation): read in whatever transaction the caller holds, by the
moderation's adapter and by ``store.settle`` (a suspended person's game is not rated)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa

from tranque.moderation.rules import Standing
from tranque.store.schema import standing


async def standing_of(conn: Any, guest: str) -> Standing:
    row = (await conn.execute(sa.select(standing).where(standing.c.guest == guest))).first()
    if row is None:
        return Standing()
    return Standing(row.suspended_until, row.closed, int(row.warnings))


async def suspended_among(conn: Any, people: Iterable[str], now: float) -> set[str]:
    """Those of these people kept out of rated play now (suspended, or closed): one query,
    in whatever transaction the caller holds (``store.settle``'s)."""
    who = list(dict.fromkeys(people))
    if not who:
        return set()
    q = sa.select(standing.c.guest).where(
        standing.c.guest.in_(who),
        sa.or_(standing.c.closed.is_not(None), standing.c.suspended_until > now),
    )
    return {r.guest for r in await conn.execute(q)}
