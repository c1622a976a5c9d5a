"""The club's HTTP routes: accounts and sessions, profiles, leaderboards, a table's players.

Parse, authenticate, deliver: the decisions are ``club.accounts`` and ``club.ratings``; the rows
are ``store.club``. Every token a route or a hello accepts goes through ``check_token``, which
asks the database whether the guest is an account and, if so, whether the token's session is
still there: a logged-out token is refused on every node at its next use. Nothing here returns
or logs a password or its hash; the answers carry the caller's own token and nobody else's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tranque.club.accounts import AccountError, Accounts, LoginGuard, LoginLimits, Session
from tranque.club.names import name_key
from tranque.club.passwords import PasswordWork
from tranque.club.ratings import PRESETS, PROVISIONAL_GAMES, Skill
from tranque.club.skeleton import name_skeleton, prototypes
from tranque.server import http_schemas as hs
from tranque.server.edge import Buckets, RateLimiter, client_address, read_body
from tranque.server.http_schemas import HttpError
from tranque.server.identity import Identity, TokenState
from tranque.server.late_routes import refusal
from tranque.store.club import SqlAccounts, SqlProfiles
from tranque.store.db import Store
from tranque.store.moderation import SqlModeration
from tranque.store.pairs import SqlPairs

if TYPE_CHECKING:
    from tranque.table.lobby import Lobby


class HasLobby(Protocol):
    """A server with its tables (``Club.table_players`` reads a live table's seats)."""

    @property
    def lobby(self) -> Lobby | None: ...


LEADERBOARD = 50  # rows of a leaderboard, by default and at most
GUEST_HANDLE = "~"  # a guest's profile is /u/~<guest id>: no account name starts with it


class Who:
    """The bearer of a checked token: the guest, its nickname, and its session if logged in."""

    __slots__ = ("guest", "nickname", "session")

    def __init__(self, guest: str, nickname: str, session: str | None) -> None:
        self.guest, self.nickname, self.session = guest, nickname, session


def profile_handle(guest: str, name: str | None) -> str:
    """What ``/u/{handle}`` and ``/api/profiles/{handle}`` take: the account's name, else the
    guest's id after ``~``."""
    return name if name is not None else GUEST_HANDLE + guest


def bearer(request: Request) -> str:
    auth = request.headers.get("authorization", "")
    token = auth[7:] if auth.lower().startswith("bearer ") else ""
    if not token:
        raise HttpError(401, "unauthenticated", "send 'Authorization: Bearer <guest token>'")
    return token


def _refusal(exc: HttpError | AccountError) -> JSONResponse:
    """An account's refusal carries its wait (``Retry-After``) as an ``HttpError`` does."""
    if isinstance(exc, AccountError):
        headers = {} if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
        exc = HttpError(exc.status, exc.code, exc.message, headers)
    return refusal(exc)


class Club:
    def __init__(
        self,
        store: Store,
        identity: Identity,
        buckets: Buckets,
        limits: LoginLimits | None = None,
        work: PasswordWork | None = None,
        claim_rate: RateLimiter | None = None,
    ) -> None:
        self.identity = identity
        self.rows = SqlAccounts(store)
        self.profiles = SqlProfiles(store)
        self.mod_rows = SqlModeration(store)  # roles, standing, reports, blocks
        self.pair_rows = SqlPairs(store)  # pairs (server.pairs): a profile lists a person's
        self.accounts = Accounts(self.rows, LoginGuard(buckets, limits), work)
        self.claim_rate = claim_rate or RateLimiter(0, 1, "account claims")
        self.store = store
        prototypes()  # the confusables' table, built at start rather than at the first name
        # Told (guest, session, keep) once sessions ended, to close their sockets on every node
        # (``Server._sessions_ended``): session None is every session of the guest but ``keep``.
        self.on_sessions_ended: Callable[[str, str | None, str | None], None] | None = None

    def _ended(self, guest: str, session: str | None, keep: str | None = None) -> None:
        if self.on_sessions_ended is not None:
            self.on_sessions_ended(guest, session, keep)

    async def check_token(self, token: str) -> Who:
        """The token's bearer, or HttpError 401: expired, not ours, or of a session that ended
        (logged out, or a guest token of a guest that became an account)."""
        state, who, _, session = self.identity.inspect(token)
        if state is TokenState.EXPIRED:
            raise HttpError(401, "token_expired", "the token has expired: get a new one")
        if who is None:
            raise HttpError(401, "bad_token", "the token is not one this server signed")
        guest, nickname = who
        if await self.rows.session_state(guest, session) == "gone":
            raise HttpError(401, "logged_out", "this session has ended: log in again")
        return Who(guest, nickname, session)

    async def who(self, request: Request) -> Who:
        return await self.check_token(bearer(request))

    def _session_answer(self, s: Session) -> JSONResponse:
        token = self.identity.sign(s.guest, s.name, s.session)
        return JSONResponse(
            {"guest": s.guest, "nickname": s.name, "account": s.name, "token": token}
        )

    # -- accounts and sessions ----------------------------------------------------------------

    async def claim(self, request: Request) -> Response:
        """``POST /api/accounts``: the bearer guest becomes an account, keeping its games."""
        try:
            await self.claim_rate.take(client_address(request.scope))
            who = await self.who(request)
            body = hs.decode(hs.Credentials, await read_body(request))
            s = await self.accounts.claim(who.guest, body.name, body.password, time.time())
        except (HttpError, AccountError) as exc:
            return _refusal(exc)
        return self._session_answer(s)

    async def login(self, request: Request) -> Response:
        """``POST /api/sessions``: a new session of the account (any device)."""
        try:
            body = hs.decode(hs.Credentials, await read_body(request))
            s = await self.accounts.login(
                body.name, body.password, client_address(request.scope), time.time()
            )
        except (HttpError, AccountError) as exc:
            return _refusal(exc)
        return self._session_answer(s)

    async def _session(self, request: Request) -> Session:
        who = await self.who(request)
        account = await self.rows.account_of(who.guest)
        if who.session is None or account is None:
            raise HttpError(403, "not_logged_in", "a guest has no session: claim an account")
        return Session(who.guest, account.name, who.session)

    async def logout(self, request: Request) -> Response:
        """``DELETE /api/sessions/current`` (this device) and ``DELETE /api/sessions`` (all)."""
        everywhere = request.url.path.rstrip("/") == "/api/sessions"
        try:
            s = await self._session(request)
        except HttpError as exc:
            return _refusal(exc)
        ended = await self.accounts.logout(s, everywhere=everywhere)
        self._ended(s.guest, None if everywhere else s.session)
        return JSONResponse({"ended": ended})

    async def change_password(self, request: Request) -> Response:
        """``POST /api/accounts/password``: every other session ends; this one goes on."""
        try:
            s = await self._session(request)
            body = hs.decode(hs.NewPassword, await read_body(request))
            await self.accounts.change_password(
                s, body.old, body.new, client_address(request.scope)
            )
        except (HttpError, AccountError) as exc:
            return _refusal(exc)
        self._ended(s.guest, None, keep=s.session)
        return self._session_answer(s)

    async def me(self, request: Request) -> Response:
        """``GET /api/me``: who the token speaks for, and the account's name if it has one."""
        try:
            who = await self.who(request)
        except HttpError as exc:
            return _refusal(exc)
        account = await self.rows.account_of(who.guest)
        name = account.name if account else None
        return JSONResponse(
            {
                "guest": who.guest,
                "nickname": name or who.nickname,
                "account": name,
                "profile": profile_handle(who.guest, name),
                "since": account.created if account else None,
                # Only ever true for the bearer himself: the page offers him the moderators'.
                "moderator": "moderator" in await self.mod_rows.roles_of(who.guest),
            }
        )

    # -- profiles and leaderboards ------------------------------------------------------------

    async def _guest_of(self, handle: str) -> str | None:
        if handle.startswith(GUEST_HANDLE):
            return handle[len(GUEST_HANDLE) :] or None
        if len(handle) > hs.NAME_FIELD:
            return None
        # Not check_name: an account made before a word was reserved keeps its profile.
        account = await self.rows.account_by_name(name_key(handle), name_skeleton(handle))
        return None if account is None else account.guest

    async def profile(self, request: Request) -> Response:
        """``GET /api/profiles/{handle}``: an account's (by name) or a guest's (``~id``)."""
        handle = request.path_params["handle"]
        guest = await self._guest_of(handle)
        person = None if guest is None else await self.profiles.person(guest)
        if guest is None or person is None:
            return _refusal(HttpError(404, "no_profile", f"nobody is called {handle!r}"))
        skills = await self.profiles.ratings_of([guest])
        history = await self.profiles.history(guest)
        counts = await self.profiles.counts(guest)
        completion = await self.profiles.completion(guest)
        recent = await self.profiles.recent(guest)
        met = await self.profiles.companions(guest)
        by_preset: dict[str, list[dict[str, Any]]] = {}
        for h in history:
            by_preset.setdefault(h.pop("preset"), []).append(h)
        return JSONResponse(
            {
                "handle": profile_handle(guest, person["name"]),
                "name": person["name"],
                "nickname": person["name"] or person["nickname"],
                "account": person["name"] is not None,
                "since": person["since"],
                "ratings": {
                    p: {**skills[(guest, p)].to_json(), "history": by_preset.get(p, [])}
                    for p in PRESETS
                    if (guest, p) in skills
                },
                "games": {"played": counts["played"], "won": counts["won"]},
                "pollonas": {
                    "given": counts["pollonas_given"],
                    "suffered": counts["pollonas_suffered"],
                },
                "viajeras": counts["viajeras"],
                # The formed pairs he is in (docs/club.md, "Pairs"): each one's page is
                # /pair/{name}; a proposal not yet answered is nobody else's business.
                "pairs": await self.pair_rows.formed_of(guest),
                # Tables finished ÷ tables begun (docs/club.md, "Completion rate").
                "completion": completion,
                "recent": [
                    {**r, "record": f"/api/tables/{r['table']}/record", "page": f"/g/{r['table']}"}
                    for r in recent
                ],
                # Who the person played with and against: a profile link for account holders
                # only (guests and bots are no links, as in every list of names).
                **{
                    side: [
                        {"nickname": c["nickname"], "games": c["games"], "profile": c["name"]}
                        for c in people
                    ]
                    for side, people in met.items()
                },
            }
        )

    async def leaderboard(self, request: Request) -> Response:
        """``GET /api/leaderboards/{preset}?limit=N``: settled ratings, best first."""
        preset = request.path_params["preset"]
        if preset not in PRESETS:
            return _refusal(
                HttpError(404, "no_preset", f"presets are {', '.join(PRESETS)}, not {preset!r}")
            )
        try:
            limit = int(request.query_params.get("limit", str(LEADERBOARD)))
        except ValueError:
            limit = -1
        if not 1 <= limit <= LEADERBOARD:
            return _refusal(HttpError(400, "bad_limit", f"limit is 1 to {LEADERBOARD}"))
        rows = await self.profiles.leaderboard(preset, PROVISIONAL_GAMES, limit)
        players = [
            {
                "rank": i + 1,
                "profile": profile_handle(r.pop("guest"), r["name"]),
                "account": r["name"] is not None,
                **{k: v for k, v in r.items() if k != "name"},
            }
            for i, r in enumerate(rows)
        ]
        return JSONResponse({"preset": preset, "min_games": PROVISIONAL_GAMES, "players": players})

    async def table_players(self, server: HasLobby, request: Request) -> Response:
        """``GET /api/tables/{table}/players``: each seat's person (nickname, profile, rating
        under the table's preset) and, once the table is rated, each person's change. What the
        seats, the end of a game and the lobby show next to a name."""
        tid = request.path_params["table"]
        info: dict[str, Any] | None = None
        owner = await server.lobby.get(tid) if server.lobby is not None else None
        if owner is not None:
            info = owner.service.info()
        else:
            row = await self.store.load_table(tid)
            if row is None:
                return _refusal(HttpError(404, "no_table", f"there is no table {tid!r}"))
            info = row["info"]
            if row["status"] != "over" or "seats" not in info:
                # Not in this node's memory (another node's, on a cluster): the row's info is
                # the table's at its creation, without its seats; the log has them.
                info = {**info, "seats": await self.profiles.table_seats(tid)}
        who, names = await self.profiles.table_people(tid)
        rules = info.get("settings", {}).get("rules", info.get("rules"))
        preset = rules if isinstance(rules, str) and rules in PRESETS else None
        people = [g for g in who if g is not None]
        skills = await self.profiles.ratings_of(people, preset) if preset and people else {}
        changes = await self.profiles.table_changes(tid)
        seats_info = info.get("seats") or [{} for _ in range(4)]
        seats = []
        for s in range(4):
            seat = seats_info[s] if s < len(seats_info) else {}
            guest = who[s]
            kind = seat.get("kind", "person" if guest else "empty")
            out: dict[str, Any] = {"seat": s, "kind": kind, "nickname": seat.get("nickname")}
            if guest is not None and kind == "person":
                name = names.get(guest)
                skill = skills.get((guest, preset)) if preset else None
                out.update(
                    nickname=name or seat.get("nickname"),
                    account=name is not None,
                    profile=profile_handle(guest, name),
                    rating=(skill or Skill()).to_json() if preset else None,
                    change=changes.get(guest),
                )
            seats.append(out)
        return JSONResponse({"table": tid, "preset": preset, "seats": seats})
