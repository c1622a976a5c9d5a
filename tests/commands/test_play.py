"""``tranque play``: what the terminal game accepts and what it tells a newcomer."""

from __future__ import annotations

import dataclasses
import io
import random
from collections.abc import Iterator

import pytest
from rich.console import Console

from tranque.arena.play import final_line, pick_move, play_game
from tranque.bots import make_bot
from tranque.rules import HAVANA, MIAMI, ORIENTE, Action, Deal, GameState, HandState, Phase, Rules
from tranque.rules.views import seat_view

RULES = Rules(tiles_each=4)
DEAL = Deal.from_text(["99 94 00 10", "93 55 66 77", "43 85 86 87", "22 21 20 11"], rules=RULES)


def position(moves: str) -> GameState:
    hand = HandState.start(RULES, DEAL, leader=0)
    for text in moves.split():
        hand = hand.apply(Action.parse(text))
    return GameState.for_hand(hand)


def answers(*texts: str) -> Iterator[str]:
    return iter(texts)


def test_a_bare_tile_is_taken_when_only_one_end_fits() -> None:
    game = position("99")
    view = seat_view(game, 1)
    assert view.legal == (Action.parse("93@9"),)
    said = answers("93")
    assert pick_move(Console(file=io.StringIO()), lambda _: next(said), view) == view.legal[0]
    said = answers("39")
    assert pick_move(Console(file=io.StringIO()), lambda _: next(said), view) == view.legal[0]


def test_a_bare_tile_that_fits_both_ends_asks_which() -> None:
    game = position("99 93@9 43@3 pass")
    view = seat_view(game, 0)
    assert {Action.parse("94@4"), Action.parse("94@9")} <= set(view.legal)
    console = Console(file=io.StringIO(), width=120)
    said = answers("94", "94@9")
    assert pick_move(console, lambda _: next(said), view) == Action.parse("94@9")
    assert "94 fits both ends: say 94@4 or 94@9" in console.file.getvalue()  # type: ignore[attr-defined]


def _play(rules: Rules, seed: int) -> str:
    console = Console(file=io.StringIO(), width=200)
    bots = {s: make_bot("random", s) for s in (1, 2, 3)}

    def ask(prompt: str) -> str:
        return "n" if "redeal" in prompt else "s" if "algo" in prompt else "1"

    play_game(rules, bots, random.Random(seed), console, ask)
    return console.file.getvalue()  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize(
    ("rules", "shown"),
    [
        (HAVANA, "Draw for the first lead: each pair draws a tile, the higher sum leads."),
        (MIAMI, "Pares o nones for the first lead:"),
        (ORIENTE, "the highest double and lead"),
    ],
)
def test_the_first_lead_is_explained(rules: Rules, shown: str) -> None:
    text = _play(rules, 4)
    assert shown in text
    if rules is HAVANA:
        assert "Nosotros draw " in text and ", Ellos draw " in text
        assert "each say Salgo (I lead) or Sal tú (you lead), in secret" in text
        assert "Choices revealed:" in text


def test_the_final_line_puts_the_winners_score_first() -> None:
    over = dataclasses.replace(GameState.new(HAVANA), scores=(40, 104), winner=1, phase=Phase.OVER)
    assert final_line(over) == "Ellos win 104 to 40"
    over = dataclasses.replace(over, scores=(101, 0), winner=0)
    assert final_line(over) == "Nosotros (you) win 101 to 0 — ¡pollona!"
