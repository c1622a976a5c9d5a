"""``Analyst``: every finished game with people analysed once, in the worker pool.

It watches the database, not the tables: a game is due when its record is saved with people's
plays (``store.settle`` writes them in the same transaction) and it has no ``fair`` analysis row
yet. Watching the rows instead of hooking the table owner means that the game is found by
whichever node looks first, after a restart as well as at once, and that a claim lost with its
node (a crash) is found again, ``stale`` seconds after its last renewal, by any node. The claim is
the row itself (``store.games``): one node wins it, so a game is analysed once across nodes.

Nothing here thinks: each hand is one ``AnalysisRequest`` for ``WorkerPool.analyze`` (behind
every bot's decision, on a bounded number of workers). Without a pool (in-process tools and
tests) a hand is analysed on a thread. The analyst claims a game only while it has a free slot,
so a burst of finished games waits, unclaimed, in the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from tranque.rules.errors import RulesError
from tranque.runtime.analysis_job import AnalysisRequest, run_analysis
from tranque.store.db import Store
from tranque.store.games import FAIR, SqlGames
from tranque.store.moderation import SqlModeration
from tranque.store.screening import SqlScreening

log = logging.getLogger("tranque.analysis")

MATCH = "tranque-match/1"
POLL = 1.0  # seconds between looks at the database for games to analyse
# The share of a core this node's own process may use before a game's analysis waits between
# two hands. On a busy node the workers' analysis, though at the idle scheduling class, took the
# cores' caches and their hardware siblings from the tables: 2,000 tables at one move a second
# had a p99 of 117-223 ms with it running, 49 ms without (docs/server.md). A game's analysis is
# nobody's wait; a hindsight a person asked for is, and never waits for this.
BUSY = 0.5
STALE = 120.0  # seconds without a renewal after which a pending claim is taken over
# Parts (a game's fair analysis, a hand in hindsight) this node holds at once, analysing or
# waiting for a worker. Each holds its record in memory and a request in the pool's queue, and a
# hindsight can be asked by anyone for any hand of any finished game: past this, an ask is
# refused (``AnalysisBusy``) rather than queued for ever. ``serve --analysis-queue``.
QUEUE = 32
RETRY_AFTER = 5  # seconds a refused ask is told to wait: about one hand's analysis

Runner = Callable[[AnalysisRequest], Awaitable[dict[str, Any]]]


async def _on_thread(request: AnalysisRequest) -> dict[str, Any]:
    return await asyncio.to_thread(run_analysis, request)


def games_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``tranque-game/1`` records of a game or match record, in order."""
    if record.get("format") == MATCH:
        return list(record.get("games") or [])
    return [record]


def hindsight_key(part: str) -> tuple[int, int] | None:
    """(game, hand) of a ``hindsight:G:N`` part."""
    bits = part.split(":")
    if len(bits) != 3 or bits[0] != "hindsight":
        return None
    return int(bits[1]), int(bits[2])


class TakenOver(Exception):
    """The claim went to another node (this one was thought dead): it stops."""


class AnalysisBusy(Exception):
    """This node holds as many parts as its queue takes: ask again in ``retry_after`` s."""

    def __init__(self, held: int, retry_after: int = RETRY_AFTER) -> None:
        super().__init__(f"{held} analyses are under way or waiting here")
        self.held = held
        self.retry_after = retry_after


