"""Peñas: clubs of players, with a founder, admins and members, a board and their own tables.

In Cuba a peña is the group that meets at the same corner table every evening; here it is a
named group of accounts with its own page, a notice board, a leaderboard of its members and
tables only its members may sit at. Logic only: the rows are behind ``PenaRows``
(``store.penas``), the routes are the server's (``server.penas``).

Who may do what is one table (``may``), decided before anything is written; every refusal is a
``PenaError`` (an HTTP status, a code and a sentence):

- the founder promotes members to admins and demotes admins, and cannot leave (a peña always
  has its founder): he hands the peña over to one of its admins (he stays, as an admin), or
  dissolves it;
- an admin (or the founder) accepts requests, invites, removes members and writes on the board;
  an admin removes neither the founder nor another admin;
- a member leaves when he wants, and removes nobody.

Joining: an ``open`` peña takes whoever joins at once; a peña ``by invitation`` takes a person
an admin invited (joining is then immediate), else the join is a request an admin accepts (or
refuses, by removing it). A person belongs to ``MAX_PENAS`` peñas at most. Guests cannot found
nor join: a peña is made of accounts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from tranque.club.names import BadName, check_name

Role = Literal["founder", "admin", "member"]
ROLES: tuple[Role, ...] = ("founder", "admin", "member")
# The emblems a peña chooses from: a word each, drawn by the pages (a fixed set, so that no
# picture comes from a person).
EMBLEMS = ("domino", "palma", "gallo", "tabaco", "sol", "ancla", "estrella", "guitarra")
MAX_PENAS = 20  # peñas a person belongs to, at most
MAX_DESCRIPTION = 280  # characters of a peña's description
MAX_POST = 500  # characters of a post on the board
BOARD_PAGE = 20  # posts a page shows, newest first
# What each role may do to another person (``may``): actor's role -> action -> target roles.
Action = Literal[
    "accept", "invite", "remove", "promote", "demote", "post", "leave", "table", "hand_over",
    "dissolve",
]  # fmt: skip
_MATRIX: dict[Role, dict[str, tuple[str | None, ...]]] = {
    "founder": {
        "accept": (None,), "invite": (None,), "remove": ("admin", "member"),
        "promote": ("member",), "demote": ("admin",), "post": (), "table": (),
        "hand_over": ("admin",), "dissolve": (),
    },
    "admin": {
        "accept": (None,), "invite": (None,), "remove": ("member",), "post": (), "leave": (),
        "table": (),
    },
    "member": {"leave": (), "table": ()},
}  # fmt: skip


class PenaError(Exception):
    """A refused request about peñas: an HTTP status, a code and a sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True, slots=True)
class Pena:
    """One peña's row: ``open`` True takes anyone at once, False is by invitation."""

    id: int
    name: str
    description: str
    open: bool
    emblem: str
    founder: str
    created: float


def may(actor: Role | None, action: Action, target: Role | None = None) -> bool:
    """Whether a person of role ``actor`` (None: not a member) may do ``action`` to a person
    of role ``target`` (None: not a member; actions on nobody ignore it). The one table of who
    may do what: the routes ask nothing else."""
    if actor is None:
        return False
    allowed = _MATRIX[actor].get(action)
    if allowed is None:
        return False
    return not allowed or target in allowed


def check_description(text: str) -> str:
    """A description: plain text, at most ``MAX_DESCRIPTION`` characters, trimmed."""
    text = text.strip()
    if len(text) > MAX_DESCRIPTION:
        raise PenaError(
            400, "bad_description", f"a description is {MAX_DESCRIPTION} characters at most"
        )
    if any(ord(c) < 32 and c != "\n" for c in text):
        raise PenaError(400, "bad_description", "a description is plain text")
    return text


def check_post(text: str) -> str:
    """A board post: plain text, 1 to ``MAX_POST`` characters once trimmed (shown escaped)."""
    text = text.strip()
    if not text:
        raise PenaError(400, "empty_post", "write something")
    if len(text) > MAX_POST:
        raise PenaError(400, "post_too_long", f"a post is {MAX_POST} characters at most")
    if any(ord(c) < 32 and c != "\n" for c in text):
        raise PenaError(400, "bad_post", "a post is plain text")
    return text


def check_emblem(emblem: str) -> str:
    if emblem not in EMBLEMS:
        raise PenaError(400, "bad_emblem", f"the emblem is one of {', '.join(EMBLEMS)}")
    return emblem


def checked_name(raw: str) -> str:
    """A peña's name follows an account name's rules (``club.names``)."""
    try:
        return check_name(raw)
    except BadName as exc:
        raise PenaError(400, exc.code, exc.message) from None


