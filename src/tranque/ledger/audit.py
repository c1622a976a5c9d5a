"""The ledger's audit (``tranque ledger check``): every invariant the chips keep, checked
against what the books hold, with the first violation named.

1. every transaction has legs and they sum to zero;
2. every account's cached balance equals the sum of its legs (and every account with legs has
   a balance);
3. no balance is below zero but the issuer's;
4. everything issued (minus the issuer's balance) equals every other balance: the people's, the
   house's and the escrows';
5. every finished chip table was settled exactly once, and nothing else was;
6. every escrow holding chips belongs to a table still being played (status ``open``).

The books are read from the database by ``store.audit``; the checks are here, on plain values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tranque.ledger.stakes import ISSUER


@dataclass
class Books:
    """What the audit reads of the ledger's rows, and of the tables' (their status and stake)."""

    txns: list[tuple[int, str, int | None, int | None]]  # id, key, sum of its legs, their count
    by_legs: dict[str, int]  # each account's legs, summed
    cached: dict[str, int]  # each account's cached balance
    grants: int  # every grant's legs but the issuer's, summed
    settled: dict[str, int]  # each table's settlements (kind settle or void, key settle:...)
    tables: list[tuple[str, str, int]]  # each table's id, status and stake (0: no chips)
    kinds: dict[str, int]  # transactions of each kind


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


def check(books: Books) -> Audit:
    """Every invariant, in the order above; the violations in the order they are found."""
    out = Audit()
    bad = out.violations
    for tid_, key, s, n in books.txns:
        if n is None or n < 2:
            bad.append(f"transaction {tid_} ({key}) has {n or 0} leg(s)")
        elif int(s or 0) != 0:
            bad.append(f"transaction {tid_} ({key}) sums to {int(s or 0)}, not 0")
    by_legs, cached = books.by_legs, books.cached
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
    if books.grants != issued:
        bad.append(f"the grants total {books.grants}, but the issuer's balance says {issued}")
    settled = books.settled
    status: dict[str, str] = {}
    games = 0
    for tid, table_status, stake in books.tables:
        status[tid] = table_status
        if table_status == "over" and stake:
            games += 1
            n = settled.get(tid, 0)
            if n != 1:
                bad.append(f"finished chip table {tid} was settled {n} times, not once")
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
    out.figures = {
        "transactions": len(books.txns),
        **{f"  {k}": v for k, v in sorted(books.kinds.items())},
        "accounts": len(cached),
        "issued": issued,
        "chip games finished": games,
        "chip games settled": sum(1 for tid in settled if status.get(tid) == "over"),
        "open escrows": open_escrows,
    }
    return out
