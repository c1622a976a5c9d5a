"""Pairs (parejas fijas): two accounts under one name, their record together and their rating.

Cuban dominoes is played with the same partner for years; a pair makes that partnership a thing
of the club with its own page, record and rating. Logic only: the rows are behind ``PairRows``
(``store.pairs``), the routes are the server's (``server.pairs``).

A pair is proposed by one account (to a friend, or to anyone by account name) and formed when
the other accepts; the other may decline, and either partner may dissolve it later. Its name is
checked like an account's (``club.names``) and is unique among pairs, look-alikes included.
A person may be in several pairs, but not in two with the same partner. Guests cannot (pairs
need an account on both sides), and a person who blocks the other, or is blocked by him, can
neither propose nor accept. Every refusal is a ``PairError`` decided before anything is written.

The record and the rating count a game when both partners sat as partners (seats 0 and 2, or
1 and 3) in a finished rated game (``club.ratings``) that ended after the pair was formed, and
nobody left it (a leaver's game is the leaver's, not a partnership's). Games the two played
together before they formed the pair are not counted: the pair starts at zero, as a new account
does. The rating model is ``rate_pair``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from tranque.club.names import BadName, check_name
from tranque.club.ratings import MODEL, Skill

MAX_PAIRS = 20  # pairs (formed or proposed) a person is in, at most


class PairError(Exception):
    """A refused request about pairs: an HTTP status, a code and a sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True, slots=True)
class Pair:
    """One pair's row: ``a`` < ``b`` are the partners' guest ids; ``formed`` None: proposed."""

    id: int
    name: str
    a: str
    b: str
    proposer: str
    created: float
    formed: float | None

    @property
    def partners(self) -> tuple[str, str]:
        return self.a, self.b

    def partner_of(self, guest: str) -> str:
        return self.b if guest == self.a else self.a


def ordered(x: str, y: str) -> tuple[str, str]:
    """The two partners as the rows keep them (the smaller id first)."""
    return (x, y) if x < y else (y, x)


class PairRows(Protocol):
    """The rows of pairs (``store.pairs.SqlPairs``)."""

    async def by_name(self, name: str) -> Pair | None:
        """The pair called so (casefolded, look-alikes included), formed or proposed."""
        ...

    async def between(self, a: str, b: str) -> Pair | None: ...

    async def count_of(self, guest: str) -> int:
        """The pairs (formed or proposed) the person is in."""
        ...

    async def propose(self, name: str, a: str, b: str, proposer: str, ts: float) -> Pair | None:
        """The new proposed pair, or None when its name or its partners were taken meanwhile."""
        ...

    async def form(self, pair_id: int, ts: float) -> bool: ...

    async def drop(self, pair_id: int) -> bool:
        """The pair gone, with its games and ratings: a declined or dissolved pair."""
        ...


class Pairs:
    """The decisions about pairs; ``rows`` keeps them."""

    def __init__(self, rows: PairRows) -> None:
        self.rows = rows

    async def propose(self, me: str, other: str, raw_name: str, blocked: bool, ts: float) -> Pair:
        """Propose to ``other`` a pair called ``raw_name``. ``blocked``: one of the two blocks
        the other (moderation), read by the caller."""
        if me == other:
            raise PairError(400, "self_pair", "a pair is two people: choose a partner")
        try:
            name = check_name(raw_name)
        except BadName as exc:
            raise PairError(400, exc.code, exc.message) from None
        if blocked:
            raise PairError(403, "blocked", "you cannot form a pair with this person")
        a, b = ordered(me, other)
        if await self.rows.between(a, b) is not None:
            raise PairError(409, "pair_exists", "you two are a pair already (or one proposed)")
        if await self.rows.by_name(name) is not None:
            raise PairError(409, "name_taken", f"a pair is already called {name!r} (or alike)")
        for who in (me, other):
            if await self.rows.count_of(who) >= MAX_PAIRS:
                raise PairError(409, "too_many_pairs", f"a person is in {MAX_PAIRS} pairs at most")
        pair = await self.rows.propose(name, a, b, me, ts)
        if pair is None:  # taken between the checks and the insert
            raise PairError(409, "name_taken", f"a pair is already called {name!r} (or alike)")
        return pair

    async def _proposed_to(self, me: str, name: str) -> Pair:
        pair = await self.rows.by_name(name)
        if pair is None or pair.formed is not None or me not in pair.partners:
            raise PairError(404, "no_proposal", "there is no such proposal to answer")
        if pair.proposer == me:
            raise PairError(409, "own_proposal", "your partner answers it, not you")
        return pair

    async def accept(self, me: str, name: str, blocked: bool, ts: float) -> Pair:
        pair = await self._proposed_to(me, name)
        if blocked:
            raise PairError(403, "blocked", "you cannot form a pair with this person")
        await self.rows.form(pair.id, ts)
        return pair

    async def decline(self, me: str, name: str) -> Pair:
        pair = await self._proposed_to(me, name)
        await self.rows.drop(pair.id)
        return pair

    async def dissolve(self, me: str, name: str) -> Pair:
        """Either partner dissolves the pair (or the proposer takes his proposal back)."""
        pair = await self.rows.by_name(name)
        if pair is None or me not in pair.partners:
            raise PairError(404, "not_your_pair", "you are not in a pair of that name")
        await self.rows.drop(pair.id)
        return pair


