"""Reprs read back, as python-chess's do: what the REPL shows can be pasted in again."""

from __future__ import annotations

import dataclasses
import random

import pytest

import tranque.rules as R
from tranque.rules import HAVANA, PASS, PRESETS, Action, Deal, Rules, TiedBlock, random_deal
from tranque.rules.errors import InvalidDealError
from tranque.rules.tiles import ALL_TILES

NAMESPACE = {name: getattr(R, name) for name in R.__all__}


def test_every_action_reads_back() -> None:
    actions = [PASS, *(Action.lead(t) for t in ALL_TILES)]
    actions += [Action.play(t, n) for t in ALL_TILES for n in {t.high, t.low}]
    for action in actions:
        assert eval(repr(action), NAMESPACE) is action
    assert repr(Action.parse("49@4")) == "Action.parse('94@4')"
    assert repr(PASS) == "Action.parse('pass')"


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_deal_shows_its_tiles_and_reads_back(preset: str) -> None:
    rules = PRESETS[preset]
    deal = random_deal(rules, random.Random(preset))
    text = repr(deal)
    assert text.startswith("Deal.from_text([") and deal.hand_text(0) in text
    assert eval(text, NAMESPACE) == deal


def test_a_deal_without_rules_needs_its_sleepers() -> None:
    with pytest.raises(InvalidDealError, match="sleepers"):
        Deal.from_text(["99", "98", "97", "96"])


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_show_their_name(name: str) -> None:
    assert repr(PRESETS[name]) == name.upper()
    assert eval(repr(PRESETS[name]), NAMESPACE) is PRESETS[name]


def test_other_rules_list_only_what_differs_from_havana() -> None:
    rules = dataclasses.replace(HAVANA, target=200, tied_block=TiedBlock.LEADING_PAIR_WINS)
    assert repr(rules) == "Rules(target=200, tied_block=TiedBlock.LEADING_PAIR_WINS)"
    assert eval(repr(rules), NAMESPACE) == rules
    assert repr(Rules(max_pip=6, tiles_each=7)) == "Rules(max_pip=6, tiles_each=7)"


def test_a_preset_inside_options_is_a_name() -> None:
    assert Rules.from_json({"preset": "miami", "target": 200}).target == 200
    with pytest.raises(R.UnknownOptionError, match="preset name"):
        Rules.from_json({"preset": {"preset": "havana"}})
