"""A rule-based state machine over the ledger and the table store: random grants, sit-downs,
bots staked by the house, stand-ups, games to their end, expiries, kills (a step whose second
half never happens: the node died in between), restarts and takeovers by another node (a
second store on the same database running the recovery the lobby runs: ``reconcile`` from the
log's seats, ``finish_table`` for a game over in the log but not saved).

After every step: the audit holds (``store.audit``: sums, balances, issuance, settlement
exactly once, open escrows only at open tables), no balance is negative, nothing was settled
twice, and every person's chips (balance plus escrow) are his grants plus his results, to the
chip: no crash, stray escrow or takeover made or lost one.

Every example runs on one SQLite database shared by the whole run (tables and guests are named
per example), so that the audit at the end covers everything; ``LEDGER_MACHINE_EXAMPLES`` sets
how many examples (the long run of docs/chips.md).
"""

from __future__ import annotations

import asyncio
import itertools
import os
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tranque.ledger import stakes as chips
from tranque.ledger.stakes import TooFewChips
from tranque.store import open_store
from tranque.store.audit import audit
from tranque.store.chips import SqlChips
from tranque.store.db import Store
from tranque.table.chips import holders_of
from tranque.table.model import TableSettings
from tranque.table.ports import Entry
from tranque.table.service import fixed_seeds, rebuild

EXAMPLES = int(os.environ.get("LEDGER_MACHINE_EXAMPLES", "25"))
RUN = itertools.count()
FIGURES = {"kills": 0, "restarts": 0, "takeovers": 0, "games": 0, "refusals": 0}
SEEDS = fixed_seeds(b"machine")
KILL = st.integers(0, 7).map(lambda n: n == 0)  # one step in eight dies halfway


