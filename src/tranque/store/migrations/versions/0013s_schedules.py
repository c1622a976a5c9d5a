"""Scheduled repeating tournaments: the schedules, and on each tournament the schedule that
made it and its occurrence's key (docs/tournaments.md, "Scheduled tournaments").

The occurrence's key (the schedule and the start's second) is unique: whichever runner, node or
restart creates an occurrence, only the first insert stands. A tournament made by hand has
neither (NULLs never clash under a unique index, on SQLite or PostgreSQL).

Revision ID: 0013s
Revises: 0012t
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0013s"
down_revision = "0012t"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament_schedules",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("rules", sa.String(16), nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("minutes", sa.Float, nullable=True),
        sa.Column("no_show", sa.Float, nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("weekdays", sa.String(16), nullable=False),
        sa.Column("at", sa.String(5), nullable=False),
        sa.Column("zone", sa.String(64), nullable=False),
        sa.Column("opens_hours", sa.Float, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("schedule", sa.String(32), nullable=True))
        batch.add_column(sa.Column("occurrence", sa.String(64), nullable=True))
    op.create_index("ux_tournaments_occurrence", "tournaments", ["occurrence"], unique=True)


def downgrade() -> None:
    op.drop_index("ux_tournaments_occurrence", "tournaments")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("occurrence")
        batch.drop_column("schedule")
    op.drop_table("tournament_schedules")
