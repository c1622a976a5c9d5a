"""The Bot protocol, the registry of bots by name, and the random bot.

A bot takes every decision a player takes, each from the seat's own ``SeatView`` only: which tile
to play and where, Salgo / Sal tú, whether to ask for a redeal. Bots are deterministic given their
seed and what they are shown, so two positions that look the same to a seat get the same decision.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from tranque.rules.game import LeadChoice
from tranque.rules.hand import Action
from tranque.rules.views import SeatView


class Bot(Protocol):
    name: str

    def choose_action(self, view: SeatView) -> Action:
        """A legal action from ``view.legal`` (called only on the seat's turn)."""
        ...

    def choose_lead(self, view: SeatView) -> LeadChoice:
        """Salgo or Sal tú, when the seat's pair has the right to lead."""
        ...

    def ask_redeal(self, view: SeatView) -> bool:
        """Whether to show 5+ doubles and ask for a redeal."""
        ...


class RandomBot:
    """Uniformly random legal moves; the baseline every other bot must beat."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose_action(self, view: SeatView) -> Action:
        return self.rng.choice(view.legal)

    def choose_lead(self, view: SeatView) -> LeadChoice:
        return self.rng.choice((LeadChoice.SALGO, LeadChoice.SAL_TU))

    def ask_redeal(self, view: SeatView) -> bool:
        return self.rng.random() < 0.5


_REGISTRY: dict[str, Callable[[int | None], Bot]] = {"random": RandomBot}


def register_bot(name: str, factory: Callable[[int | None], Bot]) -> None:
    _REGISTRY[name] = factory


def bot_names() -> list[str]:
    _load_all()
    return sorted(_REGISTRY)


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A new bot by name (``random``, ``heuristic``, ``strong``, ...)."""
    home = _HOMES.get(name)
    if name not in _REGISTRY and home is not None:
        _load(home)
    elif name not in _REGISTRY:
        _load_all()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        extra = " (the others need the 'bots' extra: pip install 'tranque[bots]')"
        raise ValueError(
            f"unknown bot {name!r}; known: {known}{extra if _UNLOADED else ''}"
        ) from None
    return factory(seed)


# Bot modules that could not be imported because a third-party package (numpy, numba) is missing.
_UNLOADED: set[str] = set()

# The levels people choose (Fácil / Normal / Fuerte) and the bot that plays each.
LEVELS: dict[str, str] = {"facil": "facil", "normal": "heuristic", "fuerte": "strong"}


def resolve_bot(name_or_level: str) -> str:
    """The bot's name for a level (``facil``, ``normal``, ``fuerte``) or a bot's own name.

    Raises ValueError, naming the levels and the bots, for anything else.
    """
    name = LEVELS.get(name_or_level, name_or_level)
    if name in _REGISTRY or (name in _HOMES and _has_bots_extra()):
        return name  # known without importing it: the server that checks names never thinks
    _load_all()
    if name in _REGISTRY:
        return name
    raise ValueError(
        f"unknown bot or level {name_or_level!r}; levels: {', '.join(LEVELS)}; "
        f"bots: {', '.join(sorted(_REGISTRY))}"
    )


def _load_all() -> None:
    # Bots other than random live in their own modules and register on import. Without the
    # 'bots' extra (numpy, numba) only random is there: a missing third-party package is skipped.
    for module in dict.fromkeys(_HOMES.values()):
        _load(module)


# Where each bot beyond random lives, so that a name is known (and a module imported) only when
# asked for: a module registers its bots when it is imported.
_HOMES: dict[str, str] = {
    "greedy": "tranque.bots.heuristic",
    "heuristic": "tranque.bots.heuristic",
    "facil": "tranque.bots.facil",
    "strong": "tranque.bots.strong",
    "strong-slow": "tranque.bots.strong",
}


def _has_bots_extra() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("numpy", "numba"))


def _load(module: str) -> None:
    import importlib

    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return
        if exc.name is None or exc.name.partition(".")[0] == "tranque":
            raise
        _UNLOADED.add(module)
