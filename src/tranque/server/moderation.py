"""The moderation's HTTP routes: the moderators' page and actions, players' reports and blocks.

Parse, authenticate, deliver: who may do what is ``moderation.rules``, the rows
``store.moderation``. What players send about others (reports, and whom they block) never
leaves the server but to moderators, and a person's own blocks to himself: ``GET /api/mod``
answers 403 to anyone without the role, and no other answer carries a report, a reporter or a
flag. People are named by their profile handles (an account's name, or ``~`` and a guest id).
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tranque.moderation.rules import ModerationError
from tranque.moderation.service import COMMAND, Moderation
from tranque.server import http_schemas as hs
from tranque.server.club import Club, Who, _refusal, profile_handle
from tranque.server.edge import read_body
from tranque.server.http_schemas import HttpError
from tranque.server.late_routes import GET, POST, late_routes
from tranque.store.moderation import SqlModeration


class _HasModeration(Protocol):
    @property
    def mod(self) -> ModRoutes | None: ...


def _refused(exc: HttpError | ModerationError) -> JSONResponse:
    if isinstance(exc, ModerationError):
        exc = HttpError(exc.status, exc.code, exc.message)
    return _refusal(exc)


class ModRoutes:
    def __init__(self, club: Club, rows: SqlModeration) -> None:
        self.club = club
        self.rows = rows
        self.moderation = Moderation(rows)

    async def _person(self, handle: str) -> str:
        guest = await self.club._guest_of(handle)
        if guest is None or await self.club.profiles.person(guest) is None:
            raise HttpError(404, "no_profile", f"nobody is called {handle!r}")
        return guest

    async def _moderator(self, request: Request) -> Who:
        who = await self.club.who(request)
        if not await self.moderation.is_moderator(who.guest):
            raise HttpError(403, "not_moderator", "only moderators may see this")
        return who

    async def _people(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        names = await self.rows.names(ids)
        out: dict[str, dict[str, Any]] = {}
        for g in ids:
            name, nickname = names.get(g, (None, g))
            out[g] = {"profile": profile_handle(g, name), "nickname": name or nickname}
        out[COMMAND] = {"profile": None, "nickname": COMMAND}
        return out

    async def page(self, request: Request) -> Response:
        """``GET /api/mod``: flags not reviewed with their people's games, open reports by
        person, who is suspended or closed, the log's latest lines. Moderators only."""
        try:
            await self._moderator(request)
        except HttpError as exc:
            return _refused(exc)
        now = time.time()
        got = await self.rows.page(now)
        flags = []
        for f in got["flags"]:
            handles = f["subject"].split("+")
            guests = [await self.club._guest_of(h) for h in handles]
            known = [g for g in guests if g is not None]
            games = await self.rows.games_of(known) if len(known) == len(guests) else []
            flags.append(
                {"subject": f["subject"], "kind": f["kind"], "people": handles,
                 "reasons": f["stats"].get("reasons", []), "stats": f["stats"],
                 "screened": f["screened"], "games": games}
            )  # fmt: skip
        by_target: dict[str, list[dict[str, Any]]] = {}
        for r in got["reports"]:
            by_target.setdefault(r["target"], []).append(r)
        ids = [
            *by_target,
            *(r["reporter"] for r in got["reports"]),
            *(s["guest"] for s in got["standing"]),
            *(e["moderator"] for e in got["log"]),
            *(e["target"] for e in got["log"]),
        ]
        people = await self._people(list(dict.fromkeys(ids)))
        reports = [
            {
                "person": people[t],
                "count": len(rs),
                "reasons": dict(Counter(r["reason"] for r in rs)),
                "latest": rs[0]["ts"],
                "reporters": [people[r["reporter"]] for r in rs],
                "tables": [r["table"] for r in rs if r["table"]],
                "games": await self.rows.games_of([t]),
            }
            for t, rs in by_target.items()
        ]
        reports.sort(key=lambda r: (-r["count"], -r["latest"]))
        standing = [
            {"person": people[s["guest"]], "suspended_until": s["suspended_until"],
             "closed": s["closed"], "warnings": s["warnings"]}
            for s in got["standing"]
        ]  # fmt: skip
        log = [
            {**e, "moderator": people[e["moderator"]],
             "target": people.get(e["target"], {"profile": None, "nickname": e["target"]})}
            for e in got["log"]
        ]  # fmt: skip
        return JSONResponse(
            {"flags": flags, "reports": reports, "standing": standing, "log": log, "now": now}
        )

    async def act(self, request: Request) -> Response:
        """``POST /api/mod/actions``: review, warn, suspend (hours), lift, close; logged."""
        try:
            who = await self._moderator(request)
            body = hs.decode(hs.ModAction, await read_body(request))
            target = await self._person(body.person)
            entry = await self.moderation.act(
                who.guest, target, body.action, body.reason, time.time(), body.hours,
                body.subject,
            )  # fmt: skip
        except (HttpError, ModerationError) as exc:
            return _refused(exc)
        if entry.action == "close":
            # His sockets close on every node, as after a logout everywhere.
            self.club._ended(target, None)
        return JSONResponse(
            {"action": entry.action, "person": body.person, "reason": entry.reason,
             "until": entry.until, "ts": entry.ts}
        )  # fmt: skip

    async def report(self, request: Request) -> Response:
        """``POST /api/reports``: a player reports a person; seen by moderators only."""
        try:
            who = await self.club.who(request)
            body = hs.decode(hs.NewReport, await read_body(request))
            target = await self._person(body.person)
            await self.moderation.report(who.guest, target, body.reason, body.table, time.time())
        except (HttpError, ModerationError) as exc:
            return _refused(exc)
        return JSONResponse({"reported": True})

    async def blocks(self, request: Request) -> Response:
        """``GET /api/blocks``: whom the bearer blocks (his own list only)."""
        try:
            who = await self.club.who(request)
        except HttpError as exc:
            return _refused(exc)
        ids = await self.rows.blocked_by(who.guest)
        people = await self._people(ids)
        return JSONResponse({"blocked": [people[g] for g in ids]})

    async def block(self, request: Request) -> Response:
        """``POST /api/blocks`` (block) and ``DELETE /api/blocks/{handle}`` (unblock)."""
        on = request.method == "POST"
        try:
            who = await self.club.who(request)
            if on:
                handle = hs.decode(hs.NewBlock, await read_body(request)).person
            else:
                handle = request.path_params["handle"]
            target = await self._person(handle)
            changed = await self.moderation.block(who.guest, target, on, time.time())
        except (HttpError, ModerationError) as exc:
            return _refused(exc)
        return JSONResponse({"person": handle, "blocked": on, "changed": changed})


def mod_routes(server: _HasModeration) -> list[Route]:
    """The routes, bound once the lifespan has made ``server.mod`` (each answers its own
    refusals, so none is left to the binding)."""
    return late_routes(
        lambda: server.mod,
        (),
        [
            ("/api/mod", ModRoutes.page, GET),
            ("/api/mod/actions", ModRoutes.act, POST),
            ("/api/reports", ModRoutes.report, POST),
            ("/api/blocks", ModRoutes.blocks, GET),
            ("/api/blocks", ModRoutes.block, POST),
            ("/api/blocks/{handle}", ModRoutes.block, ["DELETE"]),
        ],
    )


__all__ = ["ModRoutes", "mod_routes"]
