"""The chips' ledger on SQLite and on PostgreSQL: escrow at the seat, settlement once with the
record, a balance the database keeps from going below zero (also when two sit-downs race on
two nodes), append-only history, and the audit that names the first violation."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tranque.ledger import stakes as chips
from tranque.ledger.stakes import ChipError, TooFewChips
from tranque.store import ledger as ledgers
from tranque.store import open_store
from tranque.store.audit import audit
from tranque.store.chips import SqlChips
from tranque.store.db import Store
from tranque.table.ports import Entry

TOP = 10_000  # the top stake: its escrow (20,000) is exactly an opening grant
DAY = 86_400.0


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: Any, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.db'}"
    pg: str = request.getfixturevalue("pg_url")
    return pg


def _info(stake: int, kinds: list[str], winner: str | None, pollona: bool = False) -> Any:
    result = None
    if winner is not None:
        result = {"winner": winner, "pollona": pollona, "pollonas": [0, 0], "viajeras": [0, 0]}
    return {
        "settings": {"rules": "havana", "stake": stake},
        "seats": [{"kind": k, "nickname": "x"} for k in kinds],
        "result": result,
    }


async def _chip_table(store: Store, tid: str, stake: int) -> None:
    await store.create_table(tid, "host", {"settings": {"stake": stake}})


async def _sat(store: Store, tid: str, seats: list[str | None]) -> None:
    entries = [
        Entry(i + 1, "sat", {"seat": s, "guest": g, "nickname": g}, 1.0)
        for i, (s, g) in enumerate((s, g) for s, g in enumerate(seats) if g is not None)
    ]
    await store.append(tid, entries)


async def _txns(store: Store) -> int:
    async with store._connect() as conn:
        return int((await conn.execute(sa.text("SELECT count(*) FROM ledger_txns"))).scalar_one())


def test_a_game_settles_once_with_the_record(db_url: str) -> None:
    async def go() -> None:
        store = await open_store(db_url)
        ledger = SqlChips(store)
        try:
            people = ["a", "b", "c"]
            await _chip_table(store, "t1", 100)
            await ledger.take("t1", [*people, "house@3"], chips.cost(100))
            assert [await ledger.balance(g) for g in people] == [19_800] * 3
            await _sat(store, "t1", [*people, None])
            assert (await audit(store)).ok
            # Pair B (seats 1 and 3: b and the house's bot) wins a pollona: double the stake.
            info = _info(100, ["person", "person", "person", "bot"], "B", pollona=True)
            await store.finish_table("t1", {"hands": []}, info)
            assert [await ledger.balance(g) for g in people] == [19_800, 20_200, 19_800]
            async with store._connect() as conn:
                house = await conn.execute(
                    sa.text("SELECT balance FROM chip_balances WHERE account = 'house'")
                )
                # The house was granted its float plus the escrow, and won 200 with its bot.
                assert house.scalar_one() == chips.HOUSE_FLOAT + 200 + 200
            before = await _txns(store)
            with pytest.raises(sa.exc.IntegrityError):  # the record is there: nothing again
                await store.finish_table("t1", {"hands": []}, info)
            assert await _txns(store) == before
            result = await audit(store)
            assert result.ok, result.report()
            assert result.figures["chip games settled"] == 1
            history = await ledger.history("b", 10)
            assert [(m["kind"], m["amount"], m["balance"]) for m in history] == [
                ("settle", 400, 20_200),
                ("escrow", -200, 19_800),
                ("grant", 20_000, 20_000),
            ]
        finally:
            await store.close()

    asyncio.run(go())


def test_too_few_chips_is_refused_and_nothing_moves(db_url: str) -> None:
    async def go() -> None:
        store = await open_store(db_url)
        ledger = SqlChips(store)
        try:
            await _chip_table(store, "t1", TOP)
            await _chip_table(store, "t2", TOP)
            await ledger.take("t1", ["rich"], chips.cost(TOP))
            await ledger.balance("poor")
            before = await _txns(store)
            # All or none: the first holder could pay, the second cannot.
            with pytest.raises(TooFewChips) as refused:
                await ledger.take("t2", ["poor", "rich"], chips.cost(TOP))
            assert refused.value.code == "too_few_chips"
            assert "20000" in refused.value.message
            assert await _txns(store) == before
            assert await ledger.balance("poor") == chips.OPENING_GRANT
            # No top-up: all of "rich"'s chips are in escrow, and the floor counts them.
            assert await ledger.balance("rich") == 0
            with pytest.raises(ChipError) as closed:
                await store.expire_table("t1")
                await ledger.take("t1", ["poor"], 200)
            assert closed.value.code == "table_closed"
            # The expiry gave the escrow back.
            assert await ledger.balance("rich") == chips.OPENING_GRANT
            assert (await audit(store)).ok
        finally:
            await store.close()

    asyncio.run(go())


def test_the_daily_top_up_comes_once_below_the_floor_escrow_counted(tmp_path: Path) -> None:
    async def go() -> None:
        store = await open_store(f"sqlite:///{tmp_path / 'l.db'}")
        ledger = SqlChips(store)

        async def look(days: int) -> int:
            async with store._begin() as conn:
                return await ledgers.grant(conn, store.dialect, "g", time.time() + days * DAY)

        async def lose(tid: str, stake: int) -> None:
            """g (seat 0) and the house's bots; pair B wins a pollona: g loses twice the stake."""
            await _chip_table(store, tid, stake)
            await ledger.take(tid, ["g", "house@1", "house@2", "house@3"], chips.cost(stake))
            await _sat(store, tid, ["g", None, None, None])
            info = _info(stake, ["person", "bot", "bot", "bot"], "B", pollona=True)
            await store.finish_table(tid, {"hands": []}, info)

        try:
            await _chip_table(store, "t1", TOP)
            await ledger.take("t1", ["g"], chips.cost(TOP))
            assert await look(0) == 0  # all at stake: no top-up (the escrow counts)
            await store.expire_table("t1")
            await lose("t2", TOP)
            assert await look(0) == chips.DAILY_FLOOR  # nothing left: topped up
            assert await look(0) == chips.DAILY_FLOOR  # and only once that day
            await lose("t3", 100)  # 2,000 - 200
            await _chip_table(store, "t4", 100)
            await ledger.take("t4", ["g"], chips.cost(100))  # 1,600 free, 200 at stake
            # The next day: 1,800 chips in all, topped up to the floor (by 200, not by 400).
            assert await look(1) == chips.DAILY_FLOOR - 200
            assert await ledger.in_escrow("g") == 200
            kinds = [m["kind"] for m in await ledger.history("g", 10)]
            assert kinds == [
                *("grant", "escrow", "settle", "escrow", "grant", "settle", "escrow"),
                *("release", "escrow", "grant"),
            ]
            assert (await audit(store)).ok
        finally:
            await store.close()

    asyncio.run(go())


