"""The house rules of docs/architecture.md, enforced: rules imports only the standard library,
and the rooms import each other only in the allowed direction."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "tranque"

# Which rooms each room may import from (besides itself and the standard library).
ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    "fair": {"rules", "commands"},
    "bots": {"rules"},
    "arena": {"rules", "bots", "commands"},
    "analysis": {"rules", "bots", "commands"},
    "table": {"rules", "fair", "bots"},
    "store": {"rules", "table", "club"},
    "club": {"rules"},
    "runtime": {"rules", "bots", "analysis", "table", "club"},
    "server": {"rules", "fair", "bots", "table", "club", "store", "runtime", "commands"},
    "commands": {"rules", "bots", "fair", "arena", "commands"},
}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_rules_imports_only_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for path in (SRC / "rules").rglob("*.py"):
        for name in imports_of(path):
            top = name.split(".")[0]
            if top == "tranque":
                assert name.startswith("tranque.rules"), f"{path.name} imports {name}"
            else:
                assert top in stdlib, f"{path.name} imports {name}, outside the standard library"


@pytest.mark.parametrize("room", sorted(ALLOWED))
def test_rooms_import_only_downwards(room: str) -> None:
    folder = SRC / room
    if not folder.exists():
        pytest.skip(f"{room} not built yet")
    for path in folder.rglob("*.py"):
        for name in imports_of(path):
            parts = name.split(".")
            if parts[0] != "tranque" or len(parts) < 2:
                continue
            other = parts[1]
            assert other != "cli", f"{path} imports the cli; nothing may"
            if other == room or other in ("client",):
                continue
            assert other in ALLOWED[room], f"{room}/{path.name} imports tranque.{other}"


# What the logic rooms may not import: they talk to ports that runtime and store implement.
NO_PROCESSES_NOR_SOCKETS = {
    "multiprocessing", "concurrent", "socket", "subprocess", "sqlalchemy", "starlette", "uvicorn",
    "redis", "asyncpg", "websockets",
}  # fmt: skip


@pytest.mark.parametrize("room", ["table", "analysis", "club"])
def test_the_logic_rooms_start_no_process_and_open_no_socket(room: str) -> None:
    paths = list((SRC / room).rglob("*.py"))
    assert paths, f"no {room} room"
    for path in paths:
        for name in imports_of(path):
            top = name.split(".")[0]
            assert top not in NO_PROCESSES_NOR_SOCKETS, f"{room}/{path.name} imports {name}"
