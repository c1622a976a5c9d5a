"""Look-alike names are one name in the database (issue 28, finding 11): migration 0006a gives
every account its skeleton and keeps it unique, on SQLite and on PostgreSQL; the accounts that
already shared one keep their names and are still found by them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.exc import IntegrityError

from tranque.club.accounts import NameTaken
from tranque.club.names import name_key
from tranque.club.skeleton import name_skeleton
from tranque.store import open_store
from tranque.store.club import SqlAccounts
from tranque.store.db import MIGRATIONS, Store

# Made before 0006a, oldest first: two look like Marta, two like Zoé_Two.
OLD = [("g1", "Marta"), ("g2", "M\u0430rta"), ("g3", "Zoé_Two"), ("g4", "Pepe"), ("g5", "zoe-two")]


def _upgrade(connection: sa.Connection, revision: str) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, revision)


async def _old_accounts(store: Store) -> None:
    def old(conn: sa.Connection) -> None:
        _upgrade(conn, "0005b")
        for i, (guest, name) in enumerate(OLD):
            conn.execute(
                sa.text(
                    "INSERT INTO accounts (guest, name, name_key, password_hash, created)"
                    " VALUES (:g, :n, :k, 'x', :c)"
                ),
                {"g": guest, "n": name, "k": name_key(name), "c": float(i)},
            )

    if store._sync is not None:
        with store._sync.begin() as conn:
            old(conn)
    else:
        async with store._async.begin() as conn:
            await conn.run_sync(old)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: Any, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'old.db'}"
    return str(request.getfixturevalue("pg_url"))


def test_0006a_gives_every_account_a_unique_skeleton(url: str) -> None:
    async def go() -> None:
        store = await open_store(url, migrate=False)
        try:
            await _old_accounts(store)
            await store.migrate()
            assert await store.revision() == "0013a"
            async with store._connect() as conn:
                got = await conn.execute(sa.text("SELECT guest, name_skeleton FROM accounts"))
                rows = {guest: skeleton for guest, skeleton in got}
            assert rows == {
                "g1": name_skeleton("Marta"),
                "g2": name_skeleton("Marta") + "#g2",  # the later look-alike, told apart
                "g3": name_skeleton("Zoe_Two"),
                "g4": name_skeleton("pepe"),
                "g5": name_skeleton("Zoe_Two") + "#g5",
            }
            accounts = SqlAccounts(store)
            # Each is found by its own name; a look-alike of a name finds the oldest.
            for guest, name in OLD:
                found = await accounts.account_by_name(name_key(name), name_skeleton(name))
                assert found is not None and found.guest == guest, name
            found = await accounts.account_by_name(name_key("MARTA\u0301"), name_skeleton("mártá"))
            assert found is not None and found.guest == "g1"
            # A new account of a taken skeleton is refused by the database itself.
            with pytest.raises(NameTaken):
                await accounts.create_account(
                    "g6", "PEP\u0415", name_key("PEP\u0415"), name_skeleton("pepe"), "x", "s6", 9.0
                )
            async with store._begin() as conn:
                await conn.execute(
                    sa.text(
                        "INSERT INTO accounts (guest, name, name_key, name_skeleton, password_hash,"
                        " created) VALUES ('g7', 'Lola', 'lola', 'lola', 'x', 1.0)"
                    )
                )
            with pytest.raises(IntegrityError):
                async with store._begin() as conn:
                    await conn.execute(
                        sa.text(
                            "INSERT INTO accounts (guest, name, name_key, name_skeleton,"
                            " password_hash, created) VALUES ('g8', 'L0la', 'l0la', 'lola', 'x', 1)"
                        )
                    )
        finally:
            await store.close()

    asyncio.run(go())
