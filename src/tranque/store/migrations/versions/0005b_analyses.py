"""Every finished game explained (issue 14): the ``analyses`` of the people's plays, and an
index on ``games.finished`` for the history lists (newest first).

One row per table and part: ``fair`` (the people's seats of the whole game, analysed once at
its end) or ``hindsight:G:N`` (hand N of game G with every hand face up, on request). A row is
``pending`` while a node works on it (``node``, and ``claimed`` renewed after every hand), then
``done`` with the ``tranque-analysis/1`` JSON, or ``failed`` with a reason. A pending row whose
claim is old is taken again (the node that held it crashed). Self-contained: it only adds.

Revision ID: 0005b
Revises: 0004a
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005b"
down_revision = "0004a"
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


def downgrade() -> None:
    op.drop_index("ix_games_finished", "games")
    op.drop_index("ix_analyses_status", "analyses")
    op.drop_table("analyses")
