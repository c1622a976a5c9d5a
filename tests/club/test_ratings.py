"""OpenSkill ratings: known updates for known results, the pollona's weight, what is rated."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from tranque.club.ratings import MU, PROVISIONAL_GAMES, Skill, outcome_of, rate


def test_a_first_game_between_newcomers_gives_the_known_update() -> None:
    after = rate([Skill()] * 4, winner=0)
    # The package's own model at its own scale (mu 25, sigma 25/3), times 60: the same numbers.
    unit = PlackettLuce()
    t = unit.rate([[unit.rating(), unit.rating()], [unit.rating(), unit.rating()]], ranks=[0, 1])
    assert after[0].mu == pytest.approx(t[0][0].mu * 60) and after[2].mu == after[0].mu
    assert after[1].mu == pytest.approx(t[1][0].mu * 60) and after[3].mu == after[1].mu
    assert after[0].sigma == pytest.approx(t[0][0].sigma * 60)
    # And as plain figures, so that a change of model or scale shows.
    assert after[0].mu == pytest.approx(1617.858, abs=1e-3)
    assert after[1].mu == pytest.approx(1382.142, abs=1e-3)
    assert after[0].sigma == pytest.approx(490.678, abs=1e-3)
    assert [s.games for s in after] == [1, 1, 1, 1] and after[0].provisional


def test_known_update_between_unequal_pairs_and_the_seats_of_each_pair() -> None:
    before = [Skill(1600, 300, 12), Skill(1400, 400, 3), Skill(1500, 200, 30), Skill(1500, 500, 0)]
    after = rate(before, winner=1)  # pair B (seats 1 and 3) wins
    figures = [(round(s.mu, 3), round(s.sigma, 3)) for s in after]
    assert figures == [
        (1538.072, 297.822),
        (1510.080, 390.614),
        (1472.467, 199.406),
        (1671.991, 481.508),
    ]
    assert not after[2].provisional and after[1].provisional


def test_a_pollona_counts_as_two_wins() -> None:
    once = rate([Skill()] * 4, winner=1)
    twice = rate([Skill(s.mu, s.sigma) for s in once], winner=1)
    pollona = rate([Skill()] * 4, winner=1, pollona=True)
    assert [x for s in pollona for x in (s.mu, s.sigma)] == pytest.approx(
        [x for s in twice for x in (s.mu, s.sigma)]
    )
    assert pollona[1].mu > once[1].mu and pollona[0].mu < once[0].mu
    assert pollona[0].games == 1  # still one game played


skills = st.builds(
    Skill,
    st.floats(500, 2500),
    st.floats(30, 500),
    st.integers(0, 100),
)


@given(st.lists(skills, min_size=4, max_size=4), st.sampled_from([0, 1]), st.booleans())
def test_winners_gain_losers_lose_and_uncertainty_shrinks(
    before: list[Skill], winner: int, pollona: bool
) -> None:
    after = rate(before, winner, pollona)
    for seat, (b, a) in enumerate(zip(before, after, strict=True)):
        assert math.isfinite(a.mu)
        if seat % 2 == winner:
            assert a.mu > b.mu
        else:
            assert a.mu < b.mu
        # tau (the drift between games) adds a little before the game takes some away.
        drift = (2 if pollona else 1) * (MU / 300) ** 2  # once per update
        assert a.sigma <= math.sqrt(b.sigma**2 + drift) + 1e-6
        assert a.games == b.games + 1


def _info(kinds: list[str], rules: object = "havana", winner: str | None = "A") -> dict:
    return {
        "settings": {"rules": rules},
        "seats": [{"kind": k, "nickname": f"p{i}"} for i, k in enumerate(kinds)],
        "result": None
        if winner is None
        else {"winner": winner, "pollona": True, "pollonas": [1, 0], "viajeras": [0, 0]},
    }


def test_what_is_rated() -> None:
    four = outcome_of(_info(["person"] * 4))
    assert four is not None and four.persons and four.preset == "havana" and four.pollona
    with_bot = outcome_of(_info(["person", "person", "bot", "person"]))
    assert with_bot is not None and not with_bot.persons
    custom = outcome_of(_info(["person"] * 4, rules={"preset": "havana", "target": 30}))
    assert custom is not None and custom.preset is None
    assert outcome_of(_info(["person"] * 4, winner=None)) is None
    assert outcome_of(_info(["person"] * 4, winner="B")).winner == 1  # type: ignore[union-attr]
    assert PROVISIONAL_GAMES == 10
