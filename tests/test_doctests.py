"""The examples in the docstrings of the rules engine and the fair deals run, and hold.

They are run here rather than by ``--doctest-modules`` so that the one test command runs them and
no module that needs an extra (numba, starlette) is imported just to look for examples.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tranque
import tranque.fair
import tranque.rules


def _modules() -> list[str]:
    names = ["tranque"]
    for package in (tranque.rules, tranque.fair):
        names.append(package.__name__)
        names += [m.name for m in pkgutil.iter_modules(package.__path__, package.__name__ + ".")]
    return names


MODULES = _modules()
# Where the examples a newcomer reads first live: each must have some.
WITH_EXAMPLES = {"tranque.rules", "tranque.rules.hand", "tranque.rules.variants"}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
    if name in WITH_EXAMPLES:
        assert result.attempted > 0
