"""The routes of pairs (docs/protocol.md §11): propose, answer, dissolve, a pair's page and the
leaderboard of pairs.

Parse, authenticate, deliver: the decisions are ``club.pairs``, the rows ``store.pairs``, the
notices ``server.friends``' bell (``server.presence``). Proposing, answering and dissolving need
an account (a guest is told ``account_needed``). A pair's page and the leaderboard are public,
as a person's profile is, and show only what a profile shows: the partners' account names,
the record, the ratings and the games' addresses. A proposal not yet accepted is the two
partners' business: nobody else can find it (``/api/pairs/{name}`` answers 404 until formed).
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Annotated, Any, Protocol

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tranque.club.friends import FriendError
from tranque.club.names import name_key
from tranque.club.pairs import Pair, PairError, Pairs
from tranque.club.ratings import PRESETS, PROVISIONAL_GAMES, Skill
from tranque.club.skeleton import name_skeleton
from tranque.server.club import LEADERBOARD, Club, Who
from tranque.server.edge import read_body
from tranque.server.http_schemas import HttpError, decode_club
from tranque.server.late_routes import GET, POST, late_routes
from tranque.server.presence import ClubNews

MAX_NAME = 64  # longer than any name: nobody's, no pair's
# A pair's party for the quick match (``POST /api/pairs/{name}/party``): the queue's party id,
# with the pair's number in it, so that any node seats the two as partners and rates the unit
# by the pair's rating without keeping anything (docs/protocol.md §11).
PAIR_PARTY = re.compile(r"^pair-(\d{1,12})-[A-Za-z0-9_-]{16}$")

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_NAME)]


class Proposal(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/pairs``: propose to the account ``partner`` a pair called ``name``."""

    name: Name
    partner: Name


