"""The tables of the database, as SQLAlchemy Core metadata (the migrations create them)."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

guests = sa.Table(
    "guests",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("nickname", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
)

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("host", sa.String(64), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # "open" | "over" | "expired"
    # JSON: the settings at creation; once over, the table's final info (seats, nicknames...)
    sa.Column("info", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("ended", sa.Float, nullable=True),  # when it was over or expired (0002)
    sa.Index("ix_tables_status", "status"),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.String(64), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("type", sa.String(32), nullable=False),
    sa.Column("payload", sa.Text, nullable=False),  # JSON
    sa.Column("ts", sa.Float, nullable=False),
    sa.Column("epoch", sa.Integer, nullable=True),  # the appending owner's lease epoch (0003)
    sa.UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
)

games = sa.Table(
    "games",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("record", sa.Text, nullable=False),  # JSON: tranque-game/1 with fairness
    sa.Column("finished", sa.Float, nullable=False),
)

meta = sa.Table(
    "meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

# Who owns each table on a cluster (0003): the node, the epoch (one more at every takeover; the
# fencing token every append checks) and until when (seconds since the epoch, database time).
leases = sa.Table(
    "leases",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("node", sa.String(64), nullable=False),
    sa.Column("epoch", sa.Integer, nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
    sa.Index("ix_leases_node", "node"),
)
