"""The arena's scores (a win 2, a pollona 3, doubled on a streak of two wins) and standings
(score, then wins, then the earlier join), and its seating of the free."""

from __future__ import annotations

from tranque.tournament import arena
from tranque.tournament.model import FORMAT, ArenaGame, Entrant, Tournament


def _arena(games: list[ArenaGame], people: int = 5) -> Tournament:
    entrants = [Entrant(f"p{i}", [f"p{i}"]) for i in range(people)]
    return Tournament(FORMAT, "arena", minutes=60, entrants=entrants, games=games)


def test_scores_double_on_a_streak_and_bots_have_none() -> None:
    # p0 and p2 win three in a row (the third a pollona, on a streak: 6); p1 loses all.
    seats = ("p0", "p1", "p2", None)
    games = [
        ArenaGame("g1", 100, seats, (100, 40), "a"),
        ArenaGame("g2", 200, seats, (100, 40), "a"),
        ArenaGame("g3", 300, seats, (100, 0), "a", pollona=True),
        ArenaGame("g4", 400, ("p3", "p4", None, None), (10, 100), "b"),
    ]
    table = {x.id: (x.score, x.wins, x.rank) for x in arena.standings(_arena(games))}
    assert table["p0"] == (2 + 2 + 6, 3, 1)
    assert table["p2"] == (2 + 2 + 6, 3, 2)  # level with p0: joined later
    assert table["p4"] == (2, 1, 3)
    assert table["p1"][:2] == (0, 0) and table["p3"][:2] == (0, 0)
    assert table["p1"][2] == 4  # level with p3 at nothing: the earlier join first


def test_a_streak_is_broken_by_a_loss() -> None:
    seats = ("p0", "p1", None, None)
    won, lost = (100, 0), (0, 100)
    games = [ArenaGame(f"g{i}", i, seats, pts, w) for i, (pts, w) in
             enumerate([(won, "a"), (won, "a"), (lost, "b"), (won, "a"), (won, "a")])]  # fmt: skip
    p0 = next(x for x in arena.standings(_arena(games)) if x.id == "p0")
    assert p0.score == 2 + 2 + 0 + 2 + 2  # never two wins just before a win


def test_closest_scores_sit_together_and_nobody_keeps_his_partner() -> None:
    games = [ArenaGame("g1", 1, ("p0", "p1", "p2", "p3"), (100, 0), "a")]
    lines = arena.lines_of(_arena(games, people=8))
    tables = arena.seat_free(list(lines.values()))
    assert len(tables) == 2
    # The two winners, then the best of the rest (level at 0: the earlier joins).
    assert set(tables[0]) == {"p0", "p2", "p1", "p3"}
    first = tables[0]
    assert {first[0], first[2]} != {"p0", "p2"} and {first[1], first[3]} != {"p0", "p2"}
    assert {first[1], first[3]} != {"p1", "p3"} and {first[0], first[2]} != {"p1", "p3"}
    assert set(tables[1]) == {"p4", "p5", "p6", "p7"}


def test_a_leftover_group_sits_with_bots_and_partners_are_not_repeated() -> None:
    a = arena.ArenaLine("p1", 0, score=6, partner="p3")
    b = arena.ArenaLine("p2", 1, score=4)
    c = arena.ArenaLine("p3", 2, score=2, partner="p1")
    # Three: seats 0 and 2 are partners; p1 and p3 were partners last game, so p1 partners p2.
    assert arena.seat_leftover([c, b, a]) == ("p1", "p3", "p2", None)
    # Two sit as opponents, each with a bot; one sits with three bots.
    assert arena.seat_leftover([b, a]) == ("p1", "p2", None, None)
    assert arena.seat_leftover([c]) == ("p3", None, None, None)
    fresh = [arena.ArenaLine(f"p{n}", n) for n in range(1, 4)]
    assert arena.seat_leftover(fresh) == ("p1", "p2", "p3", None)
    for wrong in ([], [*fresh, arena.ArenaLine("p9", 9)]):
        try:
            arena.seat_leftover(wrong)
        except arena.TournamentError:
            continue
        raise AssertionError(f"{len(wrong)} people sat at a table with bots")
