"""The screen as the service goes: each finished game's per-seat sums (``screen_games``), kept
once its fair analysis is done, and read back, oldest first, with each person under one id.

A guest's handle (``~`` and his id) whose guest has claimed an account since is read as the
account's name, as ``SqlGames.finished_with_people`` does for the command: the same games give
the command and the service the same figures.
"""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tranque.rules.record import GUEST_PREFIX
from tranque.store.db import Store
from tranque.store.schema import accounts, games, screen_games

_decode = msgspec.json.decode
_encode = msgspec.json.encode


class SqlScreening:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def keep(self, table_id: str, result: dict[str, Any]) -> bool:
        """The game's screen, once (False: kept already, by this node or another)."""
        q = sa.select(games.c.finished).where(games.c.table_id == table_id)
        try:
            async with self.store._begin() as conn:
                finished = (await conn.execute(q)).scalar_one_or_none()
                if finished is None:
                    return False
                await conn.execute(
                    screen_games.insert().values(
                        table_id=table_id, finished=finished, result=_encode(result).decode()
                    )
                )
        except IntegrityError:
            return False
        return True

    async def screened(self) -> list[dict[str, Any]]:
        """Every kept screen, oldest game first, its players read as one id per person."""
        q = sa.select(screen_games.c.result).order_by(
            screen_games.c.finished, screen_games.c.table_id
        )
        async with self.store._connect() as conn:
            out = [_decode(r.result) for r in await conn.execute(q)]
            ids = {
                w[len(GUEST_PREFIX) :]
                for s in out
                for w in s.get("players") or ()
                if isinstance(w, str) and w.startswith(GUEST_PREFIX)
            }
            names: dict[str, str] = {}
            if ids:
                q2 = sa.select(accounts.c.guest, accounts.c.name).where(accounts.c.guest.in_(ids))
                names = {r.guest: r.name for r in await conn.execute(q2)}
        for s in out:
            if isinstance(s.get("players"), list):
                s["players"] = [
                    names.get(w[len(GUEST_PREFIX) :], w)
                    if isinstance(w, str) and w.startswith(GUEST_PREFIX)
                    else w
                    for w in s["players"]
                ]
        return out
