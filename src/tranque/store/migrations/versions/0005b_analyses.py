"""Every finished game explained (issue 14): the ``analyses`` of the people's plays, and an
index on ``games.finished`` for the history lists (newest first).

One row per table and part: ``fair`` (the people's seats of the whole game, analysed once at
its end) or ``hindsight:G:N`` (hand N of game G with every hand face up, on request). A row is
``pending`` while a node works on it (``node``, and ``claimed`` renewed after every hand), then
``done`` with the ``tranque-analysis/1`` JSON, or ``failed`` with a reason. A pending row whose
claim is old is taken again (the node that held it crashed).

It also gives the tables finished before ``0004a`` their ``plays`` rows (issue 12: old games were
missing from profiles): who sat where comes from each table's log (``sat`` and ``stood``), the
result from replaying its record. Those rows are never rated (ratings are updated in order, at
the end of each game; these games are long past). A record that does not replay is left as it
is: the migration never fails on old data.

Revision ID: 0005b
Revises: 0005
Create Date: 2026-12-01
"""

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

PRESETS = ("havana", "miami", "oriente", "barrio")

revision = "0005b"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("part", sa.String(32), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("seats", sa.String(16), nullable=False),
        sa.Column("node", sa.String(64), nullable=False),
        sa.Column("claimed", sa.Float, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_index("ix_analyses_status", "analyses", ["status", "claimed"])
    op.create_index("ix_games_finished", "games", ["finished"])
    backfill_plays(op.get_bind())


def _result(record: dict[str, Any]) -> tuple[int, list[int], list[int]] | None:
    """(winning pair, pollonas by pair, viajeras by pair) of a finished record, or None."""
    from tranque.rules.record import replay_game, replay_match

    if record.get("format") == "tranque-match/1":
        match, _ = replay_match(record)
        games, winner = list(match.games), match.winner
    else:
        game = replay_game(record)
        games, winner = [game], game.winner
    if winner is None:
        return None
    pollonas, viajeras = [0, 0], [0, 0]
    for game in games:
        if game.pollona and game.winner is not None:
            pollonas[game.winner] += 1
        for played in game.played:
            outcome = played.hand.outcome
            if outcome is not None and outcome.viajera and outcome.winning_pair is not None:
                viajeras[outcome.winning_pair] += 1
    return winner, pollonas, viajeras


def backfill_plays(conn: Any) -> None:
    old = conn.execute(
        sa.text(
            "SELECT g.table_id, g.record, g.finished FROM games g WHERE NOT EXISTS"
            " (SELECT 1 FROM plays p WHERE p.table_id = g.table_id)"
        )
    ).fetchall()
    for table_id, text, finished in old:
        try:
            record = json.loads(text)
            result = _result(record)
        except Exception:  # a record that does not replay: nothing to count
            continue
        if result is None:
            continue
        winner, pollonas, viajeras = result
        seats: list[tuple[str, str] | None] = [None] * 4
        log = conn.execute(
            sa.text(
                "SELECT type, payload FROM events WHERE table_id = :t"
                " AND type IN ('sat', 'stood') ORDER BY seq"
            ),
            {"t": table_id},
        )
        for kind, payload in log:
            data = json.loads(payload)
            seat = data.get("seat")
            if isinstance(seat, int) and 0 <= seat < 4:
                guest = data.get("guest")
                seats[seat] = (
                    (guest, str(data.get("nickname") or "guest")[:64])
                    if (kind == "sat" and isinstance(guest, str))
                    else None
                )
        rules = record.get("rules")
        preset = rules if isinstance(rules, str) and rules in PRESETS else None
        people: dict[str, int] = {}
        for s, who in enumerate(seats):
            if who is not None and who[0] not in people:
                people[who[0]] = s
        for guest, s in people.items():
            pair = s % 2
            conn.execute(
                sa.text(
                    "INSERT INTO plays (table_id, guest, seat, nickname, preset, won, rated,"
                    " pollonas_given, pollonas_suffered, viajeras, finished) VALUES"
                    " (:t, :g, :s, :n, :p, :w, :r, :pg, :ps, :v, :f)"
                ),
                {"t": table_id, "g": guest, "s": s, "n": seats[s][1], "p": preset,  # type: ignore[index]
                 "w": pair == winner, "r": False, "pg": pollonas[pair],
                 "ps": pollonas[pair ^ 1], "v": viajeras[pair], "f": finished},
            )  # fmt: skip


def downgrade() -> None:
    op.drop_index("ix_games_finished", "games")
    op.drop_index("ix_analyses_status", "analyses")
    op.drop_table("analyses")
