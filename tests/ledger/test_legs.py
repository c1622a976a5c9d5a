"""The ledger room's rules on plain values: a settlement's legs, and the audit's invariants.

The same rules run against the database in tests/store/test_ledger.py; here they are checked
without one, the way the rules core is: every payout sums to zero and takes from each escrow
exactly what it holds, and the audit names the first broken invariant.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tranque.ledger import stakes
from tranque.ledger.audit import Books, check
from tranque.ledger.legs import check_balanced, merge, settlement

HOLDERS = ["g1", "g2", "house@2", "g4"]


def _held(table: str, stake: int, extra: dict[str, int]) -> dict[str, int]:
    held = {stakes.escrow(table, h): stakes.cost(stake) for h in HOLDERS}
    held.update(extra)
    return held


@given(
    stake=st.sampled_from(stakes.STAKES),
    winner=st.integers(0, 1),
    pollona=st.booleans(),
    stray=st.integers(0, 500),
)
def test_a_settlement_sums_to_zero_and_empties_every_escrow(
    stake: int, winner: int, pollona: bool, stray: int
) -> None:
    extra = {stakes.escrow("t1", "g9"): stray} if stray else {}
    held = _held("t1", stake, extra)
    kind, legs = settlement("t1", stake, held, HOLDERS, (winner, pollona))
    assert kind == "settle"
    merged = merge(legs)
    check_balanced("settle:t1", merged)  # raises if not zero
    out = dict(merged)
    for account, amount in held.items():
        assert out[account] == -amount  # every escrow paid out whole, the stray one too
    won = stakes.payouts([stakes.cost(stake)] * 4, stake, winner, pollona)
    for seat, holder in enumerate(HOLDERS):
        owner = stakes.escrow_owner(stakes.escrow("t1", holder))
        assert out[owner] == won[seat]
    assert held == _held("t1", stake, extra)  # the escrows it was given are not changed


def test_a_seat_without_its_escrow_voids_the_table() -> None:
    held = _held("t1", 100, {})
    del held[stakes.escrow("t1", "g4")]
    kind, legs = settlement("t1", 100, held, HOLDERS, (0, False))
    assert kind == "void"
    assert sorted(legs) == sorted(
        leg for a, x in held.items() for leg in ((a, -x), (stakes.escrow_owner(a), x))
    )
    assert settlement("t1", 100, _held("t1", 100, {}), HOLDERS, None)[0] == "void"


def test_legs_that_do_not_sum_to_zero_are_refused() -> None:
    with pytest.raises(ValueError, match="do not sum to zero"):
        check_balanced("k", merge([("p:a", -5), ("p:b", 4)]))


def _books(**changes: object) -> Books:
    books = Books(
        txns=[(1, "grant:open:a", 0, 2)],
        by_legs={"issuer": -100, "p:a": 100},
        cached={"issuer": -100, "p:a": 100},
        grants=100,
        settled={},
        tables=[],
        kinds={"grant": 1},
    )
    for k, v in changes.items():
        setattr(books, k, v)
    return books


def test_the_audit_passes_sound_books_and_names_the_first_violation() -> None:
    assert check(_books()).ok
    assert "ledger ok" in check(_books()).report()
    bad = check(_books(txns=[(1, "k", 3, 2)], cached={"issuer": -100, "p:a": 90}))
    assert bad.violations[0] == "transaction 1 (k) sums to 3, not 0"
    assert "account p:a: balance 90 but its legs sum to 100" in bad.violations
    assert bad.report().splitlines()[-len(bad.violations)].startswith("VIOLATION: transaction 1")
    unsettled = check(_books(tables=[("t1", "over", 100)]))
    assert unsettled.violations == ["finished chip table t1 was settled 0 times, not once"]
