"""The screen on real records: which decisions it counts, that it is repeatable; the colluding
bots (never seatable; what they see); and, on generated games with a fixed seed, colluding pairs
flagged and honest pairs not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tranque.analysis.engine import EXACT_TILES, decisions, hands_of
from tranque.bots.base import make_bot, resolve_bot
from tranque.cli import main
from tranque.fairplay.colluders import AllSeer, PartnerPeeker
from tranque.fairplay.screen import screen_record
from tranque.fairplay.selfplay import play_record
from tranque.fairplay.stats import Z_FLAG
from tranque.fairplay.worlds import voids
from tranque.rules.game import GameState
from tranque.rules.views import seat_view


@pytest.fixture(scope="module")
def heuristic_game() -> dict[str, Any]:
    return play_record(["heuristic"] * 4, ["ana", None, "carla", None], seed=11)


def test_the_screen_counts_every_real_decision_of_the_people_and_no_bots(
    heuristic_game: dict[str, Any],
) -> None:
    out = screen_record(heuristic_game)
    assert out["players"] == ["ana", None, "carla", None]
    hands = [h for game in hands_of(heuristic_game) for h in game]
    for s in range(4):
        row = out["seats"][s]
        real = [st for h in hands for _, st in decisions(h, (s,))]
        exact = [st for st in real if sum(x.bit_count() for x in st.hands) <= EXACT_TILES]
        if s in (1, 3):  # bots: nothing counted
            assert row["decisions"] == 0 and row["edge_decisions"] == 0
            continue
        assert row["decisions"] == len(real) > 0
        assert row["edge_decisions"] == len(exact) > 0
        assert 0 <= row["top"] <= row["decisions"] and row["loss"] >= 0
    again = screen_record(heuristic_game)
    assert again["seats"] == out["seats"]  # seeded from public facts: the same sums
    everyone = screen_record(heuristic_game, all_seats=True)
    assert everyone["seats"][0] == out["seats"][0] and everyone["seats"][1]["decisions"] > 0


def test_the_command_gives_the_same_figures_on_one_process_or_two(
    heuristic_game: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = play_record(
        ["facil", "heuristic", "facil", "heuristic"], ["ana", "x", "carla", None], 5
    )
    files = []
    for i, record in enumerate((heuristic_game, other)):
        path = tmp_path / f"g{i}.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        files.append(str(path))
    outs = []
    for workers in ("1", "2"):
        assert main(["fairplay", "screen", *files, "--workers", workers, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        del out["screen_cpu_seconds"]
        outs.append(out)
    assert outs[0] == outs[1]
    assert outs[0]["games"] == 2
    assert [p["id"] for p in outs[0]["people"]] == ["ana", "carla", "x"]
    assert [p["ids"] for p in outs[0]["partnerships"]] == [["ana", "carla"]]
    assert outs[0]["partnerships"][0]["games"] == 2


@pytest.mark.parametrize("name", ["colluder", "partner-peeker", "all-seer", "collude:partner"])
def test_the_colluders_are_not_bots_anyone_can_seat(name: str) -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot(name)
    with pytest.raises(ValueError, match="unknown bot or level"):
        resolve_bot(name)


def test_a_partner_peeker_deals_worlds_with_its_partners_true_tiles(
    heuristic_game: dict[str, Any],
) -> None:
    # The last real decision of the first hand with a pass before it: voids to respect.
    target = None
    for hand in hands_of(heuristic_game)[0]:
        for _, st in decisions(hand, (0, 1, 2, 3)):
            if any(v for v in voids(st)):
                target = st
        if target is not None:
            break
    assert target is not None, "no decision after a pass in the game"
    game = GameState.for_hand(target)
    me = target.turn
    bot = PartnerPeeker(3, lambda: target)
    worlds = bot.worlds(seat_view(game, me))
    void = voids(target)
    assert len(worlds) == bot.level.chains * bot.level.per_chain
    for w in worlds:
        assert w[me] == target.hands[me] and w[me ^ 2] == target.hands[me ^ 2]
        for s in (me ^ 1, me ^ 3):
            assert int(w[s]).bit_count() == target.hands[s].bit_count()
            assert not int(w[s]) & void[s]  # never a tile of a number it passed on
        assert not int(w[me ^ 1]) & int(w[me ^ 3])
    assert any(int(w[me ^ 1]) != target.hands[me ^ 1] for w in worlds)  # not the truth
    seer = AllSeer(3, lambda: target).worlds(seat_view(game, me))
    assert [int(x) for x in seer[0]] == list(target.hands)


# --------------------------------------------------------------------------------------------
# Generated games, a fixed seed: the colluders flagged, the honest not

# This seed's pairs measured z_edge 5.66 (seers) and z_partner 8.59 (peekers); the honest pairs'
# largest z was 1.46. The bounds keep a margin under the first two and over the last.
Z_SEERS = 4.5
Z_PEEKERS = 6.0
assert min(Z_SEERS, Z_PEEKERS) > Z_FLAG
SEED = 20261205
# Games of each kind: 20 of the pair that sees every hand (its games are short: some 14 exact
# decisions of the pair a game), 12 of the others (past every minimum, with room to spare).
GAMES = {"seer": 20, "peek": 12, "honest": 12}
HONEST_PAIRS = (("hon1", "hon2"), ("str1", "str2"), ("fac", "str"), ("heu1", "heu2"))


@pytest.fixture(scope="module")
def generated() -> dict[str, Any]:
    from tranque.fairplay import screen_record as screen
    from tranque.fairplay.stats import report

    seer, peek = "collude:all", "collude:partner"
    kinds = [
        # A pair that sees every hand against honest heuristics...
        ([seer, "heuristic", seer, "heuristic"], ["seer1", "hon1", "seer2", "hon2"]),
        # ...one that knows its partner's tiles against honest strong bots...
        ([peek, "strong", peek, "strong"], ["peek1", "str1", "peek2", "str2"]),
        # ...and honest pairs of mixed strength, facil and strong partners against heuristics.
        (["facil", "heuristic", "strong", "heuristic"], ["fac", "heu1", "str", "heu2"]),
    ]
    games = []
    for k, ((seats, players), n) in enumerate(zip(kinds, GAMES.values(), strict=True)):
        for i in range(n):
            games.append(screen(play_record(seats, players, SEED + 1000 * k + i)))
    return report(games)


@pytest.mark.slow
def test_colluding_pairs_are_flagged_and_honest_pairs_are_not(generated: dict[str, Any]) -> None:
    pairs = {tuple(p["ids"]): p for p in generated["partnerships"]}
    assert set(pairs) == {("peek1", "peek2"), ("seer1", "seer2"), *HONEST_PAIRS}
    seers, peekers = pairs[("seer1", "seer2")], pairs[("peek1", "peek2")]
    assert seers["games"] == GAMES["seer"] and peekers["games"] == GAMES["peek"]
    # Bounds for this seed (docs/fairplay.md has the recall over many games): each colluding
    # pair past the threshold by its own statistic, every honest pair well under both.
    assert "hindsight_edge" in seers["reasons"] and seers["z_edge"] >= Z_SEERS
    assert "partner_edge" in peekers["reasons"] and peekers["z_partner"] >= Z_PEEKERS
    for key in HONEST_PAIRS:
        honest = pairs[key]
        assert honest["flag"] is False, honest
        assert honest["z_edge"] < 3.0 and honest["z_partner"] < 3.0, honest
    people = [p for p in generated["people"] if not p["id"].startswith(("seer", "peek"))]
    assert len(people) == 8 and not any(p["flag"] for p in people)
