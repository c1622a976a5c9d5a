"""When a table ended: ``tables.ended``, the time it was over or expired.

A table's status is ``open`` (being played or waiting for players), ``over`` (its record is in
``games``) or ``expired`` (it never started within the server's ``--table-expiry``: it is not
rebuilt at start). The tables already over get the time their record was saved.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("ended", sa.Float, nullable=True))
    op.execute(
        "UPDATE tables SET ended = (SELECT games.finished FROM games"
        " WHERE games.table_id = tables.id) WHERE status = 'over'"
    )


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("ended")
