"""A person's unfinished tables (``Store.open_tables_of``): those he hosts and those he was seated
at as they were made, every open one once, none once it is over or expired."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tranque.store import open_store


def test_a_person_counts_the_tables_he_hosts_and_those_made_with_him(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'p.db'}")
        await store.create_table("q1", "quick-match", {}, ["ana", "bea", "ana"])  # once each
        await store.create_table("h1", "ana", {}, ["ana"])  # hosts it and sits: one table
        await store.create_table("h2", "cai", {})
        assert [await store.open_tables_of(g) for g in ("ana", "bea", "cai", "x")] == [2, 1, 1, 0]
        await store.expire_table("q1")
        await store.finish_table("h2", {"format": "tranque-game/1", "hands": []})
        assert [await store.open_tables_of(g) for g in ("ana", "bea", "cai")] == [1, 0, 0]
        await store.close()

    asyncio.run(go())
