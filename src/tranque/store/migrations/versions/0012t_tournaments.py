"""Tournaments: a Swiss of pairs run by the service (docs/tournaments.md, "The service").

One row per tournament, one per entrant (a formed pair, its rating at registration), one per
round (its byes; its key makes a round start once, whatever restarts), one per table of a round
(which table it opened, its result once written). The ``tranque-tournament/1`` file is rebuilt
from these rows.

Revision ID: 0012t
Revises: 0010p
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0012t"
down_revision = "0011k"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("rules", sa.String(16), nullable=False),
        sa.Column("target", sa.Integer, nullable=False),
        sa.Column("minutes", sa.Float, nullable=True),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("no_show", sa.Float, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("creator", sa.String(64), nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("starts", sa.Float, nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("entrants_made", sa.Integer, nullable=False),
    )
    op.create_index("ix_tournaments_state", "tournaments", ["state", "created"])
    op.create_table(
        "tournament_entrants",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("entrant", sa.String(16), primary_key=True),
        sa.Column("pair_id", sa.Integer, nullable=False),
        sa.Column("a", sa.String(64), nullable=False),
        sa.Column("b", sa.String(64), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
        sa.Column("registered", sa.Float, nullable=False),
        sa.UniqueConstraint("tournament_id", "pair_id", name="uq_tournament_entrants_pair"),
    )
    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("byes", sa.Text, nullable=False),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("ended", sa.Float, nullable=True),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("a", sa.String(16), nullable=False),
        sa.Column("b", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("points_a", sa.Integer, nullable=True),
        sa.Column("points_b", sa.Integer, nullable=True),
        sa.Column("winner", sa.String(1), nullable=True),
        sa.Column("forfeit", sa.Boolean, nullable=False),
        sa.Column("done", sa.Boolean, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tournament_tables")
    op.drop_table("tournament_rounds")
    op.drop_table("tournament_entrants")
    op.drop_index("ix_tournaments_state", "tournaments")
    op.drop_table("tournaments")
