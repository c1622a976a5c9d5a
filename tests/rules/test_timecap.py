"""The time cap's decision (rules/timecap.py): at a hand's end past the time, the pair ahead wins;
level scores, or time not up, play on; the game ends where it stands, as far as it was played."""

from __future__ import annotations

import random

import pytest

from tranque.rules.dealing import deal_next
from tranque.rules.errors import WrongPhaseError
from tranque.rules.game import GameState, Phase
from tranque.rules.record import game_record, replay_game
from tranque.rules.timecap import end_by_time, time_up_winner
from tranque.rules.variants import HAVANA


@pytest.mark.parametrize(
    ("scores", "ended_at", "deadline", "winner"),
    [
        ((45, 30), 1200.0, 1200.0, 0),  # exactly at the time: it is up
        ((12, 60), 1500.0, 1200.0, 1),
        ((45, 45), 1300.0, 1200.0, None),  # level: one more hand
        ((0, 0), 1300.0, 1200.0, None),
        ((10, 80), 1199.9, 1200.0, None),  # not yet
        ((10, 80), 9999.0, None, None),  # no cap
    ],
)
def test_the_pair_ahead_wins_once_time_is_up(
    scores: tuple[int, int], ended_at: float, deadline: float | None, winner: int | None
) -> None:
    assert time_up_winner(scores, ended_at, deadline) == winner


def _one_hand(game: GameState, rng: random.Random) -> GameState:
    """Deal and play one hand with the first legal action every turn."""
    game = deal_next(game, rng)
    while game.phase is Phase.REDEAL:
        game = game.answer_redeal(game.redeal_eligible()[0], False)
    if game.phase is Phase.CHOOSE:
        game = game.choose_leader(None, None)
    while game.phase is Phase.PLAY:
        assert game.hand is not None
        game = game.play(game.hand.legal_actions()[0])
    return game


def test_a_game_ended_by_time_is_over_at_its_scores_and_its_record_replays() -> None:
    rng = random.Random(3)
    game = GameState.new(HAVANA)
    while game.scores[0] == game.scores[1]:
        game = _one_hand(game, rng)
    assert game.phase is Phase.DEAL and not game.is_over
    ahead = 0 if game.scores[0] > game.scores[1] else 1
    with pytest.raises(WrongPhaseError):
        end_by_time(game, ahead ^ 1)  # never the pair behind
    ended = end_by_time(game, ahead)
    assert ended.is_over and ended.winner == ahead and ended.scores == game.scores
    assert max(ended.scores) < HAVANA.target
    # Its record is the game as far as it went: a valid record whose replay is not over.
    again = replay_game(game_record(ended))
    assert again.scores == ended.scores and not again.is_over
    with pytest.raises(WrongPhaseError):
        end_by_time(ended, ahead)  # over already
