"""Friends: requests and their answers, each person's privacy, and the notices of the bell.

Logic only: the rows are behind ``FriendRows`` (``store.friends``), and what reaches a socket is
the server's (``server.friends``). Friends need an account on both sides: a guest plays with
friends by a table's link, as before, and is told so (``account_needed``) if he asks for more.
Every refusal is a ``FriendError`` (a status, a code and a sentence), decided before anything
is written: a request to oneself, to nobody, twice, or to a friend already changes nothing.

Presence (who is online and where) ranks a person's sockets: at a table as a player beats
waiting in the queue, which beats watching a table, which beats an open page. A person who
hides his status is shown to nobody, his friends included.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

Invites = Literal["everyone", "friends", "nobody"]
INVITES: tuple[Invites, ...] = ("everyone", "friends", "nobody")
NOTICE_KINDS = (
    "friend_request", "friend_accepted", "invite",
    "pair_proposal", "pair_formed", "pair_declined", "pair_dissolved",  # club.pairs
    "pena_request", "pena_invite", "pena_accepted", "pena_founder", "pena_dissolved",  # penas
    "tournament_table",  # server.tournament_runner: your table of a round is ready
)  # fmt: skip
PAGE = 20  # notices in a page, by default and at most
MAX_FRIENDS = 500  # a person's friends and pending requests, at most

# Where a person is, most engaged first (``best``): at a table, in the queue, watching, online.
STATUSES = ("playing", "queued", "watching", "online")


class FriendError(Exception):
    """A refused request about friends, notices or privacy: an HTTP status, a code, a sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True, slots=True)
class Privacy:
    """Who may invite the person to a table, and whether his friends see him online."""

    invites: Invites = "everyone"
    show_online: bool = True

    def may_invite(self, friends: bool) -> bool:
        return self.invites == "everyone" or (self.invites == "friends" and friends)


@dataclass(frozen=True, slots=True)
class Notice:
    """One entry of a person's bell."""

    id: int
    kind: str
    body: dict[str, Any]
    created: float
    read: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            **self.body,
            "created": self.created,
            "read": self.read,
        }


@dataclass(frozen=True, slots=True)
class Status:
    """Where a person is: one of ``STATUSES``, and the table for ``playing`` and ``watching``."""

    where: str
    table: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.where, "table": self.table}


def best(statuses: Iterable[Status | None]) -> Status | None:
    """The most engaged of a person's statuses (his sockets', his nodes'); None: offline."""
    found = [s for s in statuses if s is not None]
    return min(found, key=lambda s: STATUSES.index(s.where), default=None)


class FriendRows(Protocol):
    """The rows of friends, requests, privacy and notices (``store.friends.SqlFriends``)."""

    async def relation(self, me: str, other: str) -> str | None:
        """``friends``, ``sent`` (I asked him), ``received`` (he asked me), or None."""
        ...

    async def count(self, guest: str) -> int:
        """The person's friends and pending requests, both ways."""
        ...

    async def add_request(self, sender: str, recipient: str, ts: float) -> None: ...

    async def drop_request(self, sender: str, recipient: str) -> bool: ...

    async def befriend(self, a: str, b: str, ts: float) -> None:
        """Both rows of the friendship, and the requests between them gone, in one step."""
        ...

    async def unfriend(self, a: str, b: str) -> bool: ...

    async def friends_of(self, guest: str) -> list[str]: ...

    async def privacy_of(self, guest: str) -> Privacy: ...

    async def privacies(self, guests: list[str]) -> dict[str, Privacy]: ...

    async def set_privacy(self, guest: str, privacy: Privacy) -> None: ...

    async def add_notice(self, guest: str, kind: str, body: dict[str, Any], ts: float) -> Notice:
        """Kept before anybody is told: a notice pushed is a notice that is there."""
        ...

    async def unread(self, guest: str) -> int: ...


class Friends:
    """The decisions about requests; ``rows`` keeps them."""

    def __init__(self, rows: FriendRows) -> None:
        self.rows = rows

    async def request(self, me: str, other: str, ts: float) -> str:
        """Ask ``other`` to be friends: ``sent``, or ``friends`` when he had asked me already
        (both asked: that is a yes). Refused: oneself, a friend already, asked already."""
        if me == other:
            raise FriendError(400, "self_request", "you cannot be your own friend")
        relation = await self.rows.relation(me, other)
        if relation == "friends":
            raise FriendError(409, "already_friends", "you are friends already")
        if relation == "sent":
            raise FriendError(409, "already_requested", "you have asked already: wait for him")
        if relation == "received":
            await self.rows.befriend(me, other, ts)
            return "friends"
        for who in (me, other):
            if await self.rows.count(who) >= MAX_FRIENDS:
                raise FriendError(
                    409, "too_many_friends", f"a person has {MAX_FRIENDS} friends at most"
                )
        await self.rows.add_request(me, other, ts)
        return "sent"

    async def accept(self, me: str, sender: str, ts: float) -> None:
        if await self.rows.relation(me, sender) != "received":
            raise FriendError(404, "no_request", "there is no such request to answer")
        await self.rows.befriend(me, sender, ts)

    async def decline(self, me: str, sender: str) -> None:
        if not await self.rows.drop_request(sender, me):
            raise FriendError(404, "no_request", "there is no such request to answer")

    async def remove(self, me: str, other: str) -> str:
        """Unfriend, or take back a request I sent: ``removed`` or ``withdrawn``."""
        if await self.rows.unfriend(me, other):
            return "removed"
        if await self.rows.drop_request(me, other):
            return "withdrawn"
        raise FriendError(404, "not_friends", "you are not friends and have not asked him")

    async def may_invite(self, me: str, other: str) -> None:
        """Refused (403 ``invites_refused``) when ``other``'s privacy does not let me invite."""
        if me == other:
            raise FriendError(400, "self_request", "you cannot invite yourself")
        privacy = await self.rows.privacy_of(other)
        friends = await self.rows.relation(me, other) == "friends"
        if not privacy.may_invite(friends):
            raise FriendError(403, "invites_refused", "this person takes no invitations from you")


def parse_privacy(body: dict[str, Any], now: Privacy) -> Privacy:
    """The privacy a request sets (each field optional: the rest stays as it is)."""
    invites = body.get("invites", now.invites)
    show = body.get("show_online", now.show_online)
    if invites not in INVITES:
        raise FriendError(400, "bad_privacy", "invites is one of everyone, friends, nobody")
    if not isinstance(show, bool):
        raise FriendError(400, "bad_privacy", "show_online is true or false")
    unknown = set(body) - {"invites", "show_online"}
    if unknown:
        raise FriendError(400, "bad_privacy", f"unknown fields: {', '.join(sorted(unknown))}")
    return Privacy(invites, show)
