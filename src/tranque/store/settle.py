"""What a finished table leaves in the club's rows: each person's play and, for a rated table,
the ratings (``club.ratings``).

``settle`` runs inside ``Store.finish_table``'s transaction, the one that saves the record: the
ratings of a game are updated exactly once, on whichever node saves it (a second save of the
same table fails on the record's key and rolls back everything with it). The rating rows are
locked in the order of their keys (``FOR UPDATE`` on PostgreSQL), so two games finishing at
once with a person in common wait for each other instead of deadlocking, and neither update is
lost.
"""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from tranque.club.ratings import Skill, outcome_of, rate
from tranque.store.schema import events, plays, rating_changes, ratings

_decode = msgspec.json.decode


async def seat_guests(conn: Any, table_id: str) -> list[str | None]:
    """Who sat in each seat, from the table's log (``sat`` and ``stood``): works on any node,
    whether or not the table is in its memory."""
    q = (
        sa.select(events.c.type, events.c.payload)
        .where(events.c.table_id == table_id, events.c.type.in_(("sat", "stood")))
        .order_by(events.c.seq)
    )
    seats: list[str | None] = [None] * 4
    for row in await conn.execute(q):
        data = _decode(row.payload)
        seat = data.get("seat")
        if isinstance(seat, int) and 0 <= seat < 4:
            seats[seat] = data.get("guest") if row.type == "sat" else None
    return seats


async def log_seats(conn: Any, table_id: str) -> list[dict[str, Any]]:
    """Each seat's ``kind`` and ``nickname`` from the table's log (``sat``, ``bot_sat``,
    ``stood``), as the table's own info shows them: for a node that does not own the table,
    whose info row is only what it was at its creation."""
    q = (
        sa.select(events.c.type, events.c.payload)
        .where(events.c.table_id == table_id, events.c.type.in_(("sat", "bot_sat", "stood")))
        .order_by(events.c.seq)
    )
    seats: list[dict[str, Any]] = [{"kind": "empty", "nickname": None} for _ in range(4)]
    for row in await conn.execute(q):
        data = _decode(row.payload)
        seat = data.get("seat")
        if not (isinstance(seat, int) and 0 <= seat < 4):
            continue
        if row.type == "sat":
            seats[seat] = {"kind": "person", "nickname": data.get("nickname")}
        elif row.type == "bot_sat":  # the nickname ``table.apply`` gives a bot's seat
            seats[seat] = {"kind": "bot", "nickname": f"bot ({data.get('bot')})"}
        else:
            seats[seat] = {"kind": "empty", "nickname": None}
    return seats


# The statements of a rated game, built once: building one (and its cache key) costs more than
# running it on SQLite, and a server settles a dozen games a second at 2,000 tables.
_NEW_RATING = tuple(  # the rows of those rated for the first time, by dialect (SQLite, PostgreSQL)
    insert(ratings).on_conflict_do_nothing() for insert in (sqlite.insert, postgresql.insert)
)
_HELD = (  # locked in the order of their keys (see the module's docstring)
    sa.select(ratings.c.guest, ratings.c.mu, ratings.c.sigma, ratings.c.games)
    .where(
        ratings.c.preset == sa.bindparam("of"),
        ratings.c.guest.in_(sa.bindparam("who", expanding=True)),
    )
    .order_by(ratings.c.guest)
    .with_for_update()
)
_RATED = (
    ratings.update()
    .where(ratings.c.guest == sa.bindparam("who"), ratings.c.preset == sa.bindparam("of"))
    .values(
        mu=sa.bindparam("new_mu"),
        sigma=sa.bindparam("new_sigma"),
        games=sa.bindparam("new_games"),
        updated=sa.bindparam("when"),
    )
)


def changes(preset: str | None, moves: list[tuple[int, Skill, Skill]]) -> dict[str, Any]:
    """What the table's sockets are told of a settled game (the ``rating`` frame's body): the
    preset (None: not a preset's rules) and, for a rated game, each seat's rating before and
    after. Seats only, never a guest's id: ratings are public, who sat where is the table's."""
    return {
        "preset": preset,
        "rated": bool(moves),
        "seats": [
            {
                "seat": s,
                "before": b.rating,
                "after": a.rating,
                "change": a.rating - b.rating,
                "games": a.games,
                "provisional": a.provisional,
            }
            for s, b, a in moves
        ],
    }


async def settle(
    conn: Any, dialect: str, table_id: str, info: dict[str, Any], ts: float
) -> dict[str, Any]:
    """Each person's play of a finished table and, when four people began it under a preset,
    the rating update (``club.ratings``). In the caller's transaction. Returns ``changes``:
    what the owner tells the table's sockets once the transaction is committed."""
    outcome = outcome_of(info)
    if outcome is None:
        return changes(None, [])
    result = info["result"]
    seats = info.get("seats", [])
    who = await seat_guests(conn, table_id)
    people = {
        s: g
        for s, g in enumerate(who)
        if g is not None and s < len(seats) and seats[s].get("kind") == "person"
    }
    if not people:
        return changes(outcome.preset, [])
    rated = outcome.persons and outcome.preset is not None and len(set(people.values())) == 4
    rows = []
    for s, g in people.items():
        pair = s % 2
        rows.append(
            {
                "table_id": table_id,
                "guest": g,
                "seat": s,
                "nickname": str(seats[s].get("nickname") or "guest")[:64],
                "preset": outcome.preset,
                "won": pair == outcome.winner,
                "rated": rated,
                "pollonas_given": int(result["pollonas"][pair]),
                "pollonas_suffered": int(result["pollonas"][pair ^ 1]),
                "viajeras": int(result["viajeras"][pair]),
                "finished": ts,
            }
        )
    await conn.execute(plays.insert(), rows)
    if not rated or outcome.preset is None:
        return changes(outcome.preset, [])
    preset = outcome.preset
    order = sorted(set(people.values()))
    fresh = Skill()
    await conn.execute(
        _NEW_RATING[dialect == "postgresql"],
        [
            {"guest": g, "preset": preset, "mu": fresh.mu, "sigma": fresh.sigma, "games": 0,
             "updated": ts}
            for g in order
        ],
    )  # fmt: skip
    held = await conn.execute(_HELD, {"of": preset, "who": order})
    now = {r.guest: Skill(r.mu, r.sigma, r.games) for r in held}
    before = [now[people[s]] for s in range(4)]
    after = rate(before, outcome.winner, outcome.pollona)
    # One statement for the four ratings and one for their changes (executemany), in seat order.
    await conn.execute(
        _RATED,
        [
            {"who": people[s], "of": preset, "new_mu": a.mu, "new_sigma": a.sigma,
             "new_games": a.games, "when": ts}
            for s, a in enumerate(after)
        ],
    )  # fmt: skip
    await conn.execute(
        rating_changes.insert(),
        [
            {"table_id": table_id, "guest": people[s], "preset": preset, "mu_before": b.mu,
             "sigma_before": b.sigma, "mu_after": a.mu, "sigma_after": a.sigma,
             "games": a.games, "ts": ts}
            for s, (b, a) in enumerate(zip(before, after, strict=True))
        ],
    )  # fmt: skip
    return changes(preset, [(s, before[s], after[s]) for s in range(4)])
