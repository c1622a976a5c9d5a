"""The ledger's audit (``tranque ledger check``): every invariant the chips keep, checked
against the rows, with the first violation named.

1. every transaction has legs and they sum to zero;
2. every account's cached balance equals the sum of its legs (and every account with legs has
   a balance);
3. no balance is below zero but the issuer's;
4. everything issued (minus the issuer's balance) equals every other balance: the people's, the
   house's and the escrows';
5. every finished chip table was settled exactly once, and nothing else was;
6. every escrow holding chips belongs to a table still being played (status ``open``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
import sqlalchemy as sa

from tranque.store.db import Store
from tranque.store.ledger_schema import chip_balances, ledger_legs, ledger_txns
from tranque.store.schema import tables
from tranque.table.stakes import ISSUER

_decode = msgspec.json.decode


@dataclass
class Audit:
    violations: list[str] = field(default_factory=list)
    figures: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.violations

    def report(self) -> str:
        lines = [f"{k}: {v}" for k, v in self.figures.items()]
        if self.ok:
            lines.append("ledger ok: every invariant holds")
        else:
            lines.append(f"VIOLATION: {self.violations[0]}")
            lines += [f"also: {v}" for v in self.violations[1:10]]
        return "\n".join(lines)


async def audit(store: Store) -> Audit:
    out = Audit()
    bad = out.violations
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
        txns = list(await conn.execute(q))
        for r in txns:
            if r.n is None or r.n < 2:
                bad.append(f"transaction {r.id} ({r.key}) has {r.n or 0} leg(s)")
            elif int(r.s) != 0:
                bad.append(f"transaction {r.id} ({r.key}) sums to {int(r.s)}, not 0")
        by_legs = {
            r.account: int(r.s)
            for r in await conn.execute(
                sa.select(leg.account, sa.func.sum(leg.amount).label("s")).group_by(leg.account)
            )
        }
        cached = {
            r.account: int(r.balance) for r in await conn.execute(sa.select(b.account, b.balance))
        }
        for account in sorted(set(by_legs) | set(cached)):
            legs, have = by_legs.get(account, 0), cached.get(account)
            if have is None or have != legs:
                bad.append(f"account {account}: balance {have} but its legs sum to {legs}")
        for account, have in sorted(cached.items()):
            if have < 0 and account != ISSUER:
                bad.append(f"account {account} is below zero: {have}")
        issued = -cached.get(ISSUER, 0)
        held = sum(v for a, v in cached.items() if a != ISSUER)
        if issued != held:
            bad.append(f"{issued} chips issued, but the balances and escrows hold {held}")
        grants = int(
            (
                await conn.execute(
                    sa.select(sa.func.coalesce(sa.func.sum(leg.amount), 0))
                    .select_from(ledger_legs.join(ledger_txns, t.id == leg.txn))
                    .where(t.kind == "grant", leg.account != ISSUER)
                )
            ).scalar_one()
        )
        if grants != issued:
            bad.append(f"the grants total {grants}, but the issuer's balance says {issued}")
        settled: dict[str, int] = {}
        for r in await conn.execute(
            sa.select(t.table_id, sa.func.count().label("n"))
            .where(t.kind.in_(("settle", "void")), t.key.startswith("settle:"))
            .group_by(t.table_id)
        ):
            settled[r.table_id] = int(r.n)
        status: dict[str, str] = {}
        games = 0
        for r in await conn.execute(sa.select(tables.c.id, tables.c.status, tables.c.info)):
            status[r.id] = r.status
            info: dict[str, Any] = _decode(r.info)
            stake = (info.get("settings") or {}).get("stake") or 0
            if r.status == "over" and stake:
                games += 1
                n = settled.get(r.id, 0)
                if n != 1:
                    bad.append(f"finished chip table {r.id} was settled {n} times, not once")
        for tid, n in sorted(settled.items()):
            if status.get(tid) != "over":
                bad.append(f"table {tid} was settled ({n}) but is {status.get(tid, 'unknown')}")
        open_escrows = 0
        for account, have in sorted(cached.items()):
            if account.startswith("escrow:") and have > 0:
                open_escrows += 1
                tid = account.split(":", 2)[1]
                if status.get(tid) != "open":
                    bad.append(
                        f"escrow {account} holds {have} for table {tid}, which is "
                        f"{status.get(tid, 'unknown')}, not in progress"
                    )
        kinds = {
            r.kind: int(r.n)
            for r in await conn.execute(
                sa.select(t.kind, sa.func.count().label("n")).group_by(t.kind)
            )
        }
    out.figures = {
        "transactions": len(txns),
        **{f"  {k}": v for k, v in sorted(kinds.items())},
        "accounts": len(cached),
        "issued": issued,
        "chip games finished": games,
        "chip games settled": sum(1 for tid in settled if status.get(tid) == "over"),
        "open escrows": open_escrows,
    }
    return out
