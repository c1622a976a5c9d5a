"""``SqlChips``: the ledger (``store.ledger``) behind the table's ``ChipLedger`` port and the
HTTP routes of balances and their history. Each call is one transaction of the store."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from tranque.ledger import stakes as chips
from tranque.store import ledger
from tranque.store.db import Store, insert_table


class SqlChips:
    def __init__(self, store: Store) -> None:
        self.store = store

    @property
    def dialect(self) -> str:
        return self.store.dialect

    async def take(self, table_id: str, holders: Sequence[str], amount: int) -> None:
        now = time.time()
        async with self.store._begin() as conn:
            for holder in holders:
                await ledger.take(conn, self.dialect, table_id, holder, amount, now)

    async def create_table(
        self,
        table_id: str,
        host: str,
        info: dict[str, Any],
        holders: Sequence[str],
        amount: int,
        people: Sequence[str] = (),
    ) -> None:
        now = time.time()
        async with self.store._begin() as conn:
            await insert_table(conn, table_id, host, info, people, now)
            for holder in holders:
                await ledger.take(conn, self.dialect, table_id, holder, amount, now)

    async def give_back(self, table_id: str, holders: Iterable[str]) -> None:
        async with self.store._begin() as conn:
            await ledger.release(conn, self.dialect, table_id, holders, time.time())

    async def reconcile(self, table_id: str, seated: Sequence[str | None]) -> int:
        async with self.store._begin() as conn:
            return await ledger.reconcile(conn, self.dialect, table_id, seated, time.time())

    async def balance(self, guest: str) -> int:
        """The person's balance, after the opening grant and the day's top-up if due."""
        async with self.store._begin() as conn:
            return await ledger.grant(conn, self.dialect, guest, time.time())

    async def in_escrow(self, guest: str) -> int:
        """What the person has at stake at tables now (every open escrow of his)."""
        async with self.store._connect() as conn:
            return await ledger.escrowed(conn, guest)

    async def history(self, guest: str, limit: int) -> list[dict[str, Any]]:
        async with self.store._begin() as conn:
            await ledger.grant(conn, self.dialect, guest, time.time())
            return await ledger.history(conn, guest, limit)


__all__ = ["SqlChips", "chips"]