def test_two_sit_downs_at_once_on_two_nodes_with_chips_for_one(db_url: str) -> None:
    """Two stores on one database are two nodes: each escrow is its own transaction, at the
    same moment; the database lets exactly one through, every round."""

    async def go() -> None:
        nodes = [await open_store(db_url), await open_store(db_url)]
        ledgers = [SqlChips(n) for n in nodes]
        try:
            for r in range(12):
                guest = f"g{r}"
                await ledgers[0].balance(guest)
                for n in (0, 1):
                    await _chip_table(nodes[0], f"t{r}-{n}", TOP)
                results = await asyncio.gather(
                    *(ledgers[n].take(f"t{r}-{n}", [guest], chips.cost(TOP)) for n in (0, 1)),
                    return_exceptions=True,
                )
                refused = [x for x in results if isinstance(x, TooFewChips)]
                assert len(refused) == 1 and results.count(None) == 1, results
                assert await ledgers[1].balance(guest) == 0  # all in escrow: no top-up
            result = await audit(nodes[0])
            assert result.ok, result.report()
        finally:
            for n in nodes:
                await n.close()

    asyncio.run(go())


def test_the_ledger_is_append_only(db_url: str) -> None:
    async def go() -> None:
        store = await open_store(db_url)
        try:
            await SqlChips(store).balance("g")
            for sql in (
                "UPDATE ledger_legs SET amount = amount + 1",
                "DELETE FROM ledger_legs",
                "UPDATE ledger_txns SET kind = 'x'",
                "DELETE FROM ledger_txns",
            ):
                with pytest.raises(sa.exc.DBAPIError, match="append-only"):
                    async with store._begin() as conn:
                        await conn.execute(sa.text(sql))
            with pytest.raises(sa.exc.IntegrityError):  # below zero: the check constraint
                async with store._begin() as conn:
                    await conn.execute(sa.text("UPDATE chip_balances SET balance = -1"))
        finally:
            await store.close()

    asyncio.run(go())


