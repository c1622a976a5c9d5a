"""The table service on its own: no sockets, no SQL, a hand-driven clock."""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from typing import Any

import pytest

from tranque.fair.verify import verify_record
from tranque.rules.tiles import tiles_of
from tranque.rules.variants import PRESETS
from tranque.table.ports import Entry
from tranque.table.service import TableError, TableService, TableSettings, fixed_seeds, rebuild
from tranque.table.thinking import due_here

SEEDS = fixed_seeds(b"unit")
FAST = TableSettings(pass_delay=0, bot_delay=0, between_hands=0, fair_window=3, bot="random")


def new_table(settings: TableSettings, persons: dict[int, str], tid: str = "u1") -> TableService:
    svc = TableService(tid, SEEDS)
    entries = [Entry(1, "created", {"settings": settings.to_json(), "host": "h"}, 0.0)]
    svc.apply(entries[0])
    for seat in range(4):
        if seat in persons:
            e = Entry(svc.seq + 1, "sat", {"seat": seat, "guest": persons[seat]}, 0.0)
        else:
            e = Entry(svc.seq + 1, "bot_sat", {"seat": seat, "bot": "random"}, 0.0)
        svc.apply(e)
    return svc


class Driver:
    """Runs a table by hand: the clock moves only when nothing is due."""

    def __init__(self, svc: TableService) -> None:
        self.svc = svc
        self.log: list[Entry] = []
        self.now = 0.0

    def apply(self, e: Entry) -> None:
        self.svc.apply(e)
        self.log.append(e)

    def settle(self, limit: int = 100000) -> None:
        for _ in range(limit):
            e = due_here(self.svc, self.now)
            if e is None:
                return
            self.apply(e)
        raise AssertionError("the table never settles")

    def cmd(self, guest: str, msg: dict[str, Any]) -> Entry | None:
        """The command's entry, applied; None for one taken that logs nothing (a "no" to the
        deal on show)."""
        e = self.svc.command(guest, {"id": f"c{len(self.log)}", **msg}, self.now)
        if e is not None:
            self.apply(e)
        return e

    def run_to_end(self, persons: dict[int, str], on_turn: Any = None) -> None:
        for _ in range(5000):
            self.settle()
            if self.svc.over:
                return
            duty = self.person_duty(persons, on_turn)
            if duty == "stop":
                return
            if not duty:
                wake = self.svc.next_wake()
                assert wake is not None, "stuck with no clock"
                self.now = max(self.now, wake)
        raise AssertionError("the game did not end")

    def person_duty(self, persons: dict[int, str], on_turn: Any) -> bool | str:
        svc = self.svc
        for seat, guest in persons.items():
            st = svc.state_for(seat)
            seed = hashlib.sha256(f"{guest}{st['hand']}".encode()).digest()
            fair = st["fair"]
            if fair and fair["do"] == "commit":
                from tranque.fair.recipe import client_commit

                self.cmd(
                    guest, {"type": "ready", "hand": fair["hand"], "commit": client_commit(seed)}
                )
                return True
            if fair and fair["do"] == "reveal":
                self.cmd(guest, {"type": "reveal", "hand": fair["hand"], "seed": seed.hex()})
                return True
            if st["legal"]:
                if on_turn is not None and on_turn(self, seat, st):
                    return "stop"
                self.cmd(guest, {"type": "play", "seq": svc.seq, "move": st["legal"][-1]})
                return True
            if st["choosing"]:
                self.cmd(guest, {"type": "choose", "seq": svc.seq, "choice": "salgo"})
                return True
            if st["redeal"]:
                self.cmd(guest, {"type": "redeal", "seq": svc.seq, "ask": False})
                return True
        return False


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_bots_and_people_play_a_game_that_verifies_and_rebuilds(preset: str) -> None:
    persons = {0: "ana", 2: "luis"}
    settings = replace(FAST, rules=PRESETS[preset])
    d = Driver(new_table(settings, persons))
    d.log = []
    d.run_to_end(persons)
    record = d.svc.record
    assert record is not None and d.svc.over
    assert all(c.ok for c in verify_record(record)), [c for c in verify_record(record) if not c.ok]
    game = record["games"][0] if record["format"] == "tranque-match/1" else record
    statuses = game["hands"][0]["fairness"]["seat_status"]
    assert statuses == ["revealed", "bot", "revealed", "bot"]
    # Rebuilding from the whole log, as the server does after a restart, gives the same table.
    rebuilt = rebuild("u1", [*_log_of(new_table(settings, persons)), *d.log], SEEDS)
    assert rebuilt.seq == d.svc.seq and rebuilt.over
    assert rebuilt.game == d.svc.game
    assert rebuilt.table_record() == record
    for seat in (None, 0, 1, 2, 3):
        assert rebuilt.full_view(seat) == d.svc.full_view(seat)


