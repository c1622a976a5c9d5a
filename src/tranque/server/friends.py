"""The routes of friends, invitations, notices and privacy (docs/protocol.md §10).

Parse, authenticate, deliver: the decisions are ``club.friends``, the rows ``store.friends``,
the pushes ``server.presence``. Every route needs an account's token (a guest is told
``account_needed``: he plays with friends by a table's link). A person's friends, requests,
notices and privacy are answered to him only; a friend's status is shown only if he lets it.
Every notice is in the database before its frame goes out, so a socket that was away (or on a
node the bus lost a message to) finds it at its next ``notices``.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Protocol

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tranque.club.friends import PAGE, FriendError, parse_privacy
from tranque.club.names import name_key
from tranque.club.presence import LocalPresence, PresenceDirectory
from tranque.club.skeleton import name_skeleton
from tranque.server.club import Club, Who
from tranque.server.edge import read_body
from tranque.server.http_schemas import HttpError, decode_club
from tranque.server.late_routes import GET, POST, late_routes
from tranque.server.presence import ClubNews, presence_frame
from tranque.store.db import Store
from tranque.store.friends import SqlFriends
from tranque.table.bus import Bus
from tranque.table.owner_frames import frame

MAX_NAME = 64  # longer than any account's name: nobody's
MAX_IDS = 100  # notices marked read in one request, at most

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_NAME)]
TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
PartyId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{8,64}$")]  # as the queue takes it


class FriendRequest(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/friends``: ask this account to be friends."""

    name: Name


