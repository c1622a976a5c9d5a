"""A Miami table plays a best-of-three match: new games at the same seats until a pair has two."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_table_service import FAST, SEEDS, Driver, new_table

from tranque.cli import main
from tranque.fair.verify import verify_record
from tranque.rules.errors import WrongPhaseError
from tranque.rules.game import GameState, MatchState, Phase
from tranque.rules.record import MATCH_FORMAT, ReplayError, replay_match
from tranque.rules.tiles import tiles_of
from tranque.rules.variants import HAVANA, MIAMI, Rules
from tranque.table.service import TableError, TableService, rebuild

SHORT_MIAMI = Rules.from_json({"preset": "miami", "target": 40})
PERSONS = {0: "ana"}


def play_match(tid: str, between: float = 0.0) -> tuple[Driver, list[dict[str, Any]]]:
    """Play a short Miami match to its end; note what seat 0 saw during each break."""
    settings = replace(FAST, rules=SHORT_MIAMI, between_hands=between)
    d = Driver(new_table(settings, PERSONS, tid=tid))
    d.log = []
    breaks: list[dict[str, Any]] = []
    for _ in range(5000):
        d.settle()
        svc = d.svc
        _hidden_tiles_ok(svc)
        if svc.game.is_over and not svc.over and (not breaks or breaks[-1]["seq"] != svc.seq):
            breaks.append({"seq": svc.seq, "state": svc.state_for(0)})
            with pytest.raises(TableError) as exc:
                svc.command("ana", {"id": "x", "type": "play", "seq": svc.seq, "move": "99"}, d.now)
            assert exc.value.code == "wrong_phase"
        if svc.over:
            return d, breaks
        if not d.person_duty(PERSONS, None):
            wake = svc.next_wake()
            assert wake is not None, "stuck with no clock"
            d.now = max(d.now, wake)
    raise AssertionError("the match did not end")


def find_match(pred: Any, between: float = 0.0) -> tuple[Driver, list[dict[str, Any]]]:
    for i in range(60):
        d, breaks = play_match(f"m{i}", between)
        if pred(d.svc.match):
            return d, breaks
    raise AssertionError("no table id in range gave such a match")


def _hidden_tiles_ok(svc: TableService) -> None:
    game = svc.game
    for seat in range(4):
        st = svc.state_for(seat)
        mine = set(st["tiles"].split())
        if game.hand is not None and game.phase is Phase.PLAY:
            others = {str(t) for s in range(4) if s != seat for t in tiles_of(game.hand.hands[s])}
            assert not mine & others


def test_a_miami_match_goes_on_to_a_second_and_third_game_and_rebuilds() -> None:
    d, breaks = find_match(lambda m: len(m.games) == 3, between=4.0)
    svc = d.svc
    match = svc.match
    # The tally: a pollona counts as two, the match ends the moment a pair has two.
    wins = [0, 0]
    for k, game in enumerate(match.games):
        assert game.is_over and game.winner is not None
        assert max(wins) < 2, "a game was played after the match was decided"
        wins[game.winner] += 2 if game.pollona else 1
        assert game.sheet[0].totals in ((0, game.sheet[0].points), (game.sheet[0].points, 0))
        assert game.played[0].setup.number == 1 and game.played[0].setup.coin in (0, 1), k
    assert tuple(wins) == match.wins and max(wins) >= 2 and svc.over
    assert svc.state_for(0)["match"] == {
        "game": 3,
        "hand_base": match.games[0].hand_number + match.games[1].hand_number,
        "wins": list(match.wins),
        "to_win": 2,
        "over": True,
        "winner": match.winner,
    }
    # Each break between games is a clear state: game over, match not, tally so far.
    assert [b["state"]["match"]["game"] for b in breaks] == [1, 2]
    assert all(b["state"]["phase"] == "over" and not b["state"]["match"]["over"] for b in breaks)
    assert [e.data["game"] for e in d.log if e.type == "next_game"] == [2, 3]
    # Table hand numbers keep counting across games and are never reused.
    seeded = [e.data["hand"] for e in d.log if e.type == "hand_seed"]
    total = sum(g.hand_number for g in match.games)
    assert seeded == list(range(1, total + 1))
    assert sorted(svc.published) == seeded
    # The record: a match of three game records that verifies and replays to the same tally.
    record = svc.record
    assert record is not None and record["format"] == MATCH_FORMAT
    assert len(record["games"]) == 3 and record["wins"] == list(match.wins)
    assert record["winner"] == "AB"[match.winner or 0]
    bad = [c for c in verify_record(record) if not c.ok]
    assert not bad, bad
    numbers = [h["fairness"]["hand_number"] for g in record["games"] for h in g["hands"]]
    assert numbers == seeded
    replayed, current = replay_match(record)
    assert current is None and replayed.wins == match.wins
    # Rebuild mid-match, right after the second game started, then the rest of the log.
    cut = next(i for i, e in enumerate(d.log) if e.type == "next_game") + 5
    head = [*_setup_entries(d), *d.log[:cut]]
    mid = rebuild(svc.table_id, head, SEEDS)
    assert mid.game_number == 2 and mid.hand_base == match.games[0].hand_number
    twin = rebuild(svc.table_id, head, SEEDS)
    for seat in (None, 0, 1, 2, 3):
        assert mid.full_view(seat) == twin.full_view(seat)
    assert mid.timers == twin.timers
    mid_record = mid.table_record()
    assert mid_record["games"][0] == record["games"][0]
    assert mid_record["winner"] is None
    for e in d.log[cut:]:
        mid.apply(e)
    assert mid.record == record and mid.table_record() == record
    assert mid.full_view(0) == svc.full_view(0)


def _setup_entries(d: Driver) -> list[Any]:
    """The entries ``new_table`` applied before the driver's log starts."""
    from tranque.table.ports import Entry

    settings = d.svc.settings
    out = [Entry(1, "created", {"settings": settings.to_json(), "host": "h"}, 0.0)]
    for seat in range(4):
        if seat in PERSONS:
            data = {"seat": seat, "guest": PERSONS[seat]}
            out.append(Entry(len(out) + 1, "sat", data, 0.0))
        else:
            out.append(Entry(len(out) + 1, "bot_sat", {"seat": seat, "bot": "random"}, 0.0))
    return out


