"""The ledger's port: what a chip table asks of it (``store.chips.SqlChips`` is the adapter).

A seat at a chip table is paid for before it is logged: the table's owner asks ``take`` for the
seat's escrow and logs the seat only once the ledger has it (``table.chips``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol


class ChipLedger(Protocol):
    async def take(self, table_id: str, holders: Sequence[str], amount: int) -> None:
        """Move ``amount`` from each holder (a guest id, or ``house@<seat>``) into its escrow at
        the table, all or none (``ledger.stakes.ChipError``: ``too_few_chips``...)."""
        ...

    async def create_table(
        self,
        table_id: str,
        host: str,
        info: dict[str, Any],
        holders: Sequence[str],
        amount: int,
        people: Sequence[str] = (),
    ) -> None:
        """The table's row (and its ``people``, as ``TableStore.create_table``) and its first
        seats' escrows, in one transaction (all or none)."""
        ...

    async def give_back(self, table_id: str, holders: Iterable[str]) -> None:
        """The escrows of these holders at the table back to them (once)."""
        ...

    async def reconcile(self, table_id: str, seated: Sequence[str | None]) -> int:
        """Give back every escrow of the table that none of ``seated`` holds; chips moved."""
        ...