class Ledger(RuleBasedStateMachine):
    url = ""  # the database of the run: each test sets its own

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.n = next(RUN)
        self.guests = [f"m{self.n}g{i}" for i in range(5)]
        self.tables: dict[str, dict[str, Any]] = {}
        self.net = dict.fromkeys(self.guests, 0)  # each person's results, by the model
        self.crashed = False
        self.store = self.run(open_store(self.url))
        self.chips = SqlChips(self.store)

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def teardown(self) -> None:
        self.run(self.store.close())
        self.loop.close()

    # -- helpers ----

    def _table(self, data: st.DataObject, status: str) -> str | None:
        names = sorted(t for t, v in self.tables.items() if v["status"] == status)
        return data.draw(st.sampled_from(names)) if names else None

    async def _log(self, tid: str, kind: str, data: dict[str, Any]) -> None:
        t = self.tables[tid]
        t["seq"] += 1
        await self.store.append(tid, [Entry(t["seq"], kind, data, 1.0)])

    def _info(self, tid: str, winner: int, pollona: bool) -> dict[str, Any]:
        t = self.tables[tid]
        kinds = ["bot" if h.startswith("house@") else "person" for h in t["seats"]]
        return {
            "settings": {"rules": "havana", "stake": t["stake"]},
            "seats": [{"kind": k, "nickname": "x"} for k in kinds],
            "result": {
                "winner": "AB"[winner], "pollona": pollona, "pollonas": [0, 0],
                "viajeras": [0, 0],
            },
        }  # fmt: skip

    async def _finish(self, store: Store, tid: str) -> None:
        t = self.tables[tid]
        await store.finish_table(tid, {"hands": []}, self._info(tid, *t["result"]))
        t["status"] = "over"
        FIGURES["games"] += 1
        for s, d in enumerate(chips.deltas(t["stake"], *t["result"])):
            holder = t["seats"][s]
            if holder in self.net:
                self.net[holder] += d

    async def _recover(self, store: Store, only: str | None = None) -> None:
        """What ``Lobby._rebuild`` does for each unfinished table, on ``store``'s node."""
        ledger = SqlChips(store)
        for tid in await store.unfinished_tables():
            if tid not in self.tables or (only is not None and tid != only):
                continue
            entries = await store.load_events(tid)
            svc = rebuild(tid, entries, SEEDS)
            await ledger.reconcile(tid, holders_of(svc.seats))
            self.tables[tid]["seats"] = holders_of(svc.seats)
            if self.tables[tid]["status"] == "ended":
                await self._finish(store, tid)

    # -- rules ----

    @precondition(lambda self: not self.crashed)
    @rule(g=st.integers(0, 4))
    def look_at_balance(self, g: int) -> None:
        assert self.run(self.chips.balance(self.guests[g])) >= 0

    @precondition(lambda self: not self.crashed)
    @rule(stake=st.sampled_from(chips.STAKES))
    def open_table(self, stake: int) -> None:
        tid = f"m{self.n}t{len(self.tables)}"
        settings_ = TableSettings(practice=False, stake=stake).to_json()
        self.run(self.store.create_table(tid, "host", {"settings": settings_}))
        self.tables[tid] = {"stake": stake, "seq": 0, "seats": [None] * 4, "status": "waiting"}
        self.run(self._log(tid, "created", {"settings": settings_, "host": "host"}))

    @precondition(lambda self: not self.crashed)
    @rule(data=st.data(), who=st.integers(0, 5), crash=KILL)
    def sit(self, data: st.DataObject, who: int, crash: bool) -> None:
        tid = self._table(data, "waiting")
        if tid is None:
            self.open_table(data.draw(st.sampled_from(chips.STAKES)))
            tid = self._table(data, "waiting")
            assert tid is not None
        self._sit(data, tid, who, crash)

    def _sit(self, data: st.DataObject, tid: str, who: int, crash: bool) -> None:
        t = self.tables[tid]
        empty = [s for s in range(4) if t["seats"][s] is None]
        if not empty:
            return
        seat = data.draw(st.sampled_from(empty))
        holder = chips.house_holder(seat) if who == 5 else self.guests[who]
        if holder in t["seats"]:
            return
        try:
            self.run(self.chips.take(tid, [holder], chips.cost(t["stake"])))
        except TooFewChips:
            FIGURES["refusals"] += 1
            return
        if crash:  # the escrow is in, the seat never reached the log
            self.crashed = True
            FIGURES["kills"] += 1
            return
        t["seats"][seat] = holder
        if who == 5:
            self.run(self._log(tid, "bot_sat", {"seat": seat, "bot": "random"}))
        else:
            self.run(self._log(tid, "sat", {"seat": seat, "guest": holder, "nickname": "x"}))

    @precondition(lambda self: not self.crashed)
    @rule(data=st.data(), crash=KILL)
    def stand(self, data: st.DataObject, crash: bool) -> None:
        tid = self._table(data, "waiting")
        if tid is None:
            return
        t = self.tables[tid]
        people = [s for s in range(4) if t["seats"][s] in self.net]
        if not people:
            return
        seat = data.draw(st.sampled_from(people))
        guest = t["seats"][seat]
        self.run(self._log(tid, "stood", {"seat": seat, "guest": guest}))
        t["seats"][seat] = None
        if crash:  # stood in the log, the escrow not given back yet
            self.crashed = True
            FIGURES["kills"] += 1
            return
        self.run(self.chips.give_back(tid, [guest]))

    @precondition(lambda self: not self.crashed)
    @rule(data=st.data(), winner=st.integers(0, 1), pollona=st.booleans(), crash=KILL)
    def play_to_the_end(self, data: st.DataObject, winner: int, pollona: bool, crash: bool) -> None:
        tid = self._table(data, "waiting")
        if tid is None:
            return
        t = self.tables[tid]
        for _ in range(6):  # the empty seats: people who want to play, or the house's bots
            if all(t["seats"]) or self.crashed:
                break
            self._sit(data, tid, data.draw(st.integers(0, 5)), data.draw(KILL))
        if self.crashed or not all(t["seats"]):
            return
        self.run(self._log(tid, "started", {}))
        t["status"], t["result"] = "ended", (winner, pollona)
        if crash:  # the last move is in the log, the record (and the settlement) are not
            self.crashed = True
            FIGURES["kills"] += 1
            return
        self.run(self._finish(self.store, tid))

    @precondition(lambda self: not self.crashed)
    @rule(data=st.data())
    def expire(self, data: st.DataObject) -> None:
        tid = self._table(data, "waiting")
        if tid is None:
            return
        self.run(self.store.expire_table(tid))
        self.tables[tid]["status"] = "expired"

    @rule()
    def restart(self) -> None:
        """The node comes back (after a kill, or a clean stop): a new store, the recovery."""
        self.run(self.store.close())
        self.store = self.run(open_store(self.url))
        self.chips = SqlChips(self.store)
        self.run(self._recover(self.store))
        self.crashed = False
        FIGURES["restarts"] += 1

    @precondition(lambda self: bool(self.tables))
    @rule(data=st.data())
    def takeover(self, data: st.DataObject) -> None:
        """Another node takes one table over (its lease ran out) and rebuilds it."""
        tid = data.draw(st.sampled_from(sorted(self.tables)))
        if self.tables[tid]["status"] not in ("waiting", "ended"):
            return

        async def other_node() -> None:
            node = await open_store(self.url)
            try:
                await self._recover(node, only=tid)
            finally:
                await node.close()

        self.run(other_node())
        FIGURES["takeovers"] += 1

    # -- invariants ----

    @invariant()
    def the_audit_holds(self) -> None:
        result = self.run(audit(self.store))
        assert result.ok, result.report()

    @invariant()
    def every_chip_is_a_grant_or_a_result(self) -> None:
        async def read() -> dict[str, tuple[int, int]]:
            async with self.store._connect() as conn:
                rows = await conn.execute(
                    sa.text(
                        "SELECT l.account, t.kind, l.amount FROM ledger_legs l"
                        " JOIN ledger_txns t ON t.id = l.txn"
                    )
                )
                held = await conn.execute(sa.text("SELECT account, balance FROM chip_balances"))
                out = {g: (0, 0) for g in self.guests}
                for account, kind, amount in rows:
                    g = account[2:] if account.startswith("p:") else None
                    if g in out and kind == "grant":
                        out[g] = (out[g][0] + amount, out[g][1])
                for account, balance in held:
                    if balance < 0:
                        assert account == chips.ISSUER
                    g = account[2:] if account.startswith("p:") else account.rsplit(":", 1)[-1]
                    if g in out and (account.startswith("p:") or account.startswith("escrow:")):
                        out[g] = (out[g][0], out[g][1] + balance)
                return out

        for g, (granted, has) in self.run(read()).items():
            assert has == granted + self.net[g], (g, has, granted, self.net[g])


Ledger.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=40, deadline=None)


@pytest.mark.slow
def test_the_ledger_machine(tmp_path: Path) -> None:
    Ledger.url = f"sqlite:///{tmp_path / 'ledger.db'}"
    Ledger.TestCase().runTest()
    result = asyncio.run(_final_audit(Ledger.url))
    print(f"\n{FIGURES}\n{result.report()}")
    assert result.ok


@pytest.mark.slow
def test_the_ledger_machine_on_postgresql(pg_url: str) -> None:
    class OnPostgres(Ledger):
        url = pg_url

    OnPostgres.TestCase.settings = settings(
        max_examples=max(5, EXAMPLES // 3), stateful_step_count=40, deadline=None
    )
    OnPostgres.TestCase().runTest()
    result = asyncio.run(_final_audit(pg_url))
    print(f"\n{FIGURES}\n{result.report()}")
    assert result.ok


async def _final_audit(url: str) -> Any:
    store = await open_store(url)
    try:
        return await audit(store)
    finally:
        await store.close()
