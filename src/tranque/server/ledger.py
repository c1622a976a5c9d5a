"""``tranque ledger check --db URL``: audit the chips' ledger (``store.audit``); exit 1 naming
the first violation, 0 when every invariant holds."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any


def register(subparsers: Any) -> None:
    ledger = subparsers.add_parser("ledger", help="the chips' ledger")
    sub = ledger.add_subparsers(dest="ledger_command", metavar="SUBCOMMAND")
    check = sub.add_parser("check", help="verify every invariant of the chips' ledger")
    check.add_argument(
        "--db", required=True, help="the database URL (sqlite:///... or postgresql://...)"
    )
    check.set_defaults(func=run_check)
    ledger.set_defaults(func=lambda args: _usage(ledger))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def run_check(args: argparse.Namespace) -> int:
    from tranque.commands import CommandError
    from tranque.store.audit import audit
    from tranque.store.db import open_store

    async def go() -> int:
        try:
            store = await open_store(args.db)
        except Exception as exc:
            raise CommandError(f"the database {args.db!r} cannot be opened: {exc}") from None
        try:
            result = await audit(store)
        finally:
            await store.close()
        print(result.report())
        return 0 if result.ok else 1

    return asyncio.run(go())
