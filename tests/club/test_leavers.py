"""The leaver rule's exact update (club.leavers, docs/club.md): the leaver loses alone, his
partner does not move, the others move as for the normal result; all leavers: nobody moves."""

from __future__ import annotations

from tranque.club.leavers import leavers_of, rate_with_leavers
from tranque.club.ratings import Skill, rate

FOUR = [Skill(1600, 300, 12), Skill(1450, 200, 30), Skill(1500, 500, 0), Skill(1520, 250, 15)]


def test_a_leaver_of_the_winning_pair_takes_the_loss_and_his_partner_stays() -> None:
    new = rate_with_leavers(FOUR, 0, True, {2})  # pair A won by a pollona; seat 2 had left
    normal, lost = rate(FOUR, 0, True), rate(FOUR, 1, False)
    assert new[0] is None  # his partner
    assert new[2] == lost[2] and new[2] is not None and new[2].mu < FOUR[2].mu
    assert new[1] == normal[1] and new[3] == normal[3]  # the opponents: the board's result


def test_a_leaver_of_the_losing_pair_takes_the_normal_loss() -> None:
    new = rate_with_leavers(FOUR, 0, False, {1})
    normal = rate(FOUR, 0, False)
    assert new == [normal[0], normal[1], normal[2], None]


def test_nobody_moves_when_all_left_and_everybody_as_usual_when_none_did() -> None:
    assert rate_with_leavers(FOUR, 1, False, {0, 1, 2, 3}) == [None] * 4
    assert rate_with_leavers(FOUR, 1, False, set()) == rate(FOUR, 1, False)


def test_a_leaver_is_away_for_more_than_a_quarter_of_his_own_decisions() -> None:
    info = {"decisions": {"made": [20, 20, 20, 0], "by_bot": [5, 6, 0, 0]}}
    assert leavers_of(info) == {1}  # 5 of 20 is a quarter, not more
    assert leavers_of({}) == set() and leavers_of({"decisions": {"made": [1]}}) == set()