# -- the pair rating ----------------------------------------------------------------------------


def composite(x: Skill, y: Skill) -> Skill:
    """Two people who are not a registered pair, as one player on a pair's scale: the mean of
    their skills (``mu`` the mean, ``sigma`` the mean's: sqrt(s1² + s2²) / 2)."""
    return Skill((x.mu + y.mu) / 2, math.hypot(x.sigma, y.sigma) / 2, 0)


def rate_pair(
    side_a: Skill, side_b: Skill, winner: int, pollona: bool = False
) -> tuple[Skill, Skill]:
    """Both sides after a game that side ``winner`` (0 or 1) won, each side one player.

    A side is a registered pair's rating, or the ``composite`` of its two people's own
    ratings; the caller keeps only the registered pairs' results (a composite is thrown away:
    the people's own ratings move by ``club.ratings.rate``). A pollona applies the update
    twice, as for a person. Each side's ``games`` counts one more.
    """
    if winner not in (0, 1):
        raise ValueError("the winning side is 0 or 1")
    teams = [[MODEL.rating(mu=side_a.mu, sigma=side_a.sigma)],
             [MODEL.rating(mu=side_b.mu, sigma=side_b.sigma)]]  # fmt: skip
    ranks: list[float] = [0.0, 1.0] if winner == 0 else [1.0, 0.0]
    for _ in range(2 if pollona else 1):
        teams = MODEL.rate(teams, ranks=ranks)
    (ra,), (rb,) = teams
    return (
        Skill(float(ra.mu), float(ra.sigma), side_a.games + 1),
        Skill(float(rb.mu), float(rb.sigma), side_b.games + 1),
    )


@dataclass(frozen=True, slots=True)
class PairGame:
    """One game a pair played, as its record counts it."""

    won: bool
    pollonas_given: int
    pollonas_suffered: int
    points_for: int
    points_against: int


def record_of(games: list[PairGame]) -> dict[str, int]:
    """A pair's record: games, wins, losses, pollonas given and suffered, points for and
    against."""
    return {
        "games": len(games),
        "won": sum(g.won for g in games),
        "lost": sum(not g.won for g in games),
        "pollonas_given": sum(g.pollonas_given for g in games),
        "pollonas_suffered": sum(g.pollonas_suffered for g in games),
        "points_for": sum(g.points_for for g in games),
        "points_against": sum(g.points_against for g in games),
    }


def game_for(
    partners: tuple[str, str],
    formed: float | None,
    seats: list[str | None],
    result: dict[str, object],
    finished: float,
    rated: bool,
    leavers: set[int],
) -> PairGame | None:
    """What a finished game counts for the pair of ``partners`` (None: nothing). Counted when
    the game was rated, nobody left it, it finished once the pair was formed, and the two sat
    as partners (seats 0 and 2, or 1 and 3): their side's result, pollonas and points."""
    if not rated or leavers or formed is None or finished < formed:
        return None
    where = [s for s, g in enumerate(seats) if g in partners]
    if len(where) != 2 or {seats[s] for s in where} != set(partners) or where[1] != where[0] + 2:
        return None  # each sat once, and across the table from the other
    side = where[0]
    winner = "AB".index(str(result["winner"]))
    pollonas = _pair_of(result.get("pollonas"))
    points = _pair_of(result.get("points"))
    return PairGame(
        won=winner == side,
        pollonas_given=pollonas[side],
        pollonas_suffered=pollonas[side ^ 1],
        points_for=points[side],
        points_against=points[side ^ 1],
    )


def _pair_of(value: object) -> tuple[int, int]:
    """A result's per-side counts (a record saved before points were kept has none: 0, 0)."""
    if isinstance(value, list | tuple) and len(value) == 2:
        return int(value[0]), int(value[1])
    return 0, 0


def sides_of(seats: list[str | None], pairs: dict[tuple[str, str], int]) -> list[int | None]:
    """For sides A (seats 0, 2) and B (1, 3), the id of the registered pair sitting there as
    partners, or None. ``pairs``: the formed pairs among these people, by their partners."""
    out: list[int | None] = []
    for side in (0, 1):
        x, y = seats[side], seats[side + 2]
        out.append(None if x is None or y is None or x == y else pairs.get(ordered(x, y)))
    return out