def _tiles_in(obj: Any) -> set[str]:
    """Every tile named anywhere in a JSON value (the public first-hand draw left out)."""
    if isinstance(obj, str):
        return {t for t in re.split(r"[\s@/,]+", obj) if re.fullmatch(r"\d\d", t)}
    if isinstance(obj, dict):
        return set().union(*(_tiles_in(v) for k, v in obj.items() if k != "draw"))
    if isinstance(obj, list):
        return set().union(*(_tiles_in(v) for v in obj))
    return set()


def _names(mask: int) -> set[str]:
    return {str(t) for t in tiles_of(mask)}


class Watcher(Driver):
    """After every entry, what seat 0 and a spectator are sent: while a hand is dealt and under
    way, no tile of another hand or of the sleepers; once it is over, every hand face up."""

    hidden_checks = 0
    shown_checks = 0

    def apply(self, e: Entry) -> None:
        super().apply(e)
        game = self.svc.game
        hand = game.hand
        deal = game.pending_deal if hand is None else hand.deal
        if deal is None:
            return
        for seat in (0, None):
            sent = self.svc.full_view(seat)
            seen = _tiles_in([sent["view"], sent["state"], self.svc.state_for(seat)])
            if hand is not None and (hand.is_over or game.is_over):
                assert seen >= _names(self.svc.game.rules.tile_set.mask), (seat, e)
                self.shown_checks += 1
                continue
            current = deal.hands if hand is None else hand.hands
            played = 0 if hand is None else sum(a.tile.bit for a in hand.moves if a.tile)
            hidden = deal.sleepers | sum(current[s] for s in range(4) if s != seat)
            assert not seen & _names(hidden & ~played), (seat, e, seen & _names(hidden))
            self.hidden_checks += 1


def test_views_hide_other_hands_until_the_hand_ends() -> None:
    persons = {0: "ana"}
    d = Watcher(new_table(replace(FAST, between_hands=5), persons))
    d.run_to_end(persons)
    assert d.svc.over and len(d.svc.game.played) >= 2
    assert d.hidden_checks > 100 and d.shown_checks >= 2 * len(d.svc.game.played)


def test_the_clock_plays_for_a_silent_player_and_a_bot_takes_an_absent_seat() -> None:
    persons = {0: "ana", 1: "ben", 2: "cai", 3: "dan"}
    settings = replace(FAST, move_clock=5, grace=30, choose_window=2, redeal_window=2)
    d = Driver(new_table(settings, persons))
    d.settle()
    # Nobody commits: the windows close and every seat contributes the empty seed.
    while d.svc.game.phase.value in ("deal",):
        d.now = d.svc.next_wake() or d.now
        d.settle()
    assert d.svc.fair is not None and d.svc.fair.fairness is not None
    assert [s.value for s in d.svc.fair.fairness.seat_status] == ["timeout"] * 4
    # Silent players: the clock decides for them, marked as such.
    for _ in range(10):
        d.now = d.svc.next_wake() or d.now
        d.settle()
    assert any(e.type == "played" and e.data["by"] == "clock" for e in d.log)
    # Once the first hand has ended (before it, a leave aborts a rated game: table.abort) ...
    while not d.svc.published:
        d.now = d.svc.next_wake() or d.now
        d.settle()
    # ... seat 1 goes away: after the grace period a bot holds the seat.
    d.apply(Entry(d.svc.seq + 1, "away", {"seat": 1}, d.now))
    assert not d.svc.seats[1].taken_over
    d.now += 31
    d.settle()
    assert d.svc.seats[1].taken_over
    with pytest.raises(TableError) as exc:
        d.svc.command("ben", {"id": "x", "type": "play", "seq": d.svc.seq, "move": "99"}, d.now)
    assert exc.value.code == "bot_playing"
    d.apply(Entry(d.svc.seq + 1, "back", {"seat": 1}, d.now))
    d.run_to_end({}, None)
    assert d.svc.over