class Invitation(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/invites``: invite this account to a table (to ``seat``, if given), or to
    the quick match as my partner (``party``: the id ``POST /api/parties`` gave me)."""

    name: Name
    table: TableId | None = None
    seat: Annotated[int, msgspec.Meta(ge=0, le=3)] | None = None
    party: PartyId | None = None


class ReadNotices(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/notices/read``: these notices (None: every one) are read."""

    ids: Annotated[list[int], msgspec.Meta(max_length=MAX_IDS)] | None = None


class FriendRoutes:
    def __init__(self, club: Club, news: ClubNews, store: Store) -> None:
        self.club = club
        self.news = news
        self.rows = news.rows
        self.store = store

    async def _me(self, request: Request) -> Who:
        who = await self.club.who(request)
        if who.session is None:
            raise FriendError(403, "account_needed", "friends need an account: claim a name first")
        return who

    async def _guest_named(self, name: str) -> str:
        account = await self.club.rows.account_by_name(name_key(name), name_skeleton(name))
        if account is None:
            raise FriendError(404, "unknown_account", f"nobody is called {name!r}")
        return account.guest

    async def _notify(self, guest: str, kind: str, body: dict[str, Any]) -> None:
        notice = await self.rows.add_notice(guest, kind, body, time.time())
        self.news.notice(guest, notice, await self.rows.unread(guest))

    # -- friends ----

    async def listing(self, request: Request) -> Response:
        """``GET /api/friends``: my friends (with where each is), and the requests both ways."""
        who = await self._me(request)
        friends = await self.rows.friends_of(who.guest)
        incoming, outgoing = await self.rows.requests_of(who.guest)
        names = await self.rows.names([*friends, *incoming, *outgoing])
        shown = await self.news.shown(friends)
        rows = []
        for g in friends:
            if g not in names:
                continue
            s = shown.get(g)
            rows.append({"name": names[g], "status": s and s.where, "table": s and s.table})
        rows.sort(key=lambda r: (r["status"] is None, str(r["name"]).casefold()))
        return JSONResponse(
            {
                "friends": rows,
                "incoming": [names[g] for g in incoming if g in names],
                "outgoing": [names[g] for g in outgoing if g in names],
            }
        )

    async def ask(self, request: Request) -> Response:
        """``POST /api/friends``: ``sent``, or ``friends`` when he had asked me already."""
        who = await self._me(request)
        body: FriendRequest = decode_club(FriendRequest, await read_body(request))
        other = await self._guest_named(body.name)
        state = await self.news.friends.request(who.guest, other, time.time())
        if state == "sent":
            await self._notify(other, "friend_request", {"from": who.nickname})
        else:
            await self._befriended(who, other)
        return JSONResponse({"state": state})

    async def _befriended(self, who: Who, other: str) -> None:
        """New friends: the one who asked is told, and each learns where the other is."""
        await self._notify(other, "friend_accepted", {"from": who.nickname})
        shown = await self.news.shown([who.guest, other])
        names = await self.rows.names([who.guest, other])
        for a, b in ((who.guest, other), (other, who.guest)):
            if a in names:
                self.news.push([b], presence_frame(names[a], shown.get(a)))

    async def accept(self, request: Request) -> Response:
        who = await self._me(request)
        sender = await self._guest_named(request.path_params["name"])
        await self.news.friends.accept(who.guest, sender, time.time())
        await self._befriended(who, sender)
        return JSONResponse({"state": "friends"})

    async def decline(self, request: Request) -> Response:
        who = await self._me(request)
        sender = await self._guest_named(request.path_params["name"])
        await self.news.friends.decline(who.guest, sender)
        return JSONResponse({"state": "declined"})

    async def remove(self, request: Request) -> Response:
        """``DELETE /api/friends/{name}``: unfriend, or take back my request."""
        who = await self._me(request)
        other = await self._guest_named(request.path_params["name"])
        state = await self.news.friends.remove(who.guest, other)
        if state == "removed":  # neither sees the other any more: off his list at once
            names = await self.rows.names([who.guest, other])
            for a, b in ((who.guest, other), (other, who.guest)):
                if a in names:
                    self.news.push([b], frame({"type": "unfriended", "friend": names[a]}))
        return JSONResponse({"state": state})

    # -- invitations ----

    async def invite(self, request: Request) -> Response:
        """``POST /api/invites``: the invited person's bell, socket and page say so, with the
        table and the seat, if his privacy lets me invite him."""
        who = await self._me(request)
        body: Invitation = decode_club(Invitation, await read_body(request))
        other = await self._guest_named(body.name)
        if (body.table is None) == (body.party is None) or (body.party and body.seat is not None):
            raise HttpError(400, "bad_request", "invite to a table (and seat), or to a party")
        await self.news.friends.may_invite(who.guest, other)
        if body.party is not None:
            await self._notify(other, "invite", {"from": who.nickname, "party": body.party})
            return JSONResponse({"state": "sent"})
        if await self.store.table_status(str(body.table)) != "open":
            raise FriendError(404, "no_table", "that table is not open")
        await self._notify(
            other, "invite", {"from": who.nickname, "table": body.table, "seat": body.seat}
        )
        return JSONResponse({"state": "sent"})

    # -- notices ----

    async def notices(self, request: Request) -> Response:
        """``GET /api/notices?before=ID&limit=N``: a page of my notices, newest first."""
        who = await self._me(request)
        try:
            before = request.query_params.get("before")
            limit = min(PAGE, max(1, int(request.query_params.get("limit", PAGE))))
            since = None if before is None else int(before)
        except ValueError:
            raise HttpError(400, "bad_request", "before and limit are numbers") from None
        page = await self.rows.notices(who.guest, since, limit)
        nxt = page[-1].id if len(page) == limit else None
        return JSONResponse(
            {
                "notices": [n.to_json() for n in page],
                "unread": await self.rows.unread(who.guest),
                "next": nxt,
            }
        )

    async def read(self, request: Request) -> Response:
        """``POST /api/notices/read``: marked read; every socket of mine learns the count."""
        who = await self._me(request)
        body: ReadNotices = decode_club(ReadNotices, await read_body(request))
        await self.rows.mark_read(who.guest, body.ids)
        unread = await self.rows.unread(who.guest)
        self.news.push([who.guest], frame({"type": "unread", "unread": unread}))
        return JSONResponse({"unread": unread})

    # -- privacy ----

    async def privacy(self, request: Request) -> Response:
        """``GET`` (mine) and ``PUT`` (changed, each field optional) ``/api/privacy``."""
        who = await self._me(request)
        now = await self.rows.privacy_of(who.guest)
        if request.method == "PUT":
            raw = decode_club(dict[str, Any], await read_body(request))
            new = parse_privacy(raw, now)
            await self.rows.set_privacy(who.guest, new)
            if new.show_online != now.show_online:
                self.news.touch(who.guest)  # shown or hidden to his friends at once
            now = new
        return JSONResponse({"invites": now.invites, "show_online": now.show_online})


class _HasFriends(Protocol):
    @property
    def friend_routes(self) -> FriendRoutes | None: ...


def friend_routes(server: _HasFriends) -> list[Route]:
    """The routes, bound once the lifespan has made ``server.friend_routes``."""
    return late_routes(
        lambda: server.friend_routes,
        (HttpError, FriendError),
        [
            ("/api/friends", FriendRoutes.listing, GET),
            ("/api/friends", FriendRoutes.ask, POST),
            ("/api/friends/{name}/accept", FriendRoutes.accept, POST),
            ("/api/friends/{name}/decline", FriendRoutes.decline, POST),
            ("/api/friends/{name}", FriendRoutes.remove, ["DELETE"]),
            ("/api/invites", FriendRoutes.invite, POST),
            ("/api/notices", FriendRoutes.notices, GET),
            ("/api/notices/read", FriendRoutes.read, POST),
            ("/api/privacy", FriendRoutes.privacy, ["GET", "PUT"]),
        ],
    )


def club_news(
    store: Store, club: Club, redis: str | None, db_url: str, node: str, bus: Bus | None
) -> tuple[ClubNews, FriendRoutes]:
    """The node's news and the routes: presence on Redis for a cluster, else in this process."""
    directory: PresenceDirectory
    if redis is None:
        directory = LocalPresence()
    else:
        from tranque.runtime.redis_bus import namespace
        from tranque.runtime.redis_presence import RedisPresence

        directory = RedisPresence(redis, namespace(db_url))
    news = ClubNews(SqlFriends(store), directory, node, bus)
    return news, FriendRoutes(club, news, store)
