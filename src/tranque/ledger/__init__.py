"""The chips' rules, in one logic room: the accounts and the amounts (``stakes``), a
transaction's legs that sum to zero, escrows and what a finished table pays (``legs``), the
invariants the audit checks (``audit``), and the port a chip table asks (``ports``).

No SQL here: ``store.ledger`` posts these transactions under the database's guarantees (one
key, once; no balance below zero), ``store.chips`` is the port's adapter, ``store.audit`` reads
the rows the audit checks, and ``server.chips`` / ``server.ledger`` are the routes and the
``tranque ledger check`` command. docs/chips.md tells the whole of it.
"""
