"""``facil`` and the levels: a weaker bot that still plays like a person, and the level names."""

from __future__ import annotations

import pytest

from tranque.bots.base import LEVELS, make_bot, resolve_bot
from tranque.bots.convert import sample_view
from tranque.bots.facil import MARGIN
from tranque.bots.heuristic import HeuristicBot


def test_levels_name_the_bots_and_bot_names_pass_through() -> None:
    assert LEVELS == {"facil": "facil", "normal": "heuristic", "fuerte": "strong"}
    assert [resolve_bot(x) for x in LEVELS] == ["facil", "heuristic", "strong"]
    for name in ("random", "greedy", "heuristic", "strong", "strong-slow", "facil"):
        assert resolve_bot(name) == name
    for bad in ("", "Fuerte", "imposible"):
        with pytest.raises(ValueError, match="levels: facil, normal, fuerte"):
            resolve_bot(bad)


def test_facil_is_legal_deterministic_never_absurd_and_not_the_heuristic() -> None:
    heuristic = HeuristicBot(0)
    differs = 0
    for seed in range(300):
        view = sample_view(seed=seed, moves=seed % 19)
        if len(view.legal) < 2:
            continue
        a = make_bot("facil", seed).choose_action(view)
        assert a in view.legal
        assert make_bot("facil", seed).choose_action(view) == a  # the same seed, the same move
        scores = heuristic.scores(view)
        # Never far below the heuristic's best: no move a person would call absurd.
        assert scores[view.legal.index(a)] >= max(scores) - MARGIN
        differs += a != heuristic.choose_action(view)
    assert differs > 20  # ... and it does make a person's mistakes
