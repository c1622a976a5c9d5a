"""Who leads, redeals, the score sheet, the end of a game, and a match."""

from __future__ import annotations

import random

import pytest

from tranque.rules.dealing import deal_next, random_deal
from tranque.rules.errors import IllegalMoveError, InvalidDealError, WrongPhaseError
from tranque.rules.game import GameState, LeadChoice, MatchState, Phase, Setup, resolve_lead
from tranque.rules.hand import Action, Deal
from tranque.rules.tiles import DOUBLES_MASK, Tile, tiles_of
from tranque.rules.variants import BARRIO, HAVANA, MIAMI, ORIENTE, Rules

SALGO, SAL_TU = LeadChoice.SALGO, LeadChoice.SAL_TU
T = Tile.parse


@pytest.mark.parametrize(
    ("first", "second", "leader"),
    [
        (SALGO, SAL_TU, 1),
        (SAL_TU, SALGO, 3),
        (SALGO, SALGO, 3),  # both the same: priority
        (SAL_TU, SAL_TU, 3),
        (None, None, 3),  # neither answered: priority
        (SALGO, None, 1),  # silent counts as Sal tú
        (None, SALGO, 3),
        (SAL_TU, None, 3),  # Sal tú + silent (= Sal tú): both the same, priority
        (None, SAL_TU, 3),
    ],
)
def test_salgo_sal_tu_resolution(
    first: LeadChoice | None, second: LeadChoice | None, leader: int
) -> None:
    assert resolve_lead((1, 3), (first, second), priority=3) == leader


def test_first_hand_draw_decides_the_pair_and_its_first_seat_has_priority() -> None:
    rng = random.Random(1)
    game = GameState.new(HAVANA)
    assert game.needs_first_draw()
    with pytest.raises(InvalidDealError, match="draw"):
        game.deal(random_deal(HAVANA, rng))
    # Equal sums (95 = 14 = 86) draw again; then 43 (7) against 52 (7)? equal too; 61 beats 50.
    draw = [(T("95"), T("86")), (T("43"), T("52")), (T("50"), T("61"))]
    game = _no_redeal(game.deal(_deal_without_redeal(rng), draw=draw))
    assert game.phase is Phase.CHOOSE
    assert game.setup.leading_pair == 1 and game.setup.priority == 1
    assert game.choosing_seats() == (1, 3)
    game = game.choose_leader(None, None)
    assert game.hand is not None and game.hand.leader == 1


@pytest.mark.parametrize(
    "draw",
    [
        [(T("95"), T("86"))],  # equal sums must be drawn again
        [(T("95"), T("43")), (T("61"), T("50"))],  # a decided draw is not drawn again
        [(T("95"), T("95"))],
    ],
)
def test_bad_draws_are_rejected(draw: list[tuple[Tile, Tile]]) -> None:
    with pytest.raises(InvalidDealError):
        GameState.new(HAVANA).deal(_deal_without_redeal(random.Random(2)), draw=draw)


def test_coin_decides_miami_first_hand() -> None:
    game = GameState.new(MIAMI)
    assert game.needs_coin() and not game.needs_first_draw()
    game = _no_redeal(game.deal(_deal_without_redeal(random.Random(3)), coin=1))
    assert game.setup.leading_pair == 1


def test_holder_of_the_highest_double_leads_in_oriente_and_barrio() -> None:
    rng = random.Random(4)
    for rules in (ORIENTE, BARRIO):
        for _ in range(20):
            game = _no_redeal(GameState.new(rules).deal(random_deal(rules, rng)))
            assert game.phase is Phase.PLAY and game.hand is not None
            deal = game.hand.deal
            top = max(
                (t for s in range(4) for t in tiles_of(deal.hands[s]) if t.is_double),
                key=lambda t: t.pips,
            )
            assert deal.hands[game.hand.leader] & top.bit
            # The leader may lead any tile.
            assert len(game.legal_actions()) == rules.tiles_each
    assert ORIENTE.max_pip == 6  # the 66 is always dealt: no sleepers


