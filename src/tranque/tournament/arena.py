"""An arena: scores, standings and who sits with whom.

Per person per game (docs/tournaments.md): a loss 0, a win 2, a pollona win 3; on a streak (his
two previous games in this arena both wins) a win counts double (4, or 6 with a pollona). Bots
have no score; the people at a table with bots score as usual. Ties in the standings: more games
won, then the earlier join (the entrants' order in the file).

Seating: whenever people are free, the ones with the closest arena scores sit together, four at
a table, and nobody's partner is the partner of his previous game when another way avoids it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tranque.tournament.model import ArenaGame, Tournament, TournamentError

WIN, POLLONA_WIN = 2, 3


@dataclass
class ArenaLine:
    id: str
    joined: int  # place in the entrants' order
    score: int = 0
    wins: int = 0
    games: int = 0
    points_for: int = 0
    points_against: int = 0
    results: list[bool] = field(default_factory=list)  # won each game, in order
    partner: str | None = None  # the partner of his last game (None: a bot, or no game yet)
    rank: int = 0

    @property
    def on_streak(self) -> bool:
        return len(self.results) >= 2 and self.results[-1] and self.results[-2]

    def to_json(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "id": self.id,
            "score": self.score,
            "wins": self.wins,
            "games": self.games,
            "points_for": self.points_for,
            "points_against": self.points_against,
            "difference": self.points_for - self.points_against,
            "buchholz": 0,
            "byes": 0,
        }


def game_score(won: bool, pollona: bool, streak: bool) -> int:
    """What one game gives a person."""
    if not won:
        return 0
    return (POLLONA_WIN if pollona else WIN) * (2 if streak else 1)


def play(lines: dict[str, ArenaLine], game: ArenaGame) -> None:
    """Count a finished game for the people at it (in the order games ended)."""
    for seat, eid in enumerate(game.seats):
        if eid is None:
            continue
        line = lines[eid]
        side = "a" if seat % 2 == 0 else "b"
        won = game.winner == side
        line.score += game_score(won, game.pollona, line.on_streak)
        line.wins += won
        line.games += 1
        mine, theirs = (0, 1) if side == "a" else (1, 0)
        line.points_for += game.points[mine]
        line.points_against += game.points[theirs]
        line.results.append(won)
        line.partner = game.seats[(seat + 2) % 4]


def lines_of(t: Tournament) -> dict[str, ArenaLine]:
    lines = {e.id: ArenaLine(e.id, i) for i, e in enumerate(t.entrants)}
    for game in t.games:
        play(lines, game)
    return lines


def standings(t: Tournament) -> list[ArenaLine]:
    """Every entrant ranked: score, then games won, then the earlier join."""
    if t.kind != "arena":
        raise TournamentError(f"a {t.kind} has no arena standings")
    ranked = sorted(lines_of(t).values(), key=lambda x: (-x.score, -x.wins, x.joined))
    for i, line in enumerate(ranked, 1):
        line.rank = i
    return ranked


# The three ways to split four people (best score first) into two pairs, as the people in seats
# 0-3 (pair A is seats 0 and 2): the first with the fourth, the first with the third, the first
# with the second.
_SPLITS = ((0, 1, 3, 2), (0, 1, 2, 3), (0, 2, 1, 3))


def seat_free(free: Sequence[ArenaLine]) -> list[tuple[str, str, str, str]]:
    """Tables of four from the people free now: closest scores together (the best four, the
    next four, ...), each table split into pairs so that nobody partners his last partner when
    another split avoids it, and the pairs as even as the split allows. Whoever is left over
    (fewer than four) waits: the service fills with bots after the fill time."""
    ordered = sorted(free, key=lambda x: (-x.score, -x.wins, x.joined))
    tables = []
    for i in range(0, len(ordered) - len(ordered) % 4, 4):
        four = ordered[i : i + 4]
        tables.append(_split(four))
    return tables


def _split(four: Sequence[ArenaLine]) -> tuple[str, str, str, str]:
    def repeats(order: tuple[int, int, int, int]) -> int:
        seats = [four[k] for k in order]
        return sum(
            1 for s in range(4) if seats[s].partner is not None
            and seats[s].partner == seats[(s + 2) % 4].id
        )  # fmt: skip

    def spread(order: tuple[int, int, int, int]) -> int:
        seats = [four[k] for k in order]
        return abs((seats[0].score + seats[2].score) - (seats[1].score + seats[3].score))

    # The first best of: fewest repeated partners, then the most even pairs, then the order
    # of _SPLITS (the strongest with the weakest first).
    order = min(_SPLITS, key=lambda o: (repeats(o), spread(o)))
    return (four[order[0]].id, four[order[1]].id, four[order[2]].id, four[order[3]].id)


Seats = tuple[str | None, str | None, str | None, str | None]


def seat_leftover(free: Sequence[ArenaLine]) -> Seats:
    """The table of the one to three people left over once their fill time has passed: they
    take the first seats in score order and bots (``None``) the rest. Two people sit as
    opponents (each partners a bot); of three, the two partners are a pair who were not
    partners in their last games when another choice avoids it."""
    ordered = sorted(free, key=lambda x: (-x.score, -x.wins, x.joined))
    if not 1 <= len(ordered) <= 3:
        raise TournamentError("a table with bots seats one to three people")
    ids: list[str | None] = [x.id for x in ordered]
    if len(ordered) == 3:
        # Seats 0 and 2 are partners: the first of the orders (best first) with no repeat.
        a, b, c = ordered

        def repeat(x: ArenaLine, y: ArenaLine) -> bool:
            return x.partner == y.id or y.partner == x.id

        for p0, p1, p2 in ((a, b, c), (a, c, b), (b, a, c)):
            if not repeat(p0, p2):
                ids = [p0.id, p1.id, p2.id]
                break
    seats = [*ids, None, None, None][:4]
    return (seats[0], seats[1], seats[2], seats[3])
