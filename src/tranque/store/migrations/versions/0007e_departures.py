"""The tables people began and did not finish: ``departures``, one row per table and person who
left it (a rated game aborted by his leave at its start, a table everybody left, a leaver who let
a bot take over a quarter of his decisions), indexed by the person. The profiles' completion
rate (finished ÷ begun) counts them beside ``plays``. Tables ended before this revision have no
rows: they count as finished when they have a play row, and not at all otherwise.

Revision ID: 0007e
Revises: 0006c
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0007e"
down_revision = "0006c"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "departures",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("ts", sa.Float, nullable=False),
    )
    op.create_index("ix_departures_guest", "departures", ["guest"])


def downgrade() -> None:
    op.drop_index("ix_departures_guest", "departures")
    op.drop_table("departures")