class PenaRows(Protocol):
    """The rows of peñas (``store.penas.SqlPenas``)."""

    async def by_name(self, name: str) -> Pena | None:
        """The peña called so (casefolded, look-alikes included)."""
        ...

    async def role_of(self, pena_id: int, guest: str) -> Role | None: ...

    async def pending(self, pena_id: int, guest: str) -> str | None:
        """``request`` (he asked), ``invite`` (an admin invited him), or None."""
        ...

    async def count_of(self, guest: str) -> int:
        """The peñas the person belongs to."""
        ...

    async def found(
        self, name: str, description: str, open_: bool, emblem: str, founder: str, ts: float
    ) -> Pena | None:
        """The new peña with its founder as member, or None when its name was taken
        meanwhile; ``too_many_penas`` when the founder has ``MAX_PENAS`` (counted in the
        transaction that adds him: the cap holds under concurrent requests)."""
        ...

    async def add_member(self, pena_id: int, guest: str, role: Role, ts: float) -> bool:
        """Member now (any pending request or invitation gone); False if he was already;
        ``too_many_penas`` when he has ``MAX_PENAS`` (counted in the same transaction)."""
        ...

    async def add_pending(
        self, pena_id: int, guest: str, kind: str, by: str, ts: float
    ) -> None: ...

    async def drop_pending(self, pena_id: int, guest: str) -> bool: ...

    async def drop_member(self, pena_id: int, guest: str) -> bool: ...

    async def set_role(self, pena_id: int, guest: str, role: Role) -> bool: ...

    async def post(self, pena_id: int, author: str, text: str, ts: float) -> None: ...

    async def hand_over(self, pena_id: int, founder: str, heir: str) -> bool:
        """``heir`` (an admin) founder, ``founder`` an admin, in one transaction; False when
        either changed meanwhile (nothing written)."""
        ...

    async def dissolve(self, pena_id: int, founder: str) -> list[str] | None:
        """The peña and all its rows gone, in one transaction: the guests who were its members
        (founder included), or None when ``founder`` no longer founded it."""
        ...


