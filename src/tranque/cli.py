"""The ``tranque`` command: one subcommand per job, each defined next to the code it drives.

Each room of the house that has a command exposes ``register(subparsers)``; this module only wires
them together and turns the typed errors of bad input into a one-line message and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from tranque.commands import CommandError
from tranque.rules.errors import RulesError

# Modules that add subcommands. Each defines register(subparsers) -> None and sets
# ``func`` on its parsers; a missing optional room is skipped so that the core stands alone.
_COMMAND_MODULES = (
    "tranque.commands.play",
    "tranque.commands.replay",
    "tranque.commands.bench",
    "tranque.fair.commands",
    "tranque.arena.commands",
    "tranque.server.commands",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tranque", description="Cuban dominoes (double-nine, Havana rules)."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        result = args.func(args)
    except (CommandError, RulesError, OSError) as exc:
        print(f"tranque {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
