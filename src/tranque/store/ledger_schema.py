"""The ledger's tables (migration 0005), on the store's metadata.

``ledger_txns`` and ``ledger_legs`` are append-only (triggers refuse an UPDATE or a DELETE on
both dialects); ``chip_balances`` is the cached balance of each account, changed only in the
transaction that appends the legs, and checked by ``tranque ledger check`` against their sum.
The check constraint keeps every balance but the issuer's at zero or above: the database, not
the application's memory, refuses an overdraft.
"""

from __future__ import annotations

import sqlalchemy as sa

from tranque.store.schema import metadata

ledger_txns = sa.Table(
    "ledger_txns",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    # The idempotency key: table, game and kind (``settle:<table>``, ``escrow:<table>:...``).
    sa.Column("key", sa.String(200), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),  # grant | escrow | release | settle
    sa.Column("table_id", sa.String(64), nullable=True),
    sa.Column("ts", sa.Float, nullable=False),
    sa.UniqueConstraint("key", name="uq_ledger_txns_key"),
    sa.Index("ix_ledger_txns_table", "table_id"),
)

ledger_legs = sa.Table(
    "ledger_legs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("txn", sa.Integer, sa.ForeignKey("ledger_txns.id"), nullable=False),
    sa.Column("account", sa.String(160), nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Index("ix_ledger_legs_account", "account", "txn"),
    sa.Index("ix_ledger_legs_txn", "txn"),
)

chip_balances = sa.Table(
    "chip_balances",
    metadata,
    sa.Column("account", sa.String(160), primary_key=True),
    sa.Column("balance", sa.BigInteger, nullable=False),
    sa.CheckConstraint("balance >= 0 OR account = 'issuer'", name="ck_chip_balances_floor"),
)
