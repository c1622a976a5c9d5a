"""What a bot decides for a ``ThinkRequest`` (pure), and the in-process ``Thinker``.

``think`` is the one function a worker runs: it builds the named bot with the request's seed and
asks it the one question. The answer is plain data (a move's text, a lead choice's value, a bool)
so it crosses a process boundary as easily as the request did. ``ThreadThinker`` runs ``think``
on a thread: off the event loop, for unit tests and tools; ``tranque serve`` uses the process
pool of ``runtime.pool``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from tranque.bots.base import make_bot
from tranque.rules.views import SeatView
from tranque.table.ports import Entry, ThinkRequest

if TYPE_CHECKING:
    from tranque.table.service import TableService

log = logging.getLogger("tranque.table")


def think(request: ThinkRequest) -> str | bool:
    """The bot's answer to the request: deterministic given the request."""
    view: SeatView = request.view
    bot = make_bot(request.bot, request.seed)
    match request.kind:
        case "action":
            action = bot.choose_action(view)
            if action not in view.legal:  # a bot's bug must not become an illegal move
                log.error("bot %s chose %s, not legal; playing its first legal", bot.name, action)
                action = view.legal[0]
            return str(action)
        case "lead":
            return bot.choose_lead(view).value
        case "redeal":
            return bool(bot.ask_redeal(view))
        case _:
            raise ValueError(f"no decision of kind {request.kind!r}")


def warm_up() -> None:
    """Load the bots' kernels now (from numba's on-disk cache), not during a decision."""
    from tranque.bots.heuristic import HeuristicBot
    from tranque.bots.strong import StrongBot

    HeuristicBot(0).warm_up()
    StrongBot(0).warm_up()


class ThreadThinker:
    """Thinks on a thread of this process: off the event loop (numba kernels hold the GIL, so
    for a server use the process pool)."""

    async def decide(self, request: ThinkRequest) -> str | bool:
        return await asyncio.to_thread(think, request)


def due_here(service: TableService, now: float) -> Entry | None:
    """``service.due(now)`` with any decision thought out right here, on this thread.

    For drivers that own no event loop (unit tests, offline tools); never for a server's loop.
    """
    while True:
        made = service.due(now)
        if not isinstance(made, ThinkRequest):
            return made
        entry = service.answer(made, think(made), now)
        if entry is not None:
            return entry
        # A silent answer (a bot's "no" to a deal on show): nothing logged; what is next?