class PairRoutes:
    def __init__(self, club: Club, news: ClubNews) -> None:
        self.club = club
        self.news = news
        self.rows = club.pair_rows
        self.pairs = Pairs(self.rows)

    async def _me(self, request: Request) -> Who:
        who = await self.club.who(request)
        if who.session is None:
            raise PairError(403, "account_needed", "pairs need an account: claim a name first")
        return who

    async def _guest_named(self, name: str) -> str:
        account = await self.club.rows.account_by_name(name_key(name), name_skeleton(name))
        if account is None:
            raise PairError(404, "unknown_account", f"nobody is called {name!r}")
        return account.guest

    async def _blocked(self, a: str, b: str) -> bool:
        return bool(await self.club.mod_rows.blocks_among([a, b]))

    async def _notify(self, guest: str, kind: str, who: Who, pair: Pair) -> None:
        body = {"from": who.nickname, "pair": pair.name}
        notice = await self.news.rows.add_notice(guest, kind, body, time.time())
        self.news.notice(guest, notice, await self.news.rows.unread(guest))

    # -- proposing, answering, dissolving ----

    async def propose(self, request: Request) -> Response:
        """``POST /api/pairs``: the partner's bell says so; ``proposed``."""
        who = await self._me(request)
        body: Proposal = decode_club(Proposal, await read_body(request))
        other = await self._guest_named(body.partner)
        if other != who.guest:  # a proposal is an invitation: his privacy says who may send one
            await self.news.friends.may_invite(who.guest, other)
        blocked = other != who.guest and await self._blocked(who.guest, other)
        pair = await self.pairs.propose(who.guest, other, body.name, blocked, time.time())
        await self._notify(other, "pair_proposal", who, pair)
        return JSONResponse({"state": "proposed", "pair": pair.name})

    async def accept(self, request: Request) -> Response:
        who = await self._me(request)
        name = request.path_params["name"]
        found = await self.rows.by_name(name)
        partner = None if found is None else found.partner_of(who.guest)
        blocked = partner is not None and await self._blocked(who.guest, partner)
        pair = await self.pairs.accept(who.guest, name, blocked, time.time())
        await self._notify(pair.proposer, "pair_formed", who, pair)
        return JSONResponse({"state": "formed", "pair": pair.name})

    async def decline(self, request: Request) -> Response:
        who = await self._me(request)
        pair = await self.pairs.decline(who.guest, request.path_params["name"])
        await self._notify(pair.proposer, "pair_declined", who, pair)
        return JSONResponse({"state": "declined", "pair": pair.name})

    async def dissolve(self, request: Request) -> Response:
        """``DELETE /api/pairs/{name}``: either partner; the other's bell says so."""
        who = await self._me(request)
        pair = await self.pairs.dissolve(who.guest, request.path_params["name"])
        await self._notify(pair.partner_of(who.guest), "pair_dissolved", who, pair)
        return JSONResponse({"state": "dissolved", "pair": pair.name})

    async def party(self, request: Request) -> Response:
        """``POST /api/pairs/{name}/party``: a party for the quick match as this pair; the
        partner's bell invites him to it (the party invitation of friends, with the pair's
        name). Either partner starts it; both then queue with its id."""
        who = await self._me(request)
        pair = await self.rows.by_name(request.path_params["name"])
        if pair is None or pair.formed is None or who.guest not in pair.partners:
            raise PairError(404, "not_your_pair", "you are not in a pair of that name")
        partner = pair.partner_of(who.guest)
        if await self._blocked(who.guest, partner):
            raise PairError(403, "blocked", "you cannot play with this person")
        party = f"pair-{pair.id}-{secrets.token_urlsafe(12)}"
        body = {"from": who.nickname, "party": party, "pair": pair.name}
        notice = await self.news.rows.add_notice(partner, "invite", body, time.time())
        self.news.notice(partner, notice, await self.news.rows.unread(partner))
        return JSONResponse({"party": party, "pair": pair.name})

    async def queue_rating(self, guest: str, party: str, preset: str) -> float | None:
        """The rating a queue's ticket carries for a pair's party: the pair's under ``preset``
        (the unit is seated by it, docs/club.md); None for a party that is not a pair's.
        A pair's party of a pair the guest is not in (or no longer formed) is refused."""
        found = PAIR_PARTY.match(party)
        if found is None:
            return None
        pair = await self.rows.by_id(int(found.group(1)))
        if pair is None or pair.formed is None or guest not in pair.partners:
            raise PairError(403, "not_your_pair", "that party is a pair's you are not in")
        return (await self.rows.ratings(pair.id)).get(preset, Skill()).mu

    async def mine(self, request: Request) -> Response:
        """``GET /api/me/pairs``: my pairs, and the proposals both ways."""
        who = await self._me(request)
        mine = await self.rows.of(who.guest)
        names = await self.rows.names([p.partner_of(who.guest) for p in mine])
        out: dict[str, list[dict[str, Any]]] = {"pairs": [], "incoming": [], "outgoing": []}
        for p in mine:
            side = "pairs" if p.formed else "outgoing" if p.proposer == who.guest else "incoming"
            out[side].append({"name": p.name, "partner": names.get(p.partner_of(who.guest))})
        return JSONResponse(out)

    # -- what everybody may read ----

    async def page(self, request: Request) -> Response:
        """``GET /api/pairs/{name}``: a formed pair's partners, record, ratings, recent games."""
        name = request.path_params["name"]
        pair = await self.rows.by_name(name) if len(name) <= MAX_NAME else None
        if pair is None or pair.formed is None:
            raise PairError(404, "no_pair", f"no pair is called {name!r}")
        names = await self.rows.names(list(pair.partners))
        ratings = await self.rows.ratings(pair.id)
        return JSONResponse(
            {
                "name": pair.name,
                "partners": [names.get(g) for g in pair.partners],
                "formed": pair.formed,
                "record": await self.rows.record(pair.id),
                "ratings": {p: ratings[p].to_json() for p in PRESETS if p in ratings},
                "recent": await self.rows.recent(pair.id),
            }
        )

    async def leaderboard(self, request: Request) -> Response:
        """``GET /api/pairs?preset=P&limit=N``: settled pair ratings, best first."""
        preset = request.query_params.get("preset", PRESETS[0])
        if preset not in PRESETS:
            raise HttpError(404, "no_preset", f"presets are {', '.join(PRESETS)}, not {preset!r}")
        try:
            limit = int(request.query_params.get("limit", str(LEADERBOARD)))
        except ValueError:
            limit = -1
        if not 1 <= limit <= LEADERBOARD:
            raise HttpError(400, "bad_limit", f"limit is 1 to {LEADERBOARD}")
        rows = await self.rows.leaderboard(preset, limit)
        return JSONResponse(
            {
                "preset": preset,
                "min_games": PROVISIONAL_GAMES,
                "pairs": [{"rank": i + 1, **r} for i, r in enumerate(rows)],
            }
        )


class _HasPairs(Protocol):
    @property
    def pair_routes(self) -> PairRoutes | None: ...


def pair_routes(server: _HasPairs) -> list[Route]:
    """The routes, bound once the lifespan has made ``server.pair_routes``."""
    return late_routes(
        lambda: server.pair_routes,
        (HttpError, PairError, FriendError),
        [
            ("/api/pairs", PairRoutes.leaderboard, GET),
            ("/api/pairs", PairRoutes.propose, POST),
            ("/api/me/pairs", PairRoutes.mine, GET),
            ("/api/pairs/{name}", PairRoutes.page, GET),
            ("/api/pairs/{name}/accept", PairRoutes.accept, POST),
            ("/api/pairs/{name}/decline", PairRoutes.decline, POST),
            ("/api/pairs/{name}/party", PairRoutes.party, POST),
            ("/api/pairs/{name}", PairRoutes.dissolve, ["DELETE"]),
        ],
    )
