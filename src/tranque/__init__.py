"""tranque: Cuban dominoes on the double-nine set.

``tranque.rules`` is the rules engine (standard library only); ``tranque.fair`` the verifiable
deals. The version is the installed package's metadata, read on first use (so that importing the
rules engine does not pay for ``importlib.metadata``):

>>> import tranque
>>> tranque.__version__.count(".") >= 1
True
"""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module 'tranque' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("tranque")
    except PackageNotFoundError:  # run from a source tree that was never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