def test_commands_are_refused_without_a_change() -> None:
    persons = {0: "ana", 1: "ben"}
    d = Driver(new_table(FAST, persons))
    d.run_to_end(persons, lambda drv, seat, st: True)  # stops at the first person's turn
    svc = d.svc
    st0, st1 = svc.state_for(0), svc.state_for(1)
    turn, other = (0, 1) if st0["legal"] else (1, 0)
    guests = {0: "ana", 1: "ben"}
    before = (svc.seq, svc.game)
    cases = [
        (guests[other], {"type": "play", "seq": svc.seq, "move": "99"}, "not_your_turn"),
        (guests[turn], {"type": "play", "seq": svc.seq - 1, "move": "99"}, "stale"),
        (guests[turn], {"type": "play", "seq": svc.seq, "move": "pass"}, "server_passes"),
        (guests[turn], {"type": "play", "seq": svc.seq, "move": "zz"}, "malformed_move"),
        ("nobody", {"type": "play", "seq": svc.seq, "move": "99"}, "not_seated"),
        (guests[turn], {"type": "sit", "seat": 2}, "started"),
        (guests[turn], {"type": "launch"}, "unknown_type"),
    ]
    for guest, msg, code in cases:
        with pytest.raises(TableError) as exc:
            svc.command(guest, {"id": "x", **msg}, d.now)
        assert exc.value.code == code, msg
        assert (svc.seq, svc.game) == before
    # The same command, well formed, goes through: the refusals were for what they named.
    move = (st0 if turn == 0 else st1)["legal"][0]
    svc.command(guests[turn], {"id": "y", "type": "play", "seq": svc.seq, "move": move}, d.now)


def test_a_rebuilt_table_goes_on_with_its_clocks() -> None:
    persons = {0: "ana"}
    settings = replace(FAST, move_clock=10)
    d = Driver(new_table(settings, persons))
    d.run_to_end(persons, lambda drv, seat, st: True)
    deadline = d.svc.actor_deadline(0)
    assert deadline is not None and deadline > d.now
    rebuilt = rebuild("u1", [*_log_of(new_table(settings, persons)), *d.log], SEEDS)
    assert rebuilt.actor_deadline(0) == deadline
    rebuilt.apply(Entry(rebuilt.seq + 1, "resumed", {"shift": 7.0}, d.now + 7))
    assert rebuilt.actor_deadline(0) == deadline + 7.0
    # Nothing is due before the shifted deadline; at it, the clock plays for seat 0.
    assert rebuilt.due(deadline + 6.9) is None
    played = due_here(rebuilt, deadline + 7.0)
    assert played is not None and played.type == "played"
    assert played.data["by"] == "clock" and played.data["seat"] == 0


def _log_of(svc: TableService) -> list[Entry]:
    settings = svc.settings
    out = [Entry(1, "created", {"settings": settings.to_json(), "host": "h"}, 0.0)]
    for s, seat in enumerate(svc.seats):
        if seat.kind == "person":
            out.append(Entry(len(out) + 1, "sat", {"seat": s, "guest": seat.guest}, 0.0))
        else:
            out.append(Entry(len(out) + 1, "bot_sat", {"seat": s, "bot": "random"}, 0.0))
    return out
