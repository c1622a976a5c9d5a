"""``tranque admin grant NAME ROLE --db URL`` (and ``revoke``): who runs the service gives a
person a role, or takes it back. One line of the moderation log each, with the command as the
one who did it. Bad input (an unknown role, a name nobody has, a database that is not there):
one line on standard error, exit code 2."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any


def register(subparsers: Any) -> None:
    admin = subparsers.add_parser("admin", help="roles: moderators")
    sub = admin.add_subparsers(dest="admin_command", metavar="SUBCOMMAND")
    for name, what in (("grant", "give an account a role"), ("revoke", "take a role back")):
        p = sub.add_parser(name, help=what)
        p.add_argument("name", help="the account's name")
        p.add_argument("role", help="moderator")
        p.add_argument(
            "--db", required=True, help="the database URL (sqlite:///... or postgresql://...)"
        )
        p.add_argument("--reason", default=f"{name}ed with the command", help="kept in the log")
        p.set_defaults(func=run_role, granted=name == "grant")
    admin.set_defaults(func=lambda args: _usage(admin))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def run_role(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    import sqlalchemy as sa

    from tranque.club.names import name_key
    from tranque.club.skeleton import name_skeleton
    from tranque.commandline import CommandError
    from tranque.moderation.rules import ModerationError, check_role
    from tranque.moderation.service import COMMAND, Moderation
    from tranque.store.club import SqlAccounts
    from tranque.store.db import open_store
    from tranque.store.moderation import SqlModeration

    try:
        role = check_role(args.role)
    except ModerationError as exc:
        raise CommandError(exc.message) from None
    url = args.db
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        raise CommandError(f"{url!r} is not a database URL") from None
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        raise CommandError(f"there is no database at {url!r}")

    async def go() -> int:
        try:
            store = await open_store(url, migrate=False)
            await store.revision()
        except Exception as exc:
            why = getattr(exc, "orig", None) or exc
            raise CommandError(f"the database {url!r} cannot be opened: {why}") from None
        try:
            name = args.name.strip()
            try:
                account = await SqlAccounts(store).account_by_name(
                    name_key(name), name_skeleton(name)
                )
            except sa.exc.DBAPIError as exc:
                raise CommandError(
                    f"the database {url!r} has no accounts (migrate it first): {exc.orig}"
                ) from None
            if account is None:
                raise CommandError(f"there is no account called {name!r}")
            try:
                changed = await Moderation(SqlModeration(store)).set_role(
                    account.guest, role, args.granted, COMMAND, args.reason, time.time()
                )
            except sa.exc.DBAPIError as exc:
                raise CommandError(
                    f"the database {url!r} has no roles (migrate it first): {exc.orig}"
                ) from None
        finally:
            await store.close()
        if args.granted:
            print(f"{account.name} is a {role}" + ("" if changed else " already"))
        else:
            print(f"{account.name} is not a {role}" + ("" if changed else " (was not)"))
        return 0

    return asyncio.run(go())
