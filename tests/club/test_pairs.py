"""What a finished game counts for a pair (``club.pairs.game_for``), on drawn seatings and
results, against the rule said plainly; the pair rating's model (``rate_pair``) on a table of
cases; the record's sums."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tranque.club.pairs import PairGame, composite, game_for, ordered, rate_pair, record_of
from tranque.club.ratings import Skill

PEOPLE = ["ana", "beto", "cuca", "dino", "eva"]
# Mostly four different people (as every rated game has), sometimes anything at all.
SEATINGS = st.one_of(
    st.permutations(PEOPLE).map(lambda p: list(p[:4])),
    st.lists(st.sampled_from([*PEOPLE, None]), min_size=4, max_size=4),
)
RESULTS = st.fixed_dictionaries(
    {
        "winner": st.sampled_from("AB"),
        "pollona": st.booleans(),
        "pollonas": st.lists(st.integers(0, 3), min_size=2, max_size=2),
        "points": st.lists(st.integers(0, 600), min_size=2, max_size=2),
    }
)


@settings(max_examples=400)
@given(
    data=st.data(),
    seats=SEATINGS,
    result=RESULTS,
    formed=st.none() | st.floats(0, 100),
    finished=st.floats(0, 100),
    rated=st.booleans(),
    leavers=st.sets(st.integers(0, 3), max_size=1),
)
def test_a_game_counts_when_both_sat_as_partners_in_a_rated_game_after_forming(
    data: st.DataObject,
    seats: list[str | None],
    result: dict[str, object],
    formed: float | None,
    finished: float,
    rated: bool,
    leavers: set[int],
) -> None:
    # The couple: two of those seated (a third of them sit across), or someone who is not.
    seated = sorted({g for g in seats if g is not None} | {"eva", "zoe"})
    couple = data.draw(st.lists(st.sampled_from(seated), min_size=2, max_size=2, unique=True))
    partners = ordered(couple[0], couple[1])
    got = game_for(partners, formed, seats, result, finished, rated, leavers)
    # The rule, said plainly: their two seats are 0 and 2, or 1 and 3.
    where = [s for s in range(4) if seats[s] in partners]
    side = None
    if {seats[s] for s in where} == set(partners) and len(where) == 2 and where[1] - where[0] == 2:
        side = where[0]
    counted = (
        rated and not leavers and formed is not None and finished >= formed and side is not None
    )
    if not counted:
        assert got is None
        return
    assert side is not None
    pollonas, points = result["pollonas"], result["points"]
    assert isinstance(pollonas, list) and isinstance(points, list)
    assert got == PairGame(
        won="AB"[side] == result["winner"],
        pollonas_given=pollonas[side],
        pollonas_suffered=pollonas[1 - side],
        points_for=points[side],
        points_against=points[1 - side],
    )


def test_a_record_saved_before_points_were_kept_counts_none() -> None:
    result = {"winner": "A", "pollona": False, "pollonas": [0, 0], "viajeras": [0, 0]}
    got = game_for(("a", "c"), 0.0, ["a", "b", "c", "d"], result, 1.0, True, set())
    assert got == PairGame(True, 0, 0, 0, 0)


@given(st.lists(st.builds(PairGame, st.booleans(), st.integers(0, 3), st.integers(0, 3),
                          st.integers(0, 600), st.integers(0, 600)), max_size=30))  # fmt: skip
def test_the_record_adds_up(games: list[PairGame]) -> None:
    r = record_of(games)
    assert r["games"] == len(games) == r["won"] + r["lost"]
    assert r["points_for"] == sum(g.points_for for g in games)
    assert r["pollonas_suffered"] == sum(g.pollonas_suffered for g in games)


@pytest.mark.parametrize(
    ("a", "b", "winner", "pollona"),
    [
        (Skill(), Skill(), 0, False),
        (Skill(), Skill(), 1, True),
        (Skill(1700, 200, 30), composite(Skill(1400, 300, 5), Skill(1300, 450, 1)), 1, False),
        (Skill(1500, 80, 200), Skill(1500, 500, 0), 0, False),
    ],
)
def test_the_pair_rating_moves_the_winner_up_and_the_loser_down(
    a: Skill, b: Skill, winner: int, pollona: bool
) -> None:
    after = rate_pair(a, b, winner, pollona)
    won, lost = (after[0], after[1]) if winner == 0 else (after[1], after[0])
    was_won, was_lost = (a, b) if winner == 0 else (b, a)
    assert won.mu > was_won.mu and lost.mu < was_lost.mu
    # Uncertainty shrinks, except where it is already under the model's drift (tau) per game.
    assert all(x.sigma < y.sigma for x, y in zip(after, (a, b), strict=True) if y.sigma >= 200)
    assert (after[0].games, after[1].games) == (a.games + 1, b.games + 1)
    if pollona:  # a pollona is the update twice
        once = rate_pair(a, b, winner)
        assert rate_pair(*once, winner) == (
            Skill(after[0].mu, after[0].sigma, a.games + 2),
            Skill(after[1].mu, after[1].sigma, b.games + 2),
        )


def test_two_strangers_are_one_player_on_a_pairs_scale() -> None:
    c = composite(Skill(1400, 300), Skill(1600, 400))
    assert c.mu == 1500 and c.sigma == 250  # the mean, and the mean's uncertainty
    # A pair is no stronger than two strangers of the same skill: an even game moves both alike.
    a, b = rate_pair(Skill(1500, 250), c, 0)
    assert a.mu - 1500 == pytest.approx(1500 - b.mu)
