"""tranque: Cuban dominoes on the double-nine set.

``tranque.rules`` is the rules engine (standard library only); ``tranque.fair`` the verifiable
deals. The version is the installed package's:

>>> import tranque
>>> tranque.__version__.count(".") >= 1
True
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tranque")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
