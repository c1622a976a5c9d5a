"""A table with a time cap (a tournament's ``minutes``, table/model.py ``time_cap``): at the end
of each hand past the deadline the pair ahead wins, level scores play one more hand, and a table
rebuilt from its log keeps the deadline its ``started`` entry gave it."""

from __future__ import annotations

from dataclasses import replace

from test_table_service import FAST, SEEDS, Driver, _log_of, new_table

from tranque.rules.record import GAME_FORMAT, replay_game
from tranque.table.ports import Entry
from tranque.table.service import rebuild

# Every bot decision takes a second of the driver's clock, so a hand lasts well past a 1 s cap.
SLOW = replace(FAST, bot_delay=1.0)
CAPPED = replace(SLOW, time_cap=1.0)
# At this table id the first hand is a tied block that nobody scores (0-0; found by playing
# ids in order, the deals and the bots' moves depend only on the id and the position).
LEVEL_FIRST_HAND = "tc67"


def test_the_pair_ahead_wins_at_the_first_hand_end_past_the_time() -> None:
    d = Driver(new_table(CAPPED, {}, tid="tc1"))
    d.run_to_end({})
    svc = d.svc
    assert svc.over and svc.deadline == svc.started_at + 1.0
    game = svc.game
    assert len(game.played) == 1  # the first hand ended past the cap with a pair ahead
    a, b = game.scores
    assert a != b and max(a, b) < 100
    ahead = "A" if a > b else "B"
    info = svc.info()
    assert info["by_time"] == ahead and info["time_up"] == svc.deadline
    assert info["result"]["winner"] == ahead
    # The record: the hands played, and an optional key saying the time cap ended it.
    record = svc.record
    assert record is not None and record["format"] == GAME_FORMAT
    assert record["time_cap"] == {"seconds": 1.0, "winner": ahead}
    replayed = replay_game(record)
    assert replayed.scores == game.scores and not replayed.is_over
    # Without the cap the same table plays on to the target.
    free = Driver(new_table(SLOW, {}, tid="tc1"))
    free.run_to_end({})
    assert max(free.svc.game.scores) >= 100 and "by_time" not in free.svc.info()
    assert free.svc.deadline is None and "time_cap" not in (free.svc.record or {})


def test_level_scores_play_one_more_hand() -> None:
    d = Driver(new_table(CAPPED, {}, tid=LEVEL_FIRST_HAND))
    d.run_to_end({})
    game = d.svc.game
    first = game.sheet[0]
    assert first.hand_number == 1 and first.totals == (0, 0)  # level past the time: play on
    assert len(game.played) == 2 and game.is_over
    a, b = game.scores
    assert a != b and d.svc.info()["by_time"] == ("A" if a > b else "B")


def test_a_rebuilt_table_keeps_its_deadline() -> None:
    d = Driver(new_table(CAPPED, {}, tid=LEVEL_FIRST_HAND))
    d.run_to_end({})
    log = [*_log_of(new_table(CAPPED, {}, LEVEL_FIRST_HAND)), *d.log]
    started = next(e for e in d.log if e.type == "started")
    # Rebuilt mid-game, much later (a restart): the deadline is the logged start's, and the
    # time the server was down (``resumed``) does not move it.
    cut = next(i for i, e in enumerate(log) if e.type == "hand_seed" and e.data["hand"] == 2)
    mid = rebuild(LEVEL_FIRST_HAND, log[:cut], SEEDS)
    assert mid.deadline == started.ts + 1.0 == d.svc.deadline
    mid.apply(Entry(mid.seq + 1, "resumed", {"shift": 500.0}, log[cut - 1].ts + 500))
    assert mid.deadline == started.ts + 1.0
    # The whole log rebuilds to the same end: the same record, ended by the time cap.
    whole = rebuild(LEVEL_FIRST_HAND, log, SEEDS)
    assert whole.over and whole.record == d.svc.record and whole.time_winner is not None
