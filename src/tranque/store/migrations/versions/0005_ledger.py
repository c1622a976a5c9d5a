"""The chips' double-entry ledger: ``ledger_txns``, ``ledger_legs``, ``chip_balances``.

Transactions and legs are append-only: a trigger refuses any UPDATE or DELETE of either (on
SQLite and on PostgreSQL), so a bug or a hand at the console cannot rewrite history. A
transaction's ``key`` is unique: a retry, a resent command, a recovery or a takeover that posts
the same movement again finds it there and posts nothing. Balances are cached per account and
can never go below zero (a check constraint), except the issuer's. Self-contained: it only adds.

Revision ID: 0005
Revises: 0004a
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004a"
branch_labels = None
depends_on = None

APPEND_ONLY = ("ledger_txns", "ledger_legs")


def upgrade() -> None:
    op.create_table(
        "ledger_txns",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("ts", sa.Float, nullable=False),
        sa.UniqueConstraint("key", name="uq_ledger_txns_key"),
    )
    op.create_index("ix_ledger_txns_table", "ledger_txns", ["table_id"])
    op.create_table(
        "ledger_legs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("txn", sa.Integer, sa.ForeignKey("ledger_txns.id"), nullable=False),
        sa.Column("account", sa.String(160), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_ledger_legs_account", "ledger_legs", ["account", "txn"])
    op.create_index("ix_ledger_legs_txn", "ledger_legs", ["txn"])
    op.create_table(
        "chip_balances",
        sa.Column("account", sa.String(160), primary_key=True),
        sa.Column("balance", sa.BigInteger, nullable=False),
        sa.CheckConstraint("balance >= 0 OR account = 'issuer'", name="ck_chip_balances_floor"),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN RAISE EXCEPTION 'the ledger is append-only: % on % refused',"
            " TG_OP, TG_TABLE_NAME; END $$"
        )
        for name in APPEND_ONLY:
            op.execute(
                f"CREATE TRIGGER {name}_append_only BEFORE UPDATE OR DELETE ON {name}"
                " FOR EACH ROW EXECUTE FUNCTION ledger_append_only()"
            )
    else:
        for name in APPEND_ONLY:
            for what in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {name}_no_{what.lower()} BEFORE {what} ON {name}"
                    " BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END"
                )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name in APPEND_ONLY:
            op.execute(f"DROP TRIGGER IF EXISTS {name}_append_only ON {name}")
        op.execute("DROP FUNCTION IF EXISTS ledger_append_only()")
    op.drop_table("chip_balances")
    op.drop_index("ix_ledger_legs_txn", "ledger_legs")
    op.drop_index("ix_ledger_legs_account", "ledger_legs")
    op.drop_table("ledger_legs")
    op.drop_index("ix_ledger_txns_table", "ledger_txns")
    op.drop_table("ledger_txns")
