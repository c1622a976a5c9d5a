"""The one house rule that import contracts cannot say: rules imports only the standard library.

How the rooms import each other (the layers, the logic rooms without sockets or SQL, no circles)
is checked by import-linter's contracts in pyproject.toml (``lint-imports``, run by ``make
lint``); they forbid what is named, and a package that nobody has named yet is the reason this
test stays: it checks every import of rules/ against the standard library's own list.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "tranque"


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
    paths = list((SRC / "rules").rglob("*.py"))
    assert paths, "no rules room"
    for path in paths:
        for name in imports_of(path):
            top = name.split(".")[0]
            if top == "tranque":
                assert name.startswith("tranque.rules"), f"{path.name} imports {name}"
            else:
                assert top in stdlib, f"{path.name} imports {name}, outside the standard library"
