"""The ``tranque`` command: one subcommand per job, each defined next to the code it drives.

Each room of the house that has a command exposes ``register(subparsers)``; this module only wires
them together and turns the typed errors of bad input into a one-line message and exit code 2.
Registering a command imports no third-party package, so ``tranque --help`` runs on the bare core;
a command that needs an extra which is not installed says which one, also in one line, exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

import tranque
from tranque.commandline import EXTRA_OF, CommandError, MissingExtraError
from tranque.rules.errors import RulesError

# Modules that add subcommands. Each defines register(subparsers) -> None and sets
# ``func`` on its parsers, importing its third-party packages only inside ``func``.
_COMMAND_MODULES = (
    "tranque.arena.play",
    "tranque.fair.replay",
    "tranque.bench.engine",
    "tranque.fair.commands",
    "tranque.arena.commands",
    "tranque.analysis.commands",
    "tranque.server.fairplay_commands",
    "tranque.tournament.commands",
    "tranque.bench.commands",
    "tranque.server.commands",
    "tranque.server.ledger",
    "tranque.server.admin",
    "tranque.server.schedule_commands",  # after tranque.tournament.commands: it adds to it
)

# A command that needs a whole extra, whichever of its packages is found missing first.
_COMMAND_EXTRA = {"serve": "server"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tranque", description="Cuban dominoes (double-nine, Havana rules)."
    )
    parser.add_argument("--version", action="version", version=f"tranque {tranque.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def missing_extra(command: str, exc: ModuleNotFoundError) -> MissingExtraError | None:
    """The one-line error for a third-party import that failed, or None if it is not ours."""
    top = (exc.name or "").partition(".")[0]
    if top not in EXTRA_OF:
        return None
    return MissingExtraError(command, _COMMAND_EXTRA.get(command, EXTRA_OF[top]), top)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        result = args.func(args)
    except MissingExtraError as exc:
        print(exc, file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        missing = missing_extra(args.command, exc)
        if missing is None:
            raise
        print(missing, file=sys.stderr)
        return 2
    except (CommandError, RulesError, OSError) as exc:
        print(f"tranque {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
