"""The chips' double-entry ledger on SQLAlchemy Core: the ledger room's transactions (its accounts
in ``ledger.stakes``, its legs in ``ledger.legs``) posted under the database's guarantees.

Every movement is ``post``: one row in ``ledger_txns`` under its idempotency key, its legs in
``ledger_legs`` (they sum to zero), and each account's cached balance moved by the same amounts,
all in the caller's transaction. The key is unique in the database: posting a key that is there
already posts nothing and says so, which is what makes a retry, a resent command, a recovery
after ``kill -9`` or a takeover by another node move each game's chips exactly once.

A debit is one conditional statement, ``UPDATE ... SET balance = balance - x WHERE account = ?
AND balance >= x``: of two transactions debiting the same person at the same moment (two
sit-downs at two tables, on two nodes), PostgreSQL makes the second wait for the first's row
lock and then re-evaluates the condition against the committed balance, so at most one
succeeds; SQLite has one writer at a time. A check constraint refuses a negative balance all
the same. Legs are posted in the order of their accounts, so two transactions that share
accounts lock them in the same order and never deadlock.

Where chips move:

- ``take`` (a seat is taken at a chip table: a person sitting, or the house staking a bot seat)
  moves the game's most cost from the holder into the seat's escrow, before the seat is logged;
- ``release`` gives an escrow back (a person who stood up before the start, a seat taken whose
  log entry never made it: see ``reconcile``);
- ``settle`` (in ``Store.finish_table``'s transaction, with the record) pays every escrow of a
  finished table out, once, under the key ``settle:<table>``;
- ``void`` (in ``Store.expire_table``'s) gives every escrow of a table that never started back.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from tranque.club.ratings import outcome_of
from tranque.ledger import stakes as chips
from tranque.ledger.legs import (
    Legs,
    back_to_owners,
    check_balanced,
    day_of,
    holder_account,
    merge,
    seat_holders,
    settlement,
)
from tranque.ledger.legs import stake_of as stake_of  # store.db reads it here
from tranque.ledger.stakes import HOUSE, ISSUER, ChipError, TooFewChips
from tranque.store.ledger_schema import chip_balances, ledger_legs, ledger_txns
from tranque.store.schema import tables

_DEBIT = sa.text(
    "UPDATE chip_balances SET balance = balance + :amount"
    " WHERE account = :account AND balance + :amount >= 0"
)


def _insert(dialect: str, table: sa.Table) -> Any:
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)


async def post(
    conn: Any, dialect: str, key: str, kind: str, table_id: str | None, legs: Legs, ts: float
) -> bool:
    """Append one transaction in the caller's transaction; False if its key was posted before
    (nothing is posted again). ``TooFewChips`` if a debit would take an account below zero:
    the caller's transaction must then roll back (it raises through the ``_begin`` block)."""
    merged = merge(legs)
    check_balanced(key, merged)
    ins = (
        _insert(dialect, ledger_txns)
        .values(key=key, kind=kind, table_id=table_id, ts=ts)
        .on_conflict_do_nothing(index_elements=["key"])
        .returning(ledger_txns.c.id)
    )
    row = (await conn.execute(ins)).first()
    if row is None:
        return False
    for account, amount in merged:
        if amount < 0 and account != ISSUER:
            done = await conn.execute(_DEBIT, {"amount": amount, "account": account})
            if done.rowcount != 1:
                raise TooFewChips(account, -amount, await balance(conn, account))
        else:
            up = _insert(dialect, chip_balances).values(account=account, balance=amount)
            await conn.execute(
                up.on_conflict_do_update(
                    index_elements=["account"],
                    set_={"balance": chip_balances.c.balance + up.excluded.balance},
                )
            )
    if merged:
        await conn.execute(
            ledger_legs.insert(), [{"txn": row.id, "account": a, "amount": x} for a, x in merged]
        )
    return True


async def balance(conn: Any, account: str, *, lock: bool = False) -> int:
    q = sa.select(chip_balances.c.balance).where(chip_balances.c.account == account)
    if lock:
        q = q.with_for_update()
    row = (await conn.execute(q)).first()
    return 0 if row is None else int(row.balance)


async def escrowed(conn: Any, guest: str) -> int:
    """What the person has at stake at tables now (every open escrow of his)."""
    b = chip_balances.c
    q = sa.select(sa.func.coalesce(sa.func.sum(b.balance), 0)).where(
        b.account.startswith("escrow:"),
        b.account.endswith(":" + guest, autoescape=True),
        b.balance > 0,
    )
    return int((await conn.execute(q)).scalar_one())


async def grant(conn: Any, dialect: str, guest: str, ts: float) -> int:
    """The person's opening grant (once ever) and the day's top-up to the floor (once a day,
    only below it); the balance after. Both are keyed, so asking again grants nothing.

    The floor is of the person's chips, escrow included: chips at stake are his until the
    table settles, and a top-up of a free balance emptied by a sit-down would be kept on top
    of the escrow given back when he stands up. The balance row is locked first, so a
    settlement or a sit-down of his in flight is either all seen or not at all."""
    account = chips.person(guest)
    opening = chips.OPENING_GRANT
    await post(
        conn, dialect, f"grant:open:{guest}", "grant", None,
        [(ISSUER, -opening), (account, opening)], ts,
    )  # fmt: skip
    now = await balance(conn, account, lock=True)
    if now >= chips.DAILY_FLOOR:  # the usual case, without a look at every escrow
        return now
    held = now + await escrowed(conn, guest)
    if held < chips.DAILY_FLOOR:
        top = chips.DAILY_FLOOR - held
        key = f"grant:daily:{guest}:{day_of(ts)}"
        if await post(conn, dialect, key, "grant", None, [(ISSUER, -top), (account, top)], ts):
            now += top
    return now


