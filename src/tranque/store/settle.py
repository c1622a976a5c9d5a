"""What a finished table leaves in the club's rows: each person's play and, for a rated table,
the ratings (``club.ratings``), the people's and their registered pairs' (``store.pair_settle``).

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

from tranque.club.leavers import leavers_of, rate_with_leavers
from tranque.club.ratings import Skill, outcome_of
from tranque.rules.record import GUEST_PREFIX
from tranque.store import departures
from tranque.store.departures import who_left
from tranque.store.pair_settle import settle_pairs
from tranque.store.schema import accounts, events, plays, rating_changes, ratings
from tranque.store.standing import suspended_among

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


async def record_players(
    conn: Any, table_id: str, who: list[str | None] | None = None
) -> list[str | None]:
    """The record's ``players`` (docs/records.md): for each seat, the handle of the person who
    sat there last (his account's name, or ``~`` and his guest id: his profile's public
    address), None for a bot or an empty seat. ``who``: ``seat_guests`` already read in the
    same transaction (finishing a table reads the log's seats once, not once per step)."""
    if who is None:
        who = await seat_guests(conn, table_id)
    people = [g for g in who if g is not None]
    names: dict[str, str] = {}
    if people:
        q = sa.select(accounts.c.guest, accounts.c.name).where(accounts.c.guest.in_(people))
        names = {r.guest: r.name for r in await conn.execute(q)}
    return [None if g is None else names.get(g, GUEST_PREFIX + g) for g in who]


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
    conn: Any,
    dialect: str,
    table_id: str,
    info: dict[str, Any],
    ts: float,
    who: list[str | None] | None = None,
) -> dict[str, Any]:
    """Each person's play of a finished table and, when four people began it under a preset,
    the rating update (``club.ratings``). In the caller's transaction. Returns ``changes``:
    what the owner tells the table's sockets once the transaction is committed. ``who``: the
    table's ``seat_guests`` if the caller read them already in this transaction."""
    if who is None:
        who = await seat_guests(conn, table_id)
    outcome = outcome_of(info)
    if outcome is None:
        if info.get("abandoned"):  # who left it, for the completion rates (store.departures)
            left = who_left(info, who, set())
            await departures.record(conn, table_id, left, ts)
        return changes(None, [])
    result = info["result"]
    seats = info.get("seats", [])
    await departures.record(conn, table_id, who_left(info, who, leavers_of(info)), ts)
    people = {
        s: g
        for s, g in enumerate(who)
        if g is not None and s < len(seats) and seats[s].get("kind") == "person"
    }
    if not people:
        return changes(outcome.preset, [])
    rated = outcome.persons and outcome.preset is not None and len(set(people.values())) == 4
    # A person suspended from rated play (or closed) makes the game unrated for all four: the
    # queue refuses him, so he is only ever at a table his host made and the others joined.
    rated = rated and not await suspended_among(conn, people.values(), ts)
    # Who left (a bot took over a quarter of his decisions) loses alone; all left: not rated.
    leavers = leavers_of(info) if rated else set()
    rated = rated and len(leavers) < 4
    unmoved = {(s + 2) % 4 for s in leavers} - leavers  # a leaver's partner (club.leavers)
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
                "won": pair == outcome.winner and s not in leavers,
                "rated": rated and s not in unmoved,
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
    new = rate_with_leavers(before, outcome.winner, outcome.pollona, leavers)
    moved = [(s, before[s], a) for s, a in enumerate(new) if a is not None]
    # One statement for the ratings and one for their changes (executemany), in seat order.
    await conn.execute(
        _RATED,
        [
            {"who": people[s], "of": preset, "new_mu": a.mu, "new_sigma": a.sigma,
             "new_games": a.games, "when": ts}
            for s, _, a in moved
        ],
    )  # fmt: skip
    await conn.execute(
        rating_changes.insert(),
        [
            {"table_id": table_id, "guest": people[s], "preset": preset, "mu_before": b.mu,
             "sigma_before": b.sigma, "mu_after": a.mu, "sigma_after": a.sigma,
             "games": a.games, "ts": ts}
            for s, b, a in moved
        ],
    )  # fmt: skip
    # The registered pairs among the four, in the same transaction (store.pairs).
    seated = [people.get(s) for s in range(4)]
    await settle_pairs(conn, dialect, table_id, preset, seated, before, result, leavers, ts)
    return changes(preset, moved)