def test_redeal_is_a_right_and_keeps_the_right_to_lead() -> None:
    rng = random.Random(5)
    rich = _deal_with_doubles(rng, seat=2, doubles=5)
    draw = [(T("99"), T("00"))]
    game = GameState.new(HAVANA).deal(rich, draw=draw)
    assert game.phase is Phase.REDEAL and game.redeal_eligible() == (2,)
    with pytest.raises(IllegalMoveError, match="seat 1 cannot ask"):
        game.answer_redeal(1, True)
    with pytest.raises(WrongPhaseError):
        game.play(Action.parse("99"))
    asked = game.answer_redeal(2, True)
    assert asked.phase is Phase.DEAL and asked.setup.redeals[0].asked_by == 2
    assert not asked.needs_first_draw()  # the right to lead does not change
    asked = _no_redeal(asked.deal(_deal_without_redeal(rng)))
    assert asked.setup.leading_pair == 0
    declined = game.answer_redeal(2, False)
    assert declined.phase is Phase.CHOOSE and declined.setup.redeals == ()


def test_a_held_deal_waits_in_redeal_whoever_may_ask_until_it_is_closed() -> None:
    """``hold``: the deal stays in REDEAL whether or not a seat may ask; a decline changes no
    phase; ``close_redeal`` goes on exactly as the unheld game does once everybody declined."""
    rng = random.Random(7)
    draw = [(T("99"), T("00"))]
    for deal in (_deal_without_redeal(rng), _deal_with_doubles(rng, seat=1, doubles=6)):
        game = GameState.new(HAVANA)
        held = game.deal(deal, draw=draw, hold=True)
        assert held.phase is Phase.REDEAL and held.redeal_held
        if held.redeal_eligible():
            declined = held.answer_redeal(1, False)
            assert declined.phase is Phase.REDEAL and declined.redeal_eligible() == ()
            assert declined.close_redeal() == _no_redeal(game.deal(deal, draw=draw))
        closed = held.close_redeal()
        assert closed.phase is Phase.CHOOSE and not closed.redeal_held
        assert closed == _no_redeal(game.deal(deal, draw=draw))
        with pytest.raises(WrongPhaseError):
            closed.close_redeal()
    asked = held.answer_redeal(1, True)
    assert asked.phase is Phase.DEAL and not asked.redeal_held
    assert asked.setup.redeals[0].asked_by == 1


def test_later_hands_winners_choose_and_tied_block_passes_the_lead() -> None:
    rng = random.Random(6)
    game = _play_until(GameState.new(HAVANA), rng, lambda g: len(g.played) >= 1)
    last = game.played[-1].hand
    out = last.outcome
    assert out is not None
    if out.winner is None:
        assert game.setup.leading_pair == (last.leader & 1) ^ 1
        assert game.setup.priority == (last.leader + 1) & 3
    else:
        assert game.setup.leading_pair == out.winner & 1
        assert game.setup.priority == out.winner


def test_next_leader_in_oriente_and_barrio() -> None:
    rng = random.Random(7)
    for rules in (ORIENTE, BARRIO):
        game = _play_until(GameState.new(rules), rng, lambda g: len(g.played) >= 1 or g.is_over)
        if game.is_over:
            continue
        last = game.played[-1].hand
        out = last.outcome
        assert out is not None
        if rules is ORIENTE:
            assert game.setup.leader == (last.leader + 1) & 3
        else:
            assert game.setup.leader == out.winner


def test_a_bonus_reaching_the_target_ends_the_game_mid_hand() -> None:
    rules = Rules(tiles_each=2, target=20, unanswered_double_lead_points=20)
    deal = Deal.from_text(["99 10", "21 32", "43 54", "65 76"], rules=rules)
    game = GameState(rules, setup=Setup(3, leading_pair=0, priority=0)).deal(deal)
    game = game.choose_leader(SALGO, None).play(Action.parse("99"))
    assert game.phase is Phase.OVER and game.winner == 0
    assert [(ln.kind, ln.points) for ln in game.sheet] == [("unanswered_double_lead", 20)]


