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
    from pathlib import Path

    import sqlalchemy as sa

    from tranque.commandline import CommandError
    from tranque.store.audit import audit
    from tranque.store.db import open_store

    url = args.db
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        raise CommandError(f"there is no database at {url!r}")

    async def go() -> int:
        try:
            # As it is: the check reads, it never migrates.
            store = await open_store(url, migrate=False)
            await store.revision()
        except Exception as exc:
            why = getattr(exc, "orig", None) or exc
            raise CommandError(f"the database {url!r} cannot be opened: {why}") from None
        try:
            try:
                result = await audit(store)
            except sa.exc.DBAPIError as exc:
                raise CommandError(
                    f"the database {url!r} has no ledger (migrate it first): {exc.orig}"
                ) from None
        finally:
            await store.close()
        print(result.report())
        return 0 if result.ok else 1

    return asyncio.run(go())
