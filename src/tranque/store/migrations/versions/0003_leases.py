"""Leases for many nodes: ``leases`` (who owns each table, under which epoch, until when) and
``events.epoch`` (the epoch of the owner that appended each entry).

One node at a time owns a table. Its lease names the node and an epoch that grows by one at
every takeover; every append checks, in its own transaction, that the table's lease still has
the appender's epoch, so a node that lost its table can never append to it again. A single node
(no ``--redis``) takes no leases and leaves ``events.epoch`` empty.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "leases",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("node", sa.String(64), nullable=False),
        sa.Column("epoch", sa.Integer, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_leases_node", "leases", ["node"])
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("epoch", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("epoch")
    op.drop_index("ix_leases_node", "leases")
    op.drop_table("leases")
