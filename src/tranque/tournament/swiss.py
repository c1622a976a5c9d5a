"""A Swiss of fixed pairs: standings, the bye and the next round's pairing.

Everything here is a function of the file's results, so the command line, the simulation and
the service agree on every round. The rules (docs/tournaments.md):

- **standings**: wins (a bye is a win), then points difference, then points for, then Buchholz
  (for every game played, forfeits included, the opponent's wins, byes included), then the
  seeding: the rating at registration, higher first, then the id as a plain string. Withdrawn
  entrants stay in the standings, ranked by the same rules.
- **bye**: with an odd number of active entrants, the lowest-ranked one that has not had a bye
  sits out (all have: the lowest-ranked).
- **pairing**: among all ways to seat the others two by two, one with no rematch; among those,
  one with the least sum over tables of the squared difference of the two entrants' wins. When
  every way has rematches: the fewest rematches first, then the same sum.

The pairing is a minimum-weight perfect matching on the complete graph of the entrants to seat
(networkx's blossom algorithm, exact on whole numbers): an edge costs its squared difference of
wins, plus a rematch's price, larger than any sum of squares the round can have, so that one
rematch fewer always beats any sum. Ties between equal sums go to the matching the algorithm
finds with the entrants taken in standings order: the same file always gives the same round.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tranque.tournament.model import Tournament, TournamentError


@dataclass
class Standing:
    """One entrant's line. ``opponents``: one per game played (forfeits included)."""

    id: str
    rating: float
    withdrawn: bool
    wins: int = 0
    points_for: int = 0
    points_against: int = 0
    byes: int = 0
    buchholz: int = 0
    opponents: list[str] = field(default_factory=list)
    rank: int = 0

    @property
    def difference(self) -> int:
        return self.points_for - self.points_against

    def key(self) -> tuple[int, int, int, int, float, str]:
        return (
            -self.wins,
            -self.difference,
            -self.points_for,
            -self.buchholz,
            -self.rating,
            self.id,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "id": self.id,
            "wins": self.wins,
            "points_for": self.points_for,
            "points_against": self.points_against,
            "difference": self.difference,
            "buchholz": self.buchholz,
            "byes": self.byes,
        }


@dataclass(frozen=True)
class Pairing:
    """The next round: its tables (``a`` the higher-ranked) and its byes (always a list)."""

    round: int
    tables: list[tuple[str, str]]
    byes: list[str]

    def to_json(self) -> dict[str, object]:
        return {
            "round": self.round,
            "tables": [{"a": a, "b": b} for a, b in self.tables],
            "byes": self.byes,
        }


def standings(t: Tournament) -> list[Standing]:
    """Every entrant ranked (1 first), withdrawn ones included."""
    lines = {e.id: Standing(e.id, e.rating, e.withdrawn) for e in t.entrants}
    for r in t.played:
        for eid in r.byes:
            lines[eid].wins += 1
            lines[eid].byes += 1
        for tb in r.tables:
            a, b = lines[tb.a], lines[tb.b]
            a.points_for += tb.points[0]
            a.points_against += tb.points[1]
            b.points_for += tb.points[1]
            b.points_against += tb.points[0]
            if tb.winner == "a":
                a.wins += 1
            elif tb.winner == "b":
                b.wins += 1
            a.opponents.append(b.id)
            b.opponents.append(a.id)
    for line in lines.values():
        line.buchholz = sum(lines[o].wins for o in line.opponents)
    ranked = sorted(lines.values(), key=Standing.key)
    for i, line in enumerate(ranked, 1):
        line.rank = i
    return ranked


def met(t: Tournament) -> set[frozenset[str]]:
    """Every two entrants who have met (a forfeit is a meeting)."""
    return {frozenset((tb.a, tb.b)) for r in t.played for tb in r.tables}


def choose_bye(ranked: list[Standing]) -> str | None:
    """Who sits out this round: None when the active entrants are even."""
    active = [s for s in ranked if not s.withdrawn]
    if len(active) % 2 == 0:
        return None
    for s in reversed(active):
        if s.byes == 0:
            return s.id
    return active[-1].id


def pair_round(t: Tournament) -> Pairing:
    """The next round of a Swiss. TournamentError when there is none to play (the last round
    is played, or fewer than two entrants are active)."""
    if t.kind != "swiss-pairs":
        raise TournamentError(f"a {t.kind} has no rounds to pair")
    assert t.rounds is not None  # model.check
    number = len(t.played) + 1
    if number > t.rounds:
        raise TournamentError(f"all {t.rounds} rounds are played")
    ranked = standings(t)
    active = [s for s in ranked if not s.withdrawn]
    if len(active) < 2:
        raise TournamentError(f"{len(active)} active entrant(s): nobody to pair")
    bye = choose_bye(ranked)
    seated = [s for s in active if s.id != bye]
    tables = match(seated, met(t))
    return Pairing(number, tables, [] if bye is None else [bye])


def cost(a: Standing, b: Standing, rematch: bool, price: int) -> int:
    """What seating ``a`` against ``b`` costs the round (the pairing's sum, in one number)."""
    return (a.wins - b.wins) ** 2 + (price if rematch else 0)


def match(seated: list[Standing], meetings: set[frozenset[str]]) -> list[tuple[str, str]]:
    """The tables of the least cost, each ``(higher-ranked, lower-ranked)``, in rank order."""
    import networkx as nx

    if not seated:
        return []
    wins = [s.wins for s in seated]
    # A rematch costs more than the largest sum of squares a round of these entrants can have.
    price = len(seated) // 2 * (max(wins) - min(wins)) ** 2 + 1
    graph = nx.Graph()
    graph.add_nodes_from(range(len(seated)))  # standings order: ties go the same way each time
    costs: dict[tuple[int, int], int] = {}
    for i, a in enumerate(seated):
        for j in range(i + 1, len(seated)):
            b = seated[j]
            costs[i, j] = cost(a, b, frozenset((a.id, b.id)) in meetings, price)
    top = max(costs.values()) + 1
    # Maximum weight among the perfect matchings = minimum cost (every one has n/2 edges).
    graph.add_weighted_edges_from((i, j, top - c) for (i, j), c in costs.items())
    chosen = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(chosen) != len(seated):
        raise TournamentError("no pairing seats everyone")  # an odd field: never, after the bye
    pairs = sorted(tuple(sorted(edge)) for edge in chosen)
    return [(seated[i].id, seated[j].id) for i, j in pairs]


def round_cost(
    tables: list[tuple[str, str]], lines: dict[str, Standing], meetings: set[frozenset[str]]
) -> tuple[int, int]:
    """(rematches, sum of squared differences of wins) of a round's tables: what the pairing
    minimises, in that order."""
    rematches = sum(1 for a, b in tables if frozenset((a, b)) in meetings)
    squares = sum((lines[a].wins - lines[b].wins) ** 2 for a, b in tables)
    return rematches, squares
