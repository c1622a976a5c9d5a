"""The refusal of a command, shared by the table and the ledger: a code for programs and a
sentence for people, and nothing changed.

A chip table's seat that its holder cannot cover is refused like any other command of the table
(``ledger.stakes.ChipError`` is a ``TableError``), but the ledger that decides it sits below the
table. So the error is defined here, under both, and ``table.model`` names it for the table.
"""

from __future__ import annotations


class TableError(Exception):
    """A refused command: a code for programs and a sentence for people. Nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
