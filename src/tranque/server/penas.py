"""The routes of peñas (docs/club.md, "Peñas"): found one, join, leave, the admins' answers,
the founder's promotions, hand-over and dissolution, the board, and a peña's page.

Parse, authenticate, deliver: the decisions are ``club.penas``, the rows ``store.penas``, the
notices ``server.friends``' bell (``server.presence``: pushed to the person's sockets on
whichever node they are). Everything that changes a peña needs an account (a guest is told
``account_needed``); a peña's page and the list of peñas are public and show account names
only (never a guest id). A peña's tables are shown to its members alone.
"""

from __future__ import annotations

import contextlib
import time
from typing import Annotated, Any, Protocol

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tranque.club.lobby import LobbyBoard
from tranque.club.names import name_key
from tranque.club.penas import EMBLEMS, MAX_DESCRIPTION, MAX_POST, Pena, PenaError, Penas, Role
from tranque.club.ratings import PRESETS
from tranque.club.skeleton import name_skeleton
from tranque.server.club import Club, Who
from tranque.server.edge import read_body
from tranque.server.http_schemas import HttpError, decode_club
from tranque.server.late_routes import GET, POST, late_routes
from tranque.server.presence import ClubNews
from tranque.store.penas import SqlPenas

MAX_NAME = 64
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_NAME)]