class Penas:
    """The decisions about peñas; ``rows`` keeps them. ``me`` is always an account's guest id
    (the routes refuse guests before asking)."""

    def __init__(self, rows: PenaRows) -> None:
        self.rows = rows

    async def get(self, name: str) -> Pena:
        pena = await self.rows.by_name(name) if len(name) <= 64 else None
        if pena is None:
            raise PenaError(404, "no_pena", f"no peña is called {name!r}")
        return pena

    async def _room(self, guest: str) -> None:
        """An early answer only: the rows count again where they add him (``PenaRows``)."""
        if await self.rows.count_of(guest) >= MAX_PENAS:
            raise PenaError(409, "too_many_penas", f"a person belongs to {MAX_PENAS} peñas at most")

    async def found(
        self, me: str, raw_name: str, description: str, open_: bool, emblem: str, ts: float
    ) -> Pena:
        name = checked_name(raw_name)
        text = check_description(description)
        check_emblem(emblem)
        if await self.rows.by_name(name) is not None:
            raise PenaError(409, "name_taken", f"a peña is already called {name!r} (or alike)")
        await self._room(me)
        pena = await self.rows.found(name, text, open_, emblem, me, ts)
        if pena is None:  # taken between the check and the insert
            raise PenaError(409, "name_taken", f"a peña is already called {name!r} (or alike)")
        return pena

    async def join(self, me: str, name: str, ts: float) -> tuple[Pena, str]:
        """``joined`` (open peña, or invited) or ``requested`` (an admin answers)."""
        pena = await self.get(name)
        if await self.rows.role_of(pena.id, me) is not None:
            raise PenaError(409, "already_member", "you belong to this peña already")
        pending = await self.rows.pending(pena.id, me)
        if pena.open or pending == "invite":
            await self._room(me)
            await self.rows.add_member(pena.id, me, "member", ts)
            return pena, "joined"
        if pending == "request":
            raise PenaError(409, "already_requested", "you have asked already: an admin answers")
        await self._room(me)
        await self.rows.add_pending(pena.id, me, "request", me, ts)
        return pena, "requested"

    async def leave(self, me: str, name: str) -> tuple[Pena, str]:
        """``left``, or ``withdrawn`` (a request taken back, an invitation turned down)."""
        pena = await self.get(name)
        role = await self.rows.role_of(pena.id, me)
        if role is None:
            if await self.rows.drop_pending(pena.id, me):
                return pena, "withdrawn"
            raise PenaError(404, "not_a_member", "you do not belong to this peña")
        if not may(role, "leave"):
            raise PenaError(409, "founder_stays", "the founder stays with his peña")
        await self.rows.drop_member(pena.id, me)
        return pena, "left"

    async def _actor(self, me: str, pena: Pena, action: Action, target: Role | None) -> None:
        role = await self.rows.role_of(pena.id, me)
        if role is None:
            raise PenaError(403, "not_a_member", "you do not belong to this peña")
        if not may(role, action, target):
            raise PenaError(
                403, "not_allowed", f"a peña's {role} may not {action} a {target or 'person'}"
            )

    async def accept(self, me: str, name: str, person: str, ts: float) -> Pena:
        pena = await self.get(name)
        await self._actor(me, pena, "accept", None)
        if await self.rows.pending(pena.id, person) != "request":
            raise PenaError(404, "no_request", "this person has not asked to join")
        await self._room(person)
        await self.rows.add_member(pena.id, person, "member", ts)
        return pena

    async def invite(self, me: str, name: str, person: str, ts: float) -> Pena:
        """An admin invites a person: he joins when he wants (``join``). A person who had
        asked already is simply accepted."""
        pena = await self.get(name)
        await self._actor(me, pena, "invite", None)
        if await self.rows.role_of(pena.id, person) is not None:
            raise PenaError(409, "already_member", "this person belongs to the peña already")
        pending = await self.rows.pending(pena.id, person)
        if pending == "invite":
            raise PenaError(409, "already_invited", "this person is invited already")
        if pending == "request":
            return await self.accept(me, name, person, ts)
        await self.rows.add_pending(pena.id, person, "invite", me, ts)
        return pena

    async def remove(self, me: str, name: str, person: str) -> tuple[Pena, str]:
        """``removed`` (a member out) or ``refused`` (a request or invitation dropped)."""
        pena = await self.get(name)
        if person == me:
            raise PenaError(400, "self_remove", "to go, leave the peña")
        target = await self.rows.role_of(pena.id, person)
        if target is None:
            await self._actor(me, pena, "accept", None)
            if await self.rows.drop_pending(pena.id, person):
                return pena, "refused"
            raise PenaError(404, "not_a_member", "this person does not belong to the peña")
        await self._actor(me, pena, "remove", target)
        await self.rows.drop_member(pena.id, person)
        return pena, "removed"

    async def promote(self, me: str, name: str, person: str, up: bool) -> Pena:
        """The founder makes a member an admin (``up``), or an admin a member again."""
        pena = await self.get(name)
        target = await self.rows.role_of(pena.id, person)
        if target is None:
            raise PenaError(404, "not_a_member", "this person does not belong to the peña")
        await self._actor(me, pena, "promote" if up else "demote", target)
        await self.rows.set_role(pena.id, person, "admin" if up else "member")
        return pena

    async def post(self, me: str, name: str, text: str, ts: float) -> Pena:
        pena = await self.get(name)
        await self._actor(me, pena, "post", None)
        await self.rows.post(pena.id, me, check_post(text), ts)
        return pena

    async def hand_over(self, me: str, name: str, heir: str) -> Pena:
        """The founder hands the peña over to one of its admins; he stays, as an admin. Only
        an admin: a founder is somebody the members already trust with the peña's people."""
        pena = await self.get(name)
        await self._actor(me, pena, "hand_over", "admin")  # not the founder: not_allowed
        if heir == me:
            raise PenaError(409, "already_founder", "you found this peña already")
        target = await self.rows.role_of(pena.id, heir)
        if target is None:
            raise PenaError(404, "not_a_member", "this person does not belong to the peña")
        if target != "admin":
            raise PenaError(409, "not_an_admin", "make him an admin first: a peña goes to one")
        if not await self.rows.hand_over(pena.id, me, heir):
            raise PenaError(409, "changed", "the peña changed meanwhile: look again")
        return pena

    async def dissolve(self, me: str, name: str) -> tuple[Pena, list[str]]:
        """The founder ends the peña: its members, requests, invitations and board go with it;
        the guests who were its members, to be told."""
        pena = await self.get(name)
        await self._actor(me, pena, "dissolve", None)
        members = await self.rows.dissolve(pena.id, me)
        if members is None:
            raise PenaError(409, "changed", "the peña changed meanwhile: look again")
        return pena, members

    async def may_host(self, me: str, name: str) -> Pena:
        """A member may open a table of the peña (members only sit there)."""
        pena = await self.get(name)
        await self._actor(me, pena, "table", None)
        return pena
