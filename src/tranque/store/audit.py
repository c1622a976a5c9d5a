"""The ledger's audit (``tranque ledger check``), its reading side: the books (``ledger.audit.
Books``) read from the rows in one connection; the invariants are checked by ``ledger.audit``.
"""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa

from tranque.ledger.audit import Audit, Books, check
from tranque.ledger.stakes import ISSUER
from tranque.store.db import Store
from tranque.store.ledger_schema import chip_balances, ledger_legs, ledger_txns
from tranque.store.schema import tables

_decode = msgspec.json.decode

__all__ = ["Audit", "audit", "read_books"]


async def read_books(store: Store) -> Books:
    """What the audit checks, as the rows hold it now."""
    t, leg, b = ledger_txns.c, ledger_legs.c, chip_balances.c
    async with store._connect() as conn:
        sums = (
            sa.select(leg.txn, sa.func.sum(leg.amount).label("s"), sa.func.count().label("n"))
            .group_by(leg.txn)
            .subquery()
        )
        q = (
            sa.select(t.id, t.key, sums.c.s, sums.c.n)
            .select_from(ledger_txns.outerjoin(sums, sums.c.txn == t.id))
            .order_by(t.id)
        )
        txns = [(r.id, r.key, r.s, r.n) for r in await conn.execute(q)]
        by_legs = {
            r.account: int(r.s)
            for r in await conn.execute(
                sa.select(leg.account, sa.func.sum(leg.amount).label("s")).group_by(leg.account)
            )
        }
        cached = {
            r.account: int(r.balance) for r in await conn.execute(sa.select(b.account, b.balance))
        }
        grants = int(
            (
                await conn.execute(
                    sa.select(sa.func.coalesce(sa.func.sum(leg.amount), 0))
                    .select_from(ledger_legs.join(ledger_txns, t.id == leg.txn))
                    .where(t.kind == "grant", leg.account != ISSUER)
                )
            ).scalar_one()
        )
        settled: dict[str, int] = {}
        for r in await conn.execute(
            sa.select(t.table_id, sa.func.count().label("n"))
            .where(t.kind.in_(("settle", "void")), t.key.startswith("settle:"))
            .group_by(t.table_id)
        ):
            settled[r.table_id] = int(r.n)
        rows: list[tuple[str, str, Any]] = []
        for r in await conn.execute(sa.select(tables.c.id, tables.c.status, tables.c.info)):
            info: dict[str, Any] = _decode(r.info)
            rows.append((r.id, r.status, (info.get("settings") or {}).get("stake") or 0))
        kinds = {
            r.kind: int(r.n)
            for r in await conn.execute(
                sa.select(t.kind, sa.func.count().label("n")).group_by(t.kind)
            )
        }
    return Books(txns, by_legs, cached, grants, settled, rows, kinds)


async def audit(store: Store) -> Audit:
    """Every invariant of the ledger, checked against the rows (``ledger.audit``)."""
    return check(await read_books(store))
