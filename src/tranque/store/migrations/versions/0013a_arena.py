"""The arena run by the service (docs/tournaments.md, "The service", "An arena").

One row per person who joined an arena (his entrant id in join order, withdrawn or not, since
when he is free); one per arena game (its four seats, the table it opened, its result once
written); one per arena that started (when, and when its clock ends: inserted once, with the
state's move to running, so an arena starts once whatever restarts).

Revision ID: 0013a
Revises: 0012t
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0013a"
down_revision = "0013s"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "arena_entrants",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("entrant", sa.String(16), primary_key=True),
        sa.Column("guest", sa.String(64), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
        sa.Column("joined", sa.Float, nullable=False),
        sa.Column("free_since", sa.Float, nullable=False),
        sa.UniqueConstraint("tournament_id", "guest", name="uq_arena_entrants_guest"),
    )
    op.create_table(
        "arena_games",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("seat0", sa.String(16), nullable=True),
        sa.Column("seat1", sa.String(16), nullable=True),
        sa.Column("seat2", sa.String(16), nullable=True),
        sa.Column("seat3", sa.String(16), nullable=True),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("opened", sa.Float, nullable=False),
        sa.Column("ended", sa.Float, nullable=True),
        sa.Column("points_a", sa.Integer, nullable=True),
        sa.Column("points_b", sa.Integer, nullable=True),
        sa.Column("winner", sa.String(1), nullable=True),
        sa.Column("pollona", sa.Boolean, nullable=False),
        sa.Column("done", sa.Boolean, nullable=False),
    )
    op.create_table(
        "arena_clocks",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("ends", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("arena_clocks")
    op.drop_table("arena_games")
    op.drop_table("arena_entrants")
