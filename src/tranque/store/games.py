"""Finished games on SQLAlchemy Core: the history lists and the analyses of the people's plays.

The lists read only ``games`` (a row exists once a table is over and its record saved), so
nothing of a game in progress can leak through them: no hand, no deal, no seed. The newest come
first, paged by a cursor (the last row's ``finished`` and table id) rather than an offset, so a
game that finishes while someone pages does not shift the rows under him.

``analyses`` has one row per table and part (``fair``, or ``hindsight:G:N``). A node *claims* a
part by inserting its row ``pending``; the primary key lets one node win, on SQLite and on
PostgreSQL alike. A pending claim older than ``stale`` seconds is taken over by a
compare-and-set on ``claimed``: the node that held it crashed (its worker never came back).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tranque.rules.record import GUEST_PREFIX
from tranque.store.db import Store
from tranque.store.schema import accounts, analyses, games, guests, plays, rating_changes, tables

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.decode

FAIR = "fair"
SCAN = 200  # rows read per step while looking for public games (the flag is in the JSON)


def hindsight_part(game: int, hand: int) -> str:
    """The part of hand ``hand`` of game ``game`` (both from 1) analysed in hindsight."""
    return f"hindsight:{game}:{hand}"


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page of a newest-first list ends: rows strictly older come next."""

    finished: float
    table: str

    def text(self) -> str:
        return f"{self.finished!r}_{self.table}"

    @staticmethod
    def parse(text: str) -> Cursor:
        """``ValueError`` unless ``text`` is what ``text()`` makes."""
        when, sep, table = text.partition("_")
        if not sep or not table or len(table) > 64:
            raise ValueError(text)
        finished = float(when)
        if finished != finished or finished in (float("inf"), float("-inf")):
            raise ValueError(text)
        return Cursor(finished, table)


@dataclass(frozen=True, slots=True)
class AnalysisRow:
    table: str
    part: str
    status: str
    seats: tuple[int, ...]
    node: str
    claimed: float
    result: Any  # the decoded JSON, or None


def _older(finished: Any, table: Any, cursor: Cursor | None) -> Any:
    if cursor is None:
        return sa.true()
    return sa.or_(
        finished < cursor.finished, sa.and_(finished == cursor.finished, table < cursor.table)
    )