class Analyst:
    def __init__(
        self,
        store: Store,
        thinker: Any,
        node: str,
        *,
        poll: float = POLL,
        stale: float = STALE,
        busy: float = BUSY,
        queue: int = QUEUE,
    ) -> None:
        self.store = store
        self.games = SqlGames(store)
        self.node = node
        self.poll = poll
        self.stale = stale
        analyze = getattr(thinker, "analyze", None)
        self.run: Runner = analyze if analyze is not None else _on_thread
        self.slots = int(getattr(thinker, "analysis_slots", 1))
        self.queue = max(1, queue)
        self.running: dict[tuple[str, str], asyncio.Task[None]] = {}
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.hands_analysed = 0  # requests answered (tests and /health)
        self.busy = busy
        self.load = ProcessLoad()
        self.waits = 0  # times a game's analysis waited for the node to be less busy
        self.stopping = False
        self.screens = SqlScreening(store)
        self.flags = SqlModeration(store)
        self.screened = 0  # games screened by this node (tests and /health)

    def start(self) -> None:
        if self.slots <= 0:
            return  # ``serve --analysis 0``: this node analyses nothing; the others do
        if self.task is None:
            self.stopping = False
            self.task = asyncio.create_task(self._watch(), name="analyst")

    async def close(self) -> None:
        """Stop looking and stop waiting: a part being analysed stays claimed, and is taken
        over once its claim is stale (or at once by this node when it starts again)."""
        self.stopping = True  # the watch ends at its next turn even if a cancellation is lost
        tasks = [t for t in (self.task, *self.running.values()) if t is not None]
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self.task = None
        self.running.clear()

    def figures(self) -> dict[str, int]:
        """What ``/health`` shows: the parts held (analysed, screened or waiting for a worker)
        against the queue, and what this node answered and screened since it started."""
        return {"held": len(self.running), "queue": self.queue,
                "hands_analysed": self.hands_analysed, "screened": self.screened}  # fmt: skip

    def poke(self) -> None:
        """Look now (a game just finished here, or a hindsight was asked)."""
        self.wake.set()

    # -- the watch ----------------------------------------------------------------------------

    async def _watch(self) -> None:
        first = True
        while not self.stopping:
            self.load.share()  # sampled every poll, so that it speaks of the last second
            try:
                await self._look(first)
                first = False
            except asyncio.CancelledError:
                raise
            except Exception:  # the database away: look again later
                log.exception("the analyst could not look for games to analyse")
            self.wake.clear()
            # Not ``asyncio.wait_for``: on Python 3.11 it swallows a cancellation that arrives
            # as the event is set (a part just analysed pokes it), and ``close`` then waited on
            # a watch that went on looking for ever. ``asyncio.timeout`` lets it through.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll):
                    await self.wake.wait()

    def _free(self) -> int:
        return self.slots - len(self.running)

    async def _look(self, first: bool) -> None:
        # This node's own pending claims, at its start, were lost with its last process.
        stale_rows = await self.games.stale(_now() - self.stale, 16)
        if first:
            stale_rows += [r for r in await self.games.stale(_now() + 1, 64) if r.node == self.node]
        for row in stale_rows:
            if self._free() <= 0:
                return
            key = (row.table, row.part)
            if key in self.running:
                continue
            mine = row.node == self.node and first
            if await self.games.claim(
                row.table, row.part, row.seats, self.node, 0 if mine else self.stale
            ):
                self._spawn(row.table, row.part, row.seats)
        while self._free() > 0:
            due = await self.games.unanalysed(self._free())
            if not due:
                return
            for tid in due:
                seats = await self.games.people_seats(tid)
                if await self.games.claim(tid, FAIR, seats, self.node, self.stale):
                    self._spawn(tid, FAIR, seats)
                    # One node won it; another node's claim fails and moves on.

    def _spawn(self, tid: str, part: str, seats: tuple[int, ...]) -> None:
        key = (tid, part)
        task = asyncio.create_task(self._analyse(tid, part, seats), name=f"analysis {tid}")
        self.running[key] = task

        def done(_: asyncio.Task[None]) -> None:
            self.running.pop(key, None)
            self.wake.set()  # a slot is free: look again

        task.add_done_callback(done)

    async def ask(self, tid: str, part: str, seats: tuple[int, ...]) -> bool:
        """Claim ``part`` of a finished table now (a hindsight a person asked for) and analyse
        it; False if it is another node's, or done already. ``AnalysisBusy`` (nothing claimed)
        if this node holds ``queue`` parts already."""
        if (tid, part) in self.running:
            return True
        if self.slots <= 0:
            return False  # left pending for a node that analyses
        if len(self.running) >= self.queue:
            raise AnalysisBusy(len(self.running))
        if await self.games.claim(tid, part, seats, self.node, self.stale):
            self._spawn(tid, part, seats)
            return True
        return False

    # -- one part -----------------------------------------------------------------------------

    async def _analyse(self, tid: str, part: str, seats: tuple[int, ...]) -> None:
        try:
            record = await self.store.load_record(tid)
            if record is None:
                raise ValueError(f"table {tid!r} has no record")
            if part == FAIR:
                result = await self._game(tid, part, record, seats, "fair")
            else:
                where = hindsight_key(part)
                if where is None:
                    raise ValueError(f"no such part {part!r}")
                game, hand = where
                answer = await self._hand(tid, record, seats, "hindsight", hand, game)
                result = {"format": answer["format"], "mode": "hindsight",
                          "game": game, "hands": answer["hands"]}  # fmt: skip
        except asyncio.CancelledError:
            raise
        except TakenOver:
            log.warning("table %s: %s was taken over by another node", tid, part)
            return
        except (RulesError, ValueError, IndexError) as exc:
            log.warning("table %s: %s cannot be analysed: %s", tid, part, exc)
            await self.games.complete(tid, part, self.node, "failed", {"error": str(exc)})
            return
        except Exception as exc:  # the pool gave up on it (every worker died on it)
            log.warning("table %s: the analysis of %s failed: %s", tid, part, exc)
            await self.games.complete(tid, part, self.node, "failed", {"error": str(exc)})
            return
        if not await self.games.complete(tid, part, self.node, "done", result):
            log.warning("table %s: %s was taken over by another node; its result stands", tid, part)
        elif part == FAIR:
            await self._screen(tid, record)

    async def _screen(self, tid: str, record: dict[str, Any]) -> None:
        """The fair-play screen as the service goes (docs/fairplay.md, "Moderation"): the game
        is screened in a worker after its analysis, kept, and the flags are summed again over
        every game kept (on a thread: plain arithmetic, but never the event loop's), so the
        moderators' page shows the flags of every game screened so far. A failure here costs
        the game's screen, never its analysis; ``tranque fairplay screen --db`` reads it again."""
        if not any(record.get("players") or ()):
            return
        from tranque.fairplay.stats import report

        try:
            answer = await self.run(AnalysisRequest(tid, record, (), "screen", 0))
            if not await self.screens.keep(tid, answer):
                return
            result = await asyncio.to_thread(report, await self.screens.screened())
            flagged = [x for k in ("people", "partnerships") for x in result[k] if x["flag"]]
            await self.flags.save_flags(flagged, time.time())
            self.screened += 1  # counted once its flags are kept: what /health says is done
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("table %s: the fair-play screen failed: %s", tid, exc)

    async def _game(
        self, tid: str, part: str, record: dict[str, Any], seats: tuple[int, ...], mode: str
    ) -> dict[str, Any]:
        """Every hand of every game, one request each, the claim renewed after each."""
        out_games = []
        for g, game in enumerate(games_of(record), 1):
            hands = []
            for hand in game.get("hands") or []:
                await self._until_quieter(tid, part)
                answer = await self._hand(tid, record, seats, mode, int(hand["number"]), g)
                hands.extend(answer["hands"])
                if not await self.games.renew(tid, part, self.node):
                    raise TakenOver(part)
            out_games.append({"hands": hands})
        out: dict[str, Any] = {"format": "tranque-analysis/1", "mode": mode}
        if record.get("format") == MATCH:
            out["games"] = out_games
        else:
            out["hands"] = out_games[0]["hands"] if out_games else []
        return out

    async def _until_quieter(self, tid: str, part: str) -> None:
        """Wait while this node's process is busier than ``busy``, keeping the claim."""
        while self.load.share() > self.busy:
            self.waits += 1
            await asyncio.sleep(self.poll)
            if not await self.games.renew(tid, part, self.node):
                raise TakenOver(part)

    async def _hand(
        self,
        tid: str,
        record: dict[str, Any],
        seats: tuple[int, ...],
        mode: str,
        hand: int,
        game: int = 1,
    ) -> dict[str, Any]:
        answer = await self.run(AnalysisRequest(tid, record, seats, mode, hand, game))
        self.hands_analysed += 1
        return answer


class ProcessLoad:
    """This process's CPU share (all its threads) over the last second or so."""

    def __init__(self) -> None:
        self._at, self._cpu = time.monotonic(), time.process_time()
        self._share = 0.0

    def share(self) -> float:
        at, cpu = time.monotonic(), time.process_time()
        if at - self._at >= 1.0:
            self._share = (cpu - self._cpu) / (at - self._at)
            self._at, self._cpu = at, cpu
        return self._share


def _now() -> float:
    return time.time()


__all__ = ["AnalysisBusy", "Analyst", "games_of", "hindsight_key"]