def test_a_pollona_counts_two_games_at_the_table() -> None:
    d, _ = find_match(lambda m: any(g.pollona for g in m.games) and len(m.games) >= 2)
    match = d.svc.match
    pollona = next(g for g in match.games if g.pollona)
    assert pollona.scores[(pollona.winner or 0) ^ 1] == 0
    assert match.wins[match.winner or 0] >= 2
    assert sum(match.wins) == sum(2 if g.pollona else 1 for g in match.games)


def _finished(scores: tuple[int, int]) -> GameState:
    winner = 0 if scores[0] > scores[1] else 1
    return replace(GameState.new(MIAMI), phase=Phase.OVER, scores=scores, winner=winner)


def test_match_tally_unit() -> None:
    match = MatchState(MIAMI)
    match = match.add_game(_finished((150, 30)))
    assert match.wins == (1, 0) and match.winner is None
    match = match.add_game(_finished((20, 151)))
    assert match.wins == (1, 1) and match.winner is None
    match = match.add_game(_finished((0, 160)))  # a pollona: two wins
    assert match.wins == (1, 3) and match.winner == 1
    with pytest.raises(WrongPhaseError):
        match.add_game(_finished((150, 0)))
    # A first-game pollona decides a best of three at once.
    assert MatchState(MIAMI).add_game(_finished((150, 0))).winner == 0
    # One game to win (every other variant): the first game decides.
    assert MatchState(HAVANA).add_game(_finished((10, 100))).winner == 1


def test_other_variants_still_play_one_game() -> None:
    d = Driver(new_table(FAST, PERSONS))
    d.log = []
    d.run_to_end(PERSONS)
    svc = d.svc
    assert svc.over and len(svc.match.games) == 1
    assert not any(e.type == "next_game" for e in d.log)
    assert svc.record is not None and svc.record["format"] == "tranque-game/1"
    assert svc.state_for(0)["match"]["to_win"] == 1


def test_replay_and_verify_take_a_match_record_and_catch_a_false_tally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d, _ = find_match(lambda m: len(m.games) >= 2)
    record = d.svc.record
    assert record is not None
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record))
    assert main(["replay", "--json", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["format"] == MATCH_FORMAT and out["wins"] == record["wins"]
    assert out["winner"] == record["winner"] and len(out["games"]) == len(record["games"])
    assert main(["replay", str(path)]) == 0
    assert "wins the match" in capsys.readouterr().out
    assert main(["verify", str(path)]) == 0
    capsys.readouterr()
    forged = dict(record, wins=list(reversed(record["wins"])))
    with pytest.raises(ReplayError):
        replay_match(forged)
    tally = [c for c in verify_record(forged) if "tally" in c.name]
    assert tally and not tally[0].ok
    # A game reused under a new number: the table hand numbers repeat.
    reused = dict(record, games=[record["games"][0], *record["games"]], wins=None)
    del reused["winner"]
    numbers = [c for c in verify_record(reused) if c.name.startswith("table hand numbers")]
    assert numbers and not numbers[0].ok
