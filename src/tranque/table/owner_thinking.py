"""The owner's side of a bot's decision: the request out with the ``Thinker``, its answer, and a
failed decision asked again.

A mixin of ``TableOwner`` (table/owner.py), apart from it because it is the one part of the owner
that waits on somebody else: one request per table is out at a time, the owner goes on serving
its inbox meanwhile, and an answer becomes an entry only if the table still asks the same
question (a late answer to an old question is dropped). What a bot decides is table/thinking.py.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from tranque.rules.errors import RulesError
from tranque.table.due import answer_request
from tranque.table.ports import Entry, Thinker, ThinkRequest
from tranque.table.service import TableService

log = logging.getLogger("tranque.table")

RETRY_AFTER = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)  # seconds between tries of a failed decision


class OwnerThinking:
    """The thinking half of ``TableOwner`` (see there for the state it reads)."""

    service: TableService
    thinker: Thinker
    # The request out with the thinker, and the answer back from it not yet applied.
    thinking: tuple[ThinkRequest, asyncio.Task[None]] | None
    answered: tuple[ThinkRequest, str | bool] | None

    @property
    def table_id(self) -> str:
        raise NotImplementedError  # TableOwner's

    def _put(self, item: tuple[Any, ...]) -> None:
        raise NotImplementedError  # TableOwner's inbox

    def _thought(self, request: ThinkRequest, now: float) -> Entry | None:
        """The entry of the decision ``request`` asks for if its answer is here; else send the
        request to the thinker (unless it is already out) and return None."""
        answered = self.answered
        if answered is not None and _same(answered[0], request):
            self.answered = None
            try:
                # None: a silent answer (a bot's "no" to a deal on show), nothing to log.
                return answer_request(self.service, request, answered[1], now)
            except (RulesError, ValueError):
                log.exception("table %s: a bot's answer does not fit; asking again", self.table_id)
        if self.thinking is not None and _same(self.thinking[0], request):
            return None
        self._forget_thinking()  # the table moved on: a late answer to the old question is dropped
        task = asyncio.create_task(self._think(request), name=f"think {self.table_id}")
        self.thinking = (request, task)
        return None

    async def _think(self, request: ThinkRequest) -> None:
        # A failed decision (the pool gave up on it) is asked again, later and later: the table
        # waits for its bot rather than play a move nobody thought about.
        failures = 0
        while True:
            try:
                answer = await self.thinker.decide(request)
            except asyncio.CancelledError:
                raise
            except Exception:
                wait = RETRY_AFTER[min(failures, len(RETRY_AFTER) - 1)]
                failures += 1
                log.exception("table %s: a decision failed; again in %.1f s", self.table_id, wait)
                await asyncio.sleep(wait)
                continue
            self._put(("thought", request, answer))
            return

    def _forget_thinking(self) -> None:
        self.answered = None
        if self.thinking is not None:
            self.thinking[1].cancel()
            self.thinking = None


def _same(a: ThinkRequest, b: ThinkRequest) -> bool:
    """The same question: same key (position version, seat, kind, bot, seed) and the same view."""
    return a is b or (a.key == b.key and a.view == b.view)
