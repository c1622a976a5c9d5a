"""The lobby and the quick-match queue: what a socket does before it says hello at a table.

Split from the socket loop (``server.ws``) because it is the club's business, not the edge's:
the checks a ``queue`` passes (the caps on a guest's tables, the cool-down of those who leave
games, a suspension, the stake's chips), the rating a ticket is seated by, and leaving both
when the socket closes. The loop hands it ``lobby``, ``queue`` and ``unqueue`` and goes on.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from tranque.club.cooldown import WINDOW, cooldown_until
from tranque.club.matching import NEUTRAL_RATING, Ticket
from tranque.club.pairs import PairError
from tranque.club.ports import QueueError
from tranque.ledger.stakes import ChipError, TooFewChips, check_stake, cost
from tranque.server.connection import Connection
from tranque.server.edge import client_address
from tranque.server.http_schemas import HttpError
from tranque.server.protocol import Lobby, Queue, Unqueue, error_frame
from tranque.table.owner_frames import frame

if TYPE_CHECKING:
    from tranque.server.state import ServerState

log = logging.getLogger("tranque.server")

PARTY = re.compile(r"^[A-Za-z0-9_-]{8,64}$")  # what ``POST /api/parties`` gives

Who = Callable[[Connection, str], Awaitable["tuple[str, str] | None"]]


class QueueDesk:
    """The lobby's subscriptions and the queue's tickets of this node's sockets."""

    def __init__(self, server: ServerState, who: Who, status: Callable[[Connection], None]) -> None:
        self.server = server
        self.who = who  # the socket's (guest, nickname), or None once told why not
        self.status = status  # where his friends see him changed (queued, or not)

    async def leave(self, conn: Connection) -> None:
        """A closed socket leaves the lobby and the queue: closing the page is leaving."""
        server = self.server
        if conn.in_lobby and server.board is not None:
            conn.in_lobby = False
            server.board.unsubscribe(conn.push)
        if conn.queued and server.quick is not None and conn.guest is not None:
            conn.queued = False
            with contextlib.suppress(Exception):
                await server.quick.leave(conn.guest, conn.tell)

    async def take(self, conn: Connection, msg: Lobby | Queue | Unqueue) -> None:
        """The lobby and the queue: a socket's business before it says hello at a table."""
        server = self.server
        assert server.identity is not None and server.board is not None
        assert server.quick is not None
        match msg:
            case Lobby():
                if not conn.in_lobby:
                    conn.in_lobby = True
                    await server.board.subscribe(conn.push, await self._viewer(conn, msg))
            case Unqueue():
                left = conn.queued and conn.guest is not None
                if left:
                    assert conn.guest is not None
                    left = await server.quick.leave(conn.guest, conn.tell)
                conn.queued = False
                self.status(conn)
                conn.tell({"type": "unqueued", "reason": "left" if left else "not_queued"})
            case Queue():
                await self._queue(conn, msg)

    async def _viewer(self, conn: Connection, msg: Lobby) -> str | None:
        """The account a lobby socket speaks for (his peñas' tables are shown to him), or None:
        no token, a guest's, or one refused (the socket was told why, and sees the public
        tables alone)."""
        if msg.token is None:
            return None
        who = await self.who(conn, msg.token)
        return who[0] if who is not None and conn.session is not None else None

    async def _queue(self, conn: Connection, msg: Queue) -> None:
        """``queue``: checked (the token, the party, the caps, the cool-down, the stake), then
        a ticket for the quick match at the guest's rating (or his pair's)."""
        server = self.server
        assert server.quick is not None
        who = await self.who(conn, msg.token)
        if who is None:
            return
        if msg.party is not None and not PARTY.match(msg.party):
            conn.push(error_frame("bad_party", "a party is the id its link gives"))
            return
        if not await self._may_queue(conn, who[0]) or not await self._cooled(conn, who[0]):
            return
        queue = await self._chip_queue(conn, who[0], msg)
        if queue is None:
            return
        assert self.server.club is not None
        avoid = await self.server.club.mod_rows.avoided(who[0])  # blocks: never seated together
        rating = await self._rating(who[0], msg)
        if msg.party is not None and self.server.pair_routes is not None:
            try:  # a pair's party: the unit is seated by the pair's rating (server.pairs)
                paired = await self.server.pair_routes.queue_rating(who[0], msg.party, msg.variant)
            except PairError as exc:
                conn.push(error_frame(exc.code, exc.message))
                return
            rating = rating if paired is None else paired
        ticket = Ticket(who[0], who[1], queue, time.time(), msg.party, rating, avoid)
        try:
            queued = await server.quick.join(ticket, conn.tell)
        except QueueError as exc:
            conn.push(error_frame(exc.code, exc.message))
            return
        except Exception:
            log.warning("the quick-match queue could not be reached", exc_info=True)
            conn.push(error_frame("unavailable", "the queue cannot be reached now: try again"))
            return
        conn.nickname = who[1]
        conn.queued = True
        self.status(conn)
        queued["variant"], queued["stake"] = msg.variant, msg.stake
        conn.tell(queued)

    async def _may_queue(self, conn: Connection, guest: str) -> bool:
        """A table is on its way for whoever queues: the same rate per address and cap on his
        unfinished tables as a table he creates (server.caps). False once he was told why not."""
        try:
            await self.server.caps.may_queue(guest, client_address(conn.ws.scope))
        except HttpError as exc:
            conn.push(error_frame(exc.code, exc.message))
            return False
        except Exception:
            log.warning("a guest's tables could not be counted", exc_info=True)
            conn.push(error_frame("unavailable", "the queue cannot be reached now: try again"))
            return False
        return True

    async def _cooled(self, conn: Connection, guest: str) -> bool:
        """A person who abandons games waits before the queue takes him again (club.cooldown),
        and one suspended from rated play (moderation) until his suspension ends: every quick
        match is rated. False once he was told until when (``cooling_down`` or ``suspended``,
        with ``until``)."""
        club = self.server.club
        assert club is not None
        now = time.time()
        try:
            until = cooldown_until(await club.profiles.departed_since(guest, now - WINDOW))
            standing = await club.mod_rows.standing(guest)
        except Exception:
            log.warning("a guest's departures could not be read", exc_info=True)
            conn.push(error_frame("unavailable", "the queue cannot be reached now: try again"))
            return False
        code, wait = "cooling_down", "you left games recently: the quick match takes you again"
        if standing.suspended(now):
            code, wait = "suspended", "you are suspended from rated play"
            until = standing.suspended_until if standing.closed is None else None
        elif until is None or until <= now:
            return True
        if until is not None:
            wait += f" in {until - now:.0f} s"
        conn.push(
            frame(
                {"type": "error", "id": None, "code": code, "message": wait, "until": until}
            )
        )  # fmt: skip
        return False

    async def _chip_queue(self, conn: Connection, guest: str, msg: Queue) -> str | None:
        """The queue's name: the variant, or ``variant@stake`` for chip tables, once the guest
        is known to cover the stake (else he is told why not, and None)."""
        if msg.stake is None:
            return msg.variant
        chips = self.server.chips
        assert chips is not None
        try:
            need = cost(check_stake(msg.stake))
            have = await chips.balance(guest)
        except ChipError as exc:
            conn.push(error_frame(exc.code, exc.message))
            return None
        if have < need:
            conn.push(error_frame("too_few_chips", TooFewChips(guest, need, have).message))
            return None
        return f"{msg.variant}@{msg.stake}"

    async def _rating(self, guest: str, msg: Queue) -> float:
        """The guest's rating under the queue's variant (its preset), for seating the closest
        ratings together; the neutral one for a guest not rated yet, or if it cannot be read."""
        club = self.server.club
        try:
            assert club is not None
            skill = (await club.profiles.ratings_of([guest], msg.variant)).get((guest, msg.variant))
        except Exception:
            log.warning("a rating could not be read: queued at the neutral one", exc_info=True)
            return NEUTRAL_RATING
        return NEUTRAL_RATING if skill is None else float(skill.mu)