class SqlGames:
    """The reading side of finished games, and the analyses' rows."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- history ------------------------------------------------------------------------------

    async def person_games(
        self, guest: str, limit: int, cursor: Cursor | None
    ) -> list[dict[str, Any]]:
        """A person's finished tables (as a guest or after claiming an account: one id), newest
        first: the seat, the rules' preset, won, rated, the rating change, and who sat where
        (``game_line``: the same line as the public list's)."""
        c = plays.c
        ch = rating_changes.c
        q = (
            sa.select(c.table_id, c.seat, c.preset, c.won, c.rated, c.finished,
                      ch.mu_before, ch.mu_after, tables.c.info)
            .select_from(plays.outerjoin(
                rating_changes, sa.and_(ch.table_id == c.table_id, ch.guest == c.guest))
                .outerjoin(tables, tables.c.id == c.table_id))
            .where(c.guest == guest, _older(c.finished, c.table_id, cursor))
            .order_by(c.finished.desc(), c.table_id.desc())
            .limit(limit)
        )  # fmt: skip
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
            names = await _account_seats(conn, [r.table_id for r in rows])
        return [
            {
                **_with_profiles(
                    game_line(r.table_id, r.finished, _decode(r.info or b"{}")), names
                ),
                "table": r.table_id,
                "seat": r.seat,
                "preset": r.preset,
                "won": bool(r.won),
                "rated": bool(r.rated),
                "change": None if r.mu_after is None else round(r.mu_after) - round(r.mu_before),
                "finished": r.finished,
            }
            for r in rows
        ]

    async def public_games(self, limit: int, cursor: Cursor | None) -> list[dict[str, Any]]:
        """The newest finished games of public tables (a table's ``public`` setting is in its
        info's JSON, so rows are read a batch at a time and the private ones dropped)."""
        out: list[dict[str, Any]] = []
        at = cursor
        while len(out) < limit:
            q = (
                sa.select(games.c.table_id, games.c.finished, tables.c.info)
                .select_from(games.join(tables, tables.c.id == games.c.table_id))
                .where(_older(games.c.finished, games.c.table_id, at))
                .order_by(games.c.finished.desc(), games.c.table_id.desc())
                .limit(SCAN)
            )
            async with self.store._connect() as conn:
                rows = list(await conn.execute(q))
            for r in rows:
                info = _decode(r.info)
                if (info.get("settings") or {}).get("public") is True:
                    out.append(game_line(r.table_id, r.finished, info))
                    if len(out) == limit:
                        break
            if len(rows) < SCAN:
                break
            at = Cursor(rows[-1].finished, rows[-1].table_id)
        async with self.store._connect() as conn:
            names = await _account_seats(conn, [line["table"] for line in out])
        return [_with_profiles(line, names) for line in out]

    async def finished(self, table_id: str) -> float | None:
        q = sa.select(games.c.finished).where(games.c.table_id == table_id)
        async with self.store._connect() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else float(row.finished)

    async def names(self, ids: list[str]) -> dict[str, str | None]:
        """Each guest's account name (None for a guest)."""
        if not ids:
            return {}
        q = (
            sa.select(guests.c.id, accounts.c.name)
            .select_from(guests.outerjoin(accounts, accounts.c.guest == guests.c.id))
            .where(guests.c.id.in_(ids))
        )
        async with self.store._connect() as conn:
            return {r.id: r.name for r in await conn.execute(q)}

    # -- fair play -----------------------------------------------------------------------------

    async def finished_with_people(
        self, after: Cursor | None, limit: int
    ) -> list[tuple[Cursor, dict[str, Any]]]:
        """Finished games with people, oldest first after ``after``, each record with its
        ``players`` (what ``tranque fairplay screen --db`` reads). A record saved before the
        server wrote ``players`` gets them from ``plays``; a guest's handle whose guest has
        claimed an account since becomes the account's name, so a person is one id."""
        has_people = sa.select(plays.c.table_id).where(plays.c.table_id == games.c.table_id)
        newer = (
            sa.true()
            if after is None
            else sa.or_(
                games.c.finished > after.finished,
                sa.and_(games.c.finished == after.finished, games.c.table_id > after.table),
            )
        )
        q = (
            sa.select(games.c.table_id, games.c.finished, games.c.record)
            .where(has_people.exists(), newer)
            .order_by(games.c.finished, games.c.table_id)
            .limit(limit)
        )
        async with self.store._connect() as conn:
            rows = list(await conn.execute(q))
            missing = []
            out = []
            for r in rows:
                record = _decode(r.record)
                if not isinstance(record, dict):
                    continue
                if "players" not in record:
                    missing.append(r.table_id)
                out.append((Cursor(r.finished, r.table_id), record))
            if missing:
                seated = sa.select(plays.c.table_id, plays.c.seat, plays.c.guest).where(
                    plays.c.table_id.in_(missing)
                )
                for p in await conn.execute(seated):
                    for cursor, record in out:
                        if cursor.table == p.table_id and 0 <= p.seat < 4:
                            record.setdefault("players", [None] * 4)[p.seat] = (
                                GUEST_PREFIX + p.guest
                            )
            # A guest who claimed an account since is one person with it: his name.
            ids = {
                who[len(GUEST_PREFIX) :]
                for _, record in out
                for who in record.get("players") or ()
                if isinstance(who, str) and who.startswith(GUEST_PREFIX)
            }
            names: dict[str, str] = {}
            if ids:
                q2 = sa.select(accounts.c.guest, accounts.c.name).where(accounts.c.guest.in_(ids))
                names = {r.guest: r.name for r in await conn.execute(q2)}
            for _, record in out:
                players = record.get("players")
                if isinstance(players, list):
                    record["players"] = [
                        names.get(w[len(GUEST_PREFIX) :], w)
                        if isinstance(w, str) and w.startswith(GUEST_PREFIX)
                        else w
                        for w in players
                    ]
        return out

    # -- analyses -----------------------------------------------------------------------------

    async def people_seats(self, table_id: str) -> tuple[int, ...]:
        """The seats people played at a finished table (``plays``: written with the record)."""
        q = sa.select(plays.c.seat).where(plays.c.table_id == table_id).order_by(plays.c.seat)
        async with self.store._connect() as conn:
            return tuple(sorted({int(r.seat) for r in await conn.execute(q)}))

    async def unanalysed(self, limit: int) -> list[str]:
        """Finished tables with people and no fair analysis row yet, newest first."""
        has_people = sa.select(plays.c.table_id).where(plays.c.table_id == games.c.table_id)
        has_row = sa.select(analyses.c.table_id).where(
            analyses.c.table_id == games.c.table_id, analyses.c.part == FAIR
        )
        q = (
            sa.select(games.c.table_id)
            .where(has_people.exists(), ~has_row.exists())
            .order_by(games.c.finished.desc())
            .limit(limit)
        )
        async with self.store._connect() as conn:
            return [r.table_id for r in await conn.execute(q)]

    async def stale(self, before: float, limit: int) -> list[AnalysisRow]:
        """Pending parts whose claim was last renewed before ``before``."""
        q = (
            sa.select(analyses)
            .where(analyses.c.status == "pending", analyses.c.claimed < before)
            .order_by(analyses.c.claimed)
            .limit(limit)
        )
        async with self.store._connect() as conn:
            return [_row(r) for r in await conn.execute(q)]

    async def claim(
        self, table_id: str, part: str, seats: tuple[int, ...], node: str, stale: float
    ) -> bool:
        """Take the part for ``node``: True if it is now this node's to analyse. A part that
        is done or failed, or pending under a fresh claim, stays as it is."""
        now = time.time()
        text = " ".join(map(str, seats))
        try:
            async with self.store._begin() as conn:
                await conn.execute(
                    analyses.insert().values(
                        table_id=table_id, part=part, status="pending", seats=text,
                        node=node, claimed=now, result=None, updated=now,
                    )
                )  # fmt: skip
            return True
        except IntegrityError:
            pass
        a = analyses.c
        async with self.store._begin() as conn:
            taken = await conn.execute(
                analyses.update()
                .where(a.table_id == table_id, a.part == part, a.status == "pending")
                .where(a.claimed < now - stale)
                .values(node=node, claimed=now, updated=now)
            )
            return bool(taken.rowcount == 1)

    async def renew(self, table_id: str, part: str, node: str) -> bool:
        """Keep the claim fresh (after every hand); False if another node took it over."""
        a = analyses.c
        now = time.time()
        async with self.store._begin() as conn:
            done = await conn.execute(
                analyses.update()
                .where(a.table_id == table_id, a.part == part, a.node == node)
                .where(a.status == "pending")
                .values(claimed=now, updated=now)
            )
            return bool(done.rowcount == 1)

    async def complete(self, table_id: str, part: str, node: str, status: str, result: Any) -> bool:
        """Store the result (``done``) or the failure (``failed``) of this node's claim, once:
        False if the claim was no longer this node's."""
        a = analyses.c
        async with self.store._begin() as conn:
            done = await conn.execute(
                analyses.update()
                .where(a.table_id == table_id, a.part == part, a.node == node)
                .where(a.status == "pending")
                .values(status=status, result=_encode(result).decode(), updated=time.time())
            )
            return bool(done.rowcount == 1)

    async def parts(self, table_id: str) -> list[AnalysisRow]:
        q = sa.select(analyses).where(analyses.c.table_id == table_id).order_by(analyses.c.part)
        async with self.store._connect() as conn:
            return [_row(r) for r in await conn.execute(q)]


def _row(r: Any) -> AnalysisRow:
    seats = tuple(int(s) for s in r.seats.split())
    result = None if r.result is None else _decode(r.result)
    return AnalysisRow(r.table_id, r.part, r.status, seats, r.node, r.claimed, result)


async def _account_seats(conn: Any, table_ids: list[str]) -> dict[tuple[str, int], str]:
    """The account's name of every seat of these finished tables whose person has one (from
    ``plays``): what makes a name in a list a link to a profile. Guests' names are no links:
    their profiles are of a visitor's browser, not of a person others would look up."""
    if not table_ids:
        return {}
    q = (
        sa.select(plays.c.table_id, plays.c.seat, accounts.c.name)
        .select_from(plays.join(accounts, accounts.c.guest == plays.c.guest))
        .where(plays.c.table_id.in_(table_ids))
    )
    return {(r.table_id, r.seat): r.name for r in await conn.execute(q)}


def _with_profiles(line: dict[str, Any], names: dict[tuple[str, int], str]) -> dict[str, Any]:
    """A list's line with each account holder's seat named by the account, with its profile."""
    for s, seat in enumerate(line["seats"]):
        name = names.get((line["table"], s))
        if name is not None and seat.get("kind") == "person":
            seat.update(nickname=name, profile=name)
    return line


def game_line(table_id: str, finished: float, info: dict[str, Any]) -> dict[str, Any]:
    """A finished table in a list: its rules, who sat where, the result. Public facts only."""
    settings = info.get("settings") or {}
    seats = info.get("seats") or []
    result = info.get("result") or {}
    match = info.get("match") or {}
    return {
        "table": table_id,
        "finished": finished,
        "rules": settings.get("rules"),
        "seats": [
            {"nickname": s.get("nickname"), "kind": s.get("kind")}
            for s in seats
            if isinstance(s, dict)
        ],
        "winner": result.get("winner"),
        "pollona": bool(result.get("pollona")),
        "abandoned": bool(info.get("abandoned")),  # ended with no result: its people all left
        "aborted": info.get("aborted"),  # a leave at the start ended it (table.abort)
        "wins": match.get("wins"),
        "page": f"/g/{table_id}",
    }


__all__ = ["FAIR", "AnalysisRow", "Cursor", "SqlGames", "game_line", "hindsight_part"]
