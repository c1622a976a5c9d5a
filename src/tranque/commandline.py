"""What every room's subcommands share, and what ``cli.py`` owns: the error of bad input.

Each room of the house registers its own subcommands (``fair.commands``, ``arena.play``,
``server.commands``, ``bench.commands``...); they raise ``CommandError`` on bad input, and
``cli.main`` turns it into one line on standard error and exit code 2. The error lives here, not
in ``cli``, because nothing may import the command itself.

Nothing here imports a third-party package: ``tranque --help``, ``replay``, ``deal`` and ``verify``
run on a bare ``pip install tranque``. A command that needs an extra imports it inside its
function; when the import fails, the CLI names the extra (``EXTRA_OF``) in one line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# ``serve --bus-linger``'s default, in milliseconds (``ServerConfig.bus_linger``): here, so that
# the command line reads it without loading the server's dependencies.
BUS_LINGER_MS = 5.0

# Which extra of ``pip install 'tranque[...]'`` brings each third-party package the commands use.
EXTRA_OF = {
    "numpy": "bots",
    "numba": "bots",
    "llvmlite": "bots",
    "rich": "bots",
    "starlette": "server",
    "uvicorn": "server",
    "sqlalchemy": "server",
    "alembic": "server",
    "itsdangerous": "server",
    "msgspec": "server",
    "websockets": "server",
    "matplotlib": "plot",
    "networkx": "tournament",
    "httpx": "client",
    "asyncpg": "postgres",
    "psutil": "dev",
}


class CommandError(Exception):
    """A bad argument or input file: the CLI prints it as one line and exits with code 2."""


class MissingExtraError(CommandError):
    """A command needs a package of an extra that is not installed."""

    def __init__(self, command: str, extra: str, module: str) -> None:
        super().__init__(
            f"tranque {command} needs the {extra!r} extra: pip install 'tranque[{extra}]' "
            f"(no module named {module!r})"
        )
        self.command = command
        self.extra = extra
        self.module = module


def read_text(path: str) -> str:
    """A file's text, or stdin's for ``-``; any failure is one CommandError line."""
    if path == "-":
        try:
            return sys.stdin.read()
        except UnicodeDecodeError:
            raise CommandError("stdin is not UTF-8 text") from None
    file = Path(path)
    if file.is_dir():
        raise CommandError(f"cannot read {path}: it is a directory, not a record file")
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CommandError(f"cannot read {path}: not UTF-8 text") from None
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None


def parse_json(text: str, what: str) -> object:
    """JSON text to Python values; every way it can fail is one CommandError line.

    ``json.loads`` raises more than JSONDecodeError: RecursionError on deeply nested arrays and
    a plain ValueError on an integer longer than Python's int-to-str limit (4,300 digits).
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{what} is not JSON: {exc}") from None
    except RecursionError:
        raise CommandError(f"{what} is nested too deeply to be a record") from None
    except ValueError as exc:
        raise CommandError(f"{what} is not usable JSON: {exc}") from None


def bench_subparsers(subparsers: Any) -> Any:
    """The ``bench`` command's subparsers, whichever room created ``bench`` first: each room adds
    its own benchmark (``tranque bench engine``, ``server``, ``analysis``, ...)."""
    existing = subparsers.choices.get("bench")
    if existing is None:
        existing = subparsers.add_parser("bench", help="benchmarks that print figures")
        existing.set_defaults(func=lambda args: existing.print_help() or 2)
    for action in existing._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return existing.add_subparsers(dest="bench_command", metavar="BENCH")


def print_figures(result: dict[str, Any], as_json: bool) -> None:
    """A benchmark's figures: JSON, or one ``name value`` line each."""
    if as_json:
        print(json.dumps(result, indent=2))
        return
    for k, v in result.items():
        print(f"{k:32} {v}")