class NewPena(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/penas``: found a peña."""

    name: Name
    description: Annotated[str, msgspec.Meta(max_length=MAX_DESCRIPTION * 4)] = ""
    open: bool = True
    emblem: Annotated[str, msgspec.Meta(max_length=16)] = EMBLEMS[0]


class Invitation(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/penas/{name}/invite``: invite this account."""

    name: Name


class Post(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/penas/{name}/board``: a post on the board (plain text)."""

    text: Annotated[str, msgspec.Meta(max_length=MAX_POST * 4)]


class PenaRoutes:
    def __init__(self, club: Club, news: ClubNews, rows: SqlPenas, board: LobbyBoard) -> None:
        self.club = club
        self.news = news
        self.rows = rows
        self.board = board
        self.penas = Penas(rows)

    async def _me(self, request: Request) -> Who:
        who = await self.club.who(request)  # 401 without a valid token
        if who.session is None:
            raise PenaError(403, "account_needed", "peñas need an account: claim a name first")
        return who

    async def _guest_named(self, name: str) -> str:
        if len(name) > MAX_NAME:
            raise PenaError(404, "unknown_account", "nobody is called so")
        account = await self.club.rows.account_by_name(name_key(name), name_skeleton(name))
        if account is None:
            raise PenaError(404, "unknown_account", f"nobody is called {name!r}")
        return account.guest

    async def _notify(self, guests: list[str], kind: str, body: dict[str, Any]) -> None:
        """Each one's bell (kept first, then pushed to his sockets, on any node)."""
        for guest in guests:
            notice = await self.news.rows.add_notice(guest, kind, body, time.time())
            self.news.notice(guest, notice, await self.news.rows.unread(guest))

    async def _admins(self, pena: Pena) -> list[str]:
        return [g for g, role in await self.rows.members(pena.id) if role != "member"]

    # -- changing a peña ----

    async def found(self, request: Request) -> Response:
        """``POST /api/penas``: the founder is its first member."""
        who = await self._me(request)
        body: NewPena = decode_club(NewPena, await read_body(request))
        pena = await self.penas.found(
            who.guest, body.name, body.description, body.open, body.emblem, time.time()
        )
        return JSONResponse({"state": "founded", "pena": pena.name})

    async def join(self, request: Request) -> Response:
        """``joined`` at once (an open peña, or an invitation), else ``requested``: every admin's
        bell says so."""
        who = await self._me(request)
        pena, state = await self.penas.join(who.guest, request.path_params["name"], time.time())
        self.board.members_changed(pena.name)
        if state == "requested":
            await self._notify(
                await self._admins(pena), "pena_request", {"from": who.nickname, "pena": pena.name}
            )
        return JSONResponse({"state": state, "pena": pena.name})

    async def leave(self, request: Request) -> Response:
        who = await self._me(request)
        pena, state = await self.penas.leave(who.guest, request.path_params["name"])
        self.board.members_changed(pena.name)
        return JSONResponse({"state": state, "pena": pena.name})

    async def accept(self, request: Request) -> Response:
        who = await self._me(request)
        person = await self._guest_named(request.path_params["person"])
        pena = await self.penas.accept(who.guest, request.path_params["name"], person, time.time())
        self.board.members_changed(pena.name)
        await self._notify([person], "pena_accepted", {"from": who.nickname, "pena": pena.name})
        return JSONResponse({"state": "member", "pena": pena.name})

    async def invite(self, request: Request) -> Response:
        """``POST /api/penas/{name}/invite``: the invited person's bell says so; he joins with
        ``join``. One who had asked already is a member at once."""
        who = await self._me(request)
        body: Invitation = decode_club(Invitation, await read_body(request))
        person = await self._guest_named(body.name)
        name = request.path_params["name"]
        was = await self.rows.pending((await self.penas.get(name)).id, person)
        pena = await self.penas.invite(who.guest, name, person, time.time())
        self.board.members_changed(pena.name)
        kind, state = (
            ("pena_accepted", "member") if was == "request" else ("pena_invite", "invited")
        )
        await self._notify([person], kind, {"from": who.nickname, "pena": pena.name})
        return JSONResponse({"state": state, "pena": pena.name})

    async def remove(self, request: Request) -> Response:
        who = await self._me(request)
        person = await self._guest_named(request.path_params["person"])
        pena, state = await self.penas.remove(who.guest, request.path_params["name"], person)
        self.board.members_changed(pena.name)
        return JSONResponse({"state": state, "pena": pena.name})

    async def promote(self, request: Request) -> Response:
        return await self._role(request, True)

    async def demote(self, request: Request) -> Response:
        return await self._role(request, False)

    async def _role(self, request: Request, up: bool) -> Response:
        who = await self._me(request)
        person = await self._guest_named(request.path_params["person"])
        pena = await self.penas.promote(who.guest, request.path_params["name"], person, up)
        return JSONResponse({"state": "admin" if up else "member", "pena": pena.name})

    async def post(self, request: Request) -> Response:
        """``POST /api/penas/{name}/board``: an admin's post, plain text (pages show it
        escaped)."""
        who = await self._me(request)
        body: Post = decode_club(Post, await read_body(request))
        pena = await self.penas.post(who.guest, request.path_params["name"], body.text, time.time())
        return JSONResponse({"state": "posted", "pena": pena.name})

    async def hand_over(self, request: Request) -> Response:
        """``POST /api/penas/{name}/founder`` with an admin's ``name``: he founds it now, the
        old founder stays as an admin; the new founder's bell says so."""
        who = await self._me(request)
        body: Invitation = decode_club(Invitation, await read_body(request))
        heir = await self._guest_named(body.name)
        pena = await self.penas.hand_over(who.guest, request.path_params["name"], heir)
        await self._notify([heir], "pena_founder", {"from": who.nickname, "pena": pena.name})
        return JSONResponse({"state": "handed_over", "pena": pena.name, "founder": body.name})

    async def dissolve(self, request: Request) -> Response:
        """``DELETE /api/penas/{name}``: the founder ends it; every other member's bell says
        so. Its tables are left as they are (docs/club.md: nobody new sits there)."""
        who = await self._me(request)
        pena, members = await self.penas.dissolve(who.guest, request.path_params["name"])
        self.board.members_changed(pena.name)
        others = [g for g in members if g != who.guest]
        await self._notify(others, "pena_dissolved", {"from": who.nickname, "pena": pena.name})
        return JSONResponse({"state": "dissolved", "pena": pena.name})

    async def host(self, who: Who, name: str) -> str:
        """The peña's name as its tables keep it, for a member opening one (``POST
        /api/tables`` with ``pena``); a guest or a non-member is refused."""
        if who.session is None:
            raise PenaError(403, "account_needed", "peñas need an account: claim a name first")
        return (await self.penas.may_host(who.guest, name)).name

    async def is_member(self, pena: str, guest: str) -> bool:
        return await self.rows.is_member(pena, guest)

    # -- what everybody may read ----

    async def listing(self, request: Request) -> Response:
        """``GET /api/penas``: every peña, the biggest first."""
        return JSONResponse({"penas": await self.rows.listing(), "emblems": list(EMBLEMS)})

    async def mine(self, request: Request) -> Response:
        """``GET /api/me/penas``: mine (with my role), and the invitations and requests."""
        who = await self._me(request)
        return JSONResponse({"penas": await self.rows.of(who.guest)})

    async def page(self, request: Request) -> Response:
        """``GET /api/penas/{name}``: its members (online first), board, leaderboard per preset,
        pairs and recent games; its tables and pending requests for its members only."""
        pena = await self.penas.get(request.path_params["name"])
        members = await self.rows.members(pena.id)
        guests = [g for g, _ in members]
        names = await self.rows.names(guests)
        shown = await self.news.shown(guests)
        who = None
        with contextlib.suppress(HttpError):  # a page anybody may read: a visitor has no token
            who = await self.club.who(request)
        me = who.guest if who is not None else None
        my_role: Role | None = dict(members).get(me) if me is not None else None
        ranked: list[tuple[bool, int, str, dict[str, Any]]] = []
        for g, role in members:
            if g not in names:
                continue  # a closed account leaves the list
            s = shown.get(g)
            line = {"name": names[g], "role": role, "status": s and s.where}
            ranked.append((s is None, ROLE_ORDER[role], names[g].casefold(), line))
        people = [line for *_, line in sorted(ranked, key=lambda r: r[:3])]  # online first
        out: dict[str, Any] = {
            "name": pena.name,
            "description": pena.description,
            "open": pena.open,
            "emblem": pena.emblem,
            "founder": names.get(pena.founder),
            "created": pena.created,
            "members": people,
            "me": my_role or (await self.rows.pending(pena.id, me) if me is not None else None),
            "board": await self.rows.board(pena.id),
            "leaderboards": {p: await self.rows.leaderboard(guests, p) for p in PRESETS},
            "pairs": await self.rows.pairs_of(guests),
            "recent": await self.rows.recent(guests),
        }
        if my_role is not None:
            out["tables"] = await self.board.listing(pena.name)
            if my_role != "member":
                pend = await self.rows.pendings(pena.id)
                pnames = await self.rows.names([g for g, _ in pend])
                out["pending"] = [{"name": pnames[g], "kind": k} for g, k in pend if g in pnames]
        return JSONResponse(out)


ROLE_ORDER = {"founder": 0, "admin": 1, "member": 2}


class _HasPenas(Protocol):
    @property
    def pena_routes(self) -> PenaRoutes | None: ...


def pena_routes(server: _HasPenas) -> list[Route]:
    """The routes, bound once the lifespan has made ``server.pena_routes``."""
    return late_routes(
        lambda: server.pena_routes,
        (HttpError, PenaError),
        [
            ("/api/penas", PenaRoutes.listing, GET),
            ("/api/penas", PenaRoutes.found, POST),
            ("/api/me/penas", PenaRoutes.mine, GET),
            ("/api/penas/{name}", PenaRoutes.page, GET),
            ("/api/penas/{name}", PenaRoutes.dissolve, ["DELETE"]),
            ("/api/penas/{name}/founder", PenaRoutes.hand_over, POST),
            ("/api/penas/{name}/join", PenaRoutes.join, POST),
            ("/api/penas/{name}/leave", PenaRoutes.leave, POST),
            ("/api/penas/{name}/invite", PenaRoutes.invite, POST),
            ("/api/penas/{name}/board", PenaRoutes.post, POST),
            ("/api/penas/{name}/accept/{person}", PenaRoutes.accept, POST),
            ("/api/penas/{name}/remove/{person}", PenaRoutes.remove, POST),
            ("/api/penas/{name}/promote/{person}", PenaRoutes.promote, POST),
            ("/api/penas/{name}/demote/{person}", PenaRoutes.demote, POST),
        ],
    )