def _check(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tranque.cli", "ledger", "check", "--db", url],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_the_check_names_the_first_violation(tmp_path: Path) -> None:
    async def setup(url: str, tamper: str | None) -> None:
        store = await open_store(url)
        try:
            ledger = SqlChips(store)
            await _chip_table(store, "t1", 100)
            await ledger.take("t1", ["a"], 200)
            if tamper is not None:
                async with store._begin() as conn:
                    await conn.execute(sa.text(tamper))
        finally:
            await store.close()

    url = f"sqlite:///{tmp_path / 'k.db'}"
    asyncio.run(setup(url, None))
    ok = _check(url)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "ledger ok" in ok.stdout and "transactions: 2" in ok.stdout
    # A chip appears from nowhere: a cached balance its legs do not explain.
    url = f"sqlite:///{tmp_path / 'l.db'}"
    asyncio.run(setup(url, "UPDATE chip_balances SET balance = balance + 5 WHERE account = 'p:a'"))
    bad = _check(url)
    assert bad.returncode == 1
    assert "VIOLATION: account p:a: balance 19805 but its legs sum to 19800" in bad.stdout
    # A table over without its settlement, its escrow still open.
    url = f"sqlite:///{tmp_path / 'm.db'}"
    asyncio.run(
        setup(url, "UPDATE tables SET status = 'over', info = '{\"settings\": {\"stake\": 100}}'")
    )
    bad = _check(url)
    assert bad.returncode == 1
    assert "VIOLATION: finished chip table t1 was settled 0 times, not once" in bad.stdout
    assert "escrow escrow:t1:a holds 200 for table t1, which is over" in bad.stdout
    # A leg that unbalances its transaction (appending is allowed; the audit catches it).
    url = f"sqlite:///{tmp_path / 'n.db'}"
    asyncio.run(setup(url, "INSERT INTO ledger_legs (txn, account, amount) VALUES (1, 'p:a', 1)"))
    bad = _check(url)
    assert bad.returncode == 1
    assert "VIOLATION: transaction 1 (grant:open:a) sums to 1, not 0" in bad.stdout
    missing = _check("postgresql://nobody@127.0.0.1:1/none")
    assert missing.returncode == 2 and "cannot be opened" in missing.stderr
    # The check reads and never creates nor migrates: no file, or a file with no schema.
    nothing = _check(f"sqlite:///{tmp_path / 'none.db'}")
    assert nothing.returncode == 2 and "there is no database" in nothing.stderr
    assert not (tmp_path / "none.db").exists()
    (tmp_path / "empty.db").write_bytes(b"")
    empty = _check(f"sqlite:///{tmp_path / 'empty.db'}")
    assert empty.returncode == 2 and "no such table: alembic_version" in empty.stderr
