"""What a finished rated game leaves for the registered pairs in it (``club.pairs``).

``settle_pairs`` runs in ``Store.finish_table``'s transaction, after the people's own ratings
(``store.settle``), so a pair's update is saved with the record or not at all. Its game row is
inserted first, keyed by pair and table: a second settling of the same table inserts nothing and
so moves no rating (the update is once per game, whoever calls it twice). Pair rating rows are
locked in the order of their keys, as the people's are.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from tranque.club.pairs import Pair, composite, game_for, ordered, rate_pair, sides_of
from tranque.club.ratings import Skill
from tranque.store.schema import pair_games, pair_ratings, pairs

_NEW_GAME = tuple(
    insert(pair_games).on_conflict_do_nothing() for insert in (sqlite.insert, postgresql.insert)
)
_NEW_RATING = tuple(
    insert(pair_ratings).on_conflict_do_nothing() for insert in (sqlite.insert, postgresql.insert)
)


def _pair(r: Any) -> Pair:
    return Pair(r.id, r.name, r.a, r.b, r.proposer, r.created, r.formed)


async def settle_pairs(
    conn: Any,
    dialect: str,
    table_id: str,
    preset: str,
    who: list[str | None],
    before: list[Skill],
    result: dict[str, Any],
    leavers: set[int],
    ts: float,
) -> int:
    """The pairs' part of a finished rated game (``preset``; ``who``: each seat's guest,
    ``before``: each seat's own rating before the game): for each side where a formed pair sat
    as partners, its game row and, if that row is new, its rating moved (``club.pairs``).
    How many pairs were updated."""
    people = [g for g in who if g is not None]
    if len(people) != 4 or leavers:
        return 0
    couples = [ordered(str(who[s]), str(who[s + 2])) for s in (0, 1)]
    q = sa.select(pairs).where(
        sa.or_(*(sa.and_(pairs.c.a == x, pairs.c.b == y) for x, y in couples)),
        pairs.c.formed.is_not(None),
    )
    found = {(r.a, r.b): _pair(r) for r in await conn.execute(q)}
    if not found:
        return 0
    sides = sides_of(who, {k: p.id for k, p in found.items()})
    by_id = {p.id: p for p in found.values()}
    games = {}
    for side, pid in enumerate(sides):
        if pid is None:
            continue
        pair = by_id[pid]
        game = game_for(pair.partners, pair.formed, who, result, ts, True, leavers)
        if game is None:
            continue
        row = {
            "pair_id": pid, "table_id": table_id, "preset": preset, "won": game.won,
            "pollonas_given": game.pollonas_given, "pollonas_suffered": game.pollonas_suffered,
            "points_for": game.points_for, "points_against": game.points_against,
            "mu_before": 0.0, "mu_after": 0.0, "finished": ts,
        }  # fmt: skip
        inserted = await conn.execute(_NEW_GAME[dialect == "postgresql"], row)
        if inserted.rowcount == 1:  # not settled before: this game moves the pair once
            games[side] = pid
    if not games:
        return 0
    ids = sorted(games.values())
    fresh = Skill()
    await conn.execute(
        _NEW_RATING[dialect == "postgresql"],
        [{"pair_id": i, "preset": preset, "mu": fresh.mu, "sigma": fresh.sigma, "games": 0,
          "updated": ts} for i in ids],
    )  # fmt: skip
    c = pair_ratings.c
    held = await conn.execute(
        sa.select(c.pair_id, c.mu, c.sigma, c.games)
        .where(c.preset == preset, c.pair_id.in_(ids))
        .order_by(c.pair_id)
        .with_for_update()
    )
    now = {r.pair_id: Skill(r.mu, r.sigma, r.games) for r in held}
    sided = [
        now[pid] if pid is not None and side in games else composite(before[side], before[side + 2])
        for side, pid in enumerate(sides)
    ]
    winner = "AB".index(str(result["winner"]))
    after = rate_pair(sided[0], sided[1], winner, bool(result.get("pollona")))
    for side, pid in games.items():
        new = after[side]
        await conn.execute(
            pair_ratings.update()
            .where(c.pair_id == pid, c.preset == preset)
            .values(mu=new.mu, sigma=new.sigma, games=new.games, updated=ts)
        )
        await conn.execute(
            pair_games.update()
            .where(pair_games.c.pair_id == pid, pair_games.c.table_id == table_id)
            .values(mu_before=sided[side].mu, mu_after=new.mu)
        )
    return len(games)