async def take(conn: Any, dialect: str, table_id: str, holder: str, amount: int, ts: float) -> str:
    """Move ``amount`` from the holder (a guest id, or ``house@<seat>``) into its escrow at the
    table; the transaction's key. ``TooFewChips`` if the holder has less; ``ChipError``
    ``table_closed`` if the table is no longer open (an expiry that came first: its escrows
    were given back, and this one must not outlive it)."""
    q = sa.select(tables.c.status).where(tables.c.id == table_id).with_for_update(read=True)
    row = (await conn.execute(q)).first()
    if row is None or row.status != "open":
        raise ChipError("table_closed", f"table {table_id!r} takes no seats any more")
    source = holder_account(holder)
    key = f"escrow:{table_id}:{holder}:{secrets.token_hex(6)}"
    if source == HOUSE:
        if await balance(conn, HOUSE, lock=True) < amount:
            float_ = chips.HOUSE_FLOAT + amount
            await post(
                conn, dialect, f"grant:house:{key}", "grant", None,
                [(ISSUER, -float_), (HOUSE, float_)], ts,
            )  # fmt: skip
    else:
        await grant(conn, dialect, holder, ts)
    await post(
        conn, dialect, key, "escrow", table_id,
        [(source, -amount), (chips.escrow(table_id, holder), amount)], ts,
    )  # fmt: skip
    return key


async def open_escrows(conn: Any, table_id: str, *, lock: bool = False) -> dict[str, int]:
    """The table's escrow accounts that hold chips, by account."""
    b = chip_balances.c
    prefix = chips.escrow_prefix(table_id)
    q = sa.select(b.account, b.balance).where(
        b.account.startswith(prefix, autoescape=True), b.balance > 0
    )
    if lock:
        q = q.order_by(b.account).with_for_update()
    return {r.account: int(r.balance) for r in await conn.execute(q)}


async def _last_in(conn: Any, account: str) -> int:
    q = sa.select(sa.func.max(ledger_legs.c.txn)).where(
        ledger_legs.c.account == account, ledger_legs.c.amount > 0
    )
    return int((await conn.execute(q)).scalar() or 0)


async def release(conn: Any, dialect: str, table_id: str, holders: Iterable[str], ts: float) -> int:
    """Give the escrows of these holders at the table back to them; the chips moved. Keyed by
    the last escrow into each account, so a second release of the same escrow moves nothing."""
    moved = 0
    held = await open_escrows(conn, table_id, lock=True)
    for holder in sorted(set(holders)):
        account = chips.escrow(table_id, holder)
        amount = held.get(account, 0)
        if amount <= 0:
            continue
        key = f"release:{account}:{await _last_in(conn, account)}"
        legs = [(account, -amount), (chips.escrow_owner(account), amount)]
        if await post(conn, dialect, key, "release", table_id, legs, ts):
            moved += amount
    return moved


async def reconcile(
    conn: Any, dialect: str, table_id: str, seated: Iterable[str | None], ts: float
) -> int:
    """Give back every escrow of the table that no seat in its log holds (a sit-down whose
    entry was never logged: the node died, or lost its lease, in between; or a person who
    stood up before his escrow was released). Run when a table is rebuilt."""
    keep = {h for h in seated if h is not None}
    held = await open_escrows(conn, table_id)
    prefix = chips.escrow_prefix(table_id)
    strays = [a[len(prefix) :] for a in held if a[len(prefix) :] not in keep]
    return await release(conn, dialect, table_id, strays, ts) if strays else 0


async def settle(
    conn: Any,
    dialect: str,
    table_id: str,
    info: Mapping[str, Any],
    who: Sequence[str | None],
    ts: float,
) -> bool:
    """Pay out a finished chip table, in ``Store.finish_table``'s transaction: each seat's
    escrow back to its holder, plus the stake for a winner, minus it for a loser (double in a
    pollona); any other escrow of the table back to its owner. Once: ``settle:<table>``. A
    table without a result, or whose seats do not all hold their escrow (which the ledger never
    lets happen), gives every escrow back instead, under the same key, as kind ``void``."""
    stake = stake_of(info)
    if not stake:
        return False
    held = await open_escrows(conn, table_id, lock=True)
    outcome = outcome_of(info)
    result = None if outcome is None else (outcome.winner, outcome.pollona)
    kind, legs = settlement(table_id, stake, held, seat_holders(info, who), result)
    return await post(conn, dialect, f"settle:{table_id}", kind, table_id, legs, ts)


async def void(conn: Any, dialect: str, table_id: str, ts: float) -> bool:
    """Give every escrow of a table that never started back (it expired), once."""
    held = await open_escrows(conn, table_id, lock=True)
    if not held:
        return False
    return await post(
        conn, dialect, f"void:{table_id}", "release", table_id, back_to_owners(held), ts
    )


async def history(conn: Any, guest: str, limit: int) -> list[dict[str, Any]]:
    """The person's newest ``limit`` movements, newest first, each with the balance after it."""
    account = chips.person(guest)
    t, leg = ledger_txns.c, ledger_legs.c
    q = (
        sa.select(t.id, t.kind, t.table_id, t.ts, leg.amount)
        .select_from(ledger_legs.join(ledger_txns, ledger_txns.c.id == leg.txn))
        .where(leg.account == account)
        .order_by(t.id.desc())
        .limit(limit)
    )
    rows = list(await conn.execute(q))
    after = await balance(conn, account)
    out = []
    for r in rows:
        out.append(
            {"kind": r.kind, "amount": int(r.amount), "balance": after, "table": r.table_id,
             "ts": r.ts}
        )  # fmt: skip
        after -= int(r.amount)
    return out