def test_score_sheet_running_totals_and_game_end() -> None:
    rng = random.Random(8)
    for rules in (HAVANA, MIAMI, ORIENTE, BARRIO):
        game = _play_until(GameState.new(rules), rng, lambda g: g.is_over)
        totals = [0, 0]
        for line in game.sheet:
            if line.pair >= 0:
                totals[line.pair] += line.points
            assert line.totals == tuple(totals)
        assert game.scores == tuple(totals)
        assert game.winner is not None and game.scores[game.winner] >= rules.target
        assert game.scores[game.winner ^ 1] < rules.target
        assert game.pollona == (game.scores[game.winner ^ 1] == 0)
        with pytest.raises(WrongPhaseError):
            game.deal(random_deal(rules, rng))


def test_match_best_of_three_counts_a_pollona_twice() -> None:
    rng = random.Random(9)
    match = MatchState(MIAMI)
    while match.winner is None:
        match = match.add_game(_play_until(GameState.new(MIAMI), rng, lambda g: g.is_over))
    wins = [0, 0]
    for g in match.games:
        assert g.winner is not None
        wins[g.winner] += 2 if g.pollona else 1
    assert tuple(wins) == match.wins and max(wins) >= 2
    with pytest.raises(WrongPhaseError):
        match.add_game(match.games[0])


# -- helpers ----------------------------------------------------------------------------------


def _deal_without_redeal(rng: random.Random) -> Deal:
    while True:
        deal = random_deal(HAVANA, rng)
        if all((h & DOUBLES_MASK).bit_count() < 5 for h in deal.hands):
            return deal


def _deal_with_doubles(rng: random.Random, seat: int, doubles: int) -> Deal:
    while True:
        deal = random_deal(HAVANA, rng)
        counts = [(h & DOUBLES_MASK).bit_count() for h in deal.hands]
        if counts[seat] == doubles and all(c < 5 for s, c in enumerate(counts) if s != seat):
            return deal


def _no_redeal(game: GameState) -> GameState:
    while game.phase is Phase.REDEAL:
        game = game.answer_redeal(game.redeal_eligible()[0], False)
    return game


def _play_until(game: GameState, rng: random.Random, done) -> GameState:  # type: ignore[no-untyped-def]
    while not done(game) and not game.is_over:
        if game.phase is Phase.DEAL:
            game = deal_next(game, rng)
        elif game.phase is Phase.REDEAL:
            game = game.answer_redeal(game.redeal_eligible()[0], False)
        elif game.phase is Phase.CHOOSE:
            game = game.choose_leader(rng.choice([SALGO, SAL_TU, None]), None)
        else:
            game = game.play(rng.choice(game.legal_actions()))
    return game


def test_a_game_ended_by_a_bonus_shows_every_hand() -> None:
    from tranque.rules.views import public_view, seat_view

    rules = Rules(tiles_each=2, target=20, unanswered_double_lead_points=20)
    # Seat 1 cannot answer the 99, but seat 2 holds a 9: the hand goes on, the game does not.
    deal = Deal.from_text(["99 10", "21 32", "93 54", "65 76"], rules=rules)
    game = GameState(rules, setup=Setup(3, leading_pair=0, priority=0)).deal(deal)
    game = game.choose_leader(SALGO, None).play(Action.parse("99"))
    assert game.is_over and game.hand is not None and not game.hand.is_over
    view = public_view(game)
    assert view.final_hands is not None and view.sleepers is not None
    assert [str(t) for t in view.final_hands[1]] == ["32", "21"]
    assert seat_view(game, 2).public.final_hands == view.final_hands
