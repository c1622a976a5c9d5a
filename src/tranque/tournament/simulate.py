"""A whole tournament played by bots on a simulated clock: the Swiss's rounds and the arena's
seatings come from the same functions the command line and the service use (``swiss``,
``arena``); only the games are played here, in process, by bots of one level.

The clock is simulated: a decision takes ``pace`` seconds, so a game's length is its number of
decisions times the pace. A game with a time cap (``minutes``) ends at the first hand's end past
the cap with the pair ahead the winner (level scores play one more hand, and so on). An arena
seats four free people at once, closest scores together; whoever is left waits ``fill`` seconds
and is then seated with bots (marked null in the seats; bots have no arena score). No table
starts at or after the arena's end; the games still playing finish and count.
"""

from __future__ import annotations

import hashlib
import heapq
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from tranque.bots.base import Bot, make_bot, resolve_bot
from tranque.rules.dealing import deal_next
from tranque.rules.game import GameState, LeadChoice, Phase
from tranque.rules.record import game_record
from tranque.rules.timecap import end_by_time, time_up_winner
from tranque.rules.variants import PRESETS
from tranque.rules.views import seat_view
from tranque.tournament import arena, swiss
from tranque.tournament.model import (
    FORMAT,
    ArenaGame,
    Entrant,
    Round,
    Table,
    Tournament,
    TournamentError,
)

MAX_HANDS = 500  # a game that has not ended by then is a bug, not a long game
PACE = 4.0  # simulated seconds per decision (a person's pace at a table)
FILL = 20.0  # simulated seconds a free person waits before bots fill his table


@dataclass(frozen=True)
class Played:
    """A finished game: its record (with ``players``), score, winner, pollona, length."""

    record: dict[str, Any]
    points: tuple[int, int]
    winner: str
    pollona: bool
    seconds: float


def seed_of(*parts: object) -> int:
    """A 63-bit seed from any parts, the same on every run and platform."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def play_game(
    rules_name: str,
    target: int,
    bot: str,
    players: Sequence[str | None],
    seed: int,
    cap: float | None = None,
    pace: float = PACE,
) -> Played:
    """One game to ``target`` (or to the cap, in simulated seconds), each seat played by ``bot``."""
    rules = replace(PRESETS[rules_name], target=target)
    bots: list[Bot] = [make_bot(bot, seed_of(seed, "seat", s)) for s in range(4)]
    rng = random.Random(seed_of(seed, "deals"))
    game = GameState.new(rules)
    decisions = 0
    for _ in range(MAX_HANDS):
        if game.is_over:
            break
        ahead = time_up_winner(game.scores, decisions * pace, cap)
        if ahead is not None:  # time is up at a hand's end, and a pair is ahead
            game = end_by_time(game, ahead)
            break
        game = deal_next(game, rng)
        while game.phase is Phase.REDEAL:
            seat = game.redeal_eligible()[0]
            game = game.answer_redeal(seat, bots[seat].ask_redeal(seat_view(game, seat)))
            decisions += 1
        if game.phase is Phase.DEAL:
            continue
        if game.phase is Phase.CHOOSE:
            chooser = game.choosing_seats()
            assert chooser is not None
            first, second = (bots[s].choose_lead(seat_view(game, s)) for s in chooser)
            assert isinstance(first, LeadChoice) and isinstance(second, LeadChoice)
            game = game.choose_leader(first, second)
            decisions += 2
        while game.phase is Phase.PLAY:
            assert game.hand is not None
            turn = game.hand.turn
            game = game.play(bots[turn].choose_action(seat_view(game, turn)), turn)
            decisions += 1
    else:
        raise RuntimeError(f"a game did not end within {MAX_HANDS} hands")
    a, b = game.scores
    winner = game.winner
    assert winner is not None
    record = game_record(game)
    if cap is not None and max(game.scores) < rules.target:  # the time cap ended it
        record["time_cap"] = {"seconds": cap, "winner": "AB"[winner]}
    record["players"] = list(players)
    pollona = game.scores[winner ^ 1] == 0
    return Played(record, (a, b), "ab"[winner], pollona, decisions * pace)


def simulate_swiss(
    entrants: int, rounds: int, target: int, minutes: float | None, bot: str, seed: int,
    rules: str = "havana",
) -> dict[str, Any]:  # fmt: skip
    """A Swiss of ``entrants`` bot pairs over ``rounds`` rounds: the tournament file, its
    records (table id -> record) and its standings."""
    if entrants < 2:
        raise TournamentError("a Swiss needs at least two entrants")
    bot = resolve_bot(bot)
    rng = random.Random(seed_of(seed, "ratings"))
    t = Tournament(
        format=FORMAT, kind="swiss-pairs", rules=rules, target=target, minutes=minutes,
        rounds=rounds,
        entrants=[Entrant(f"p{i}", [f"p{i}a", f"p{i}b"], float(rng.randint(1300, 1800)))
                  for i in range(1, entrants + 1)],
    )  # fmt: skip
    records: dict[str, Any] = {}
    cap = None if minutes is None else minutes * 60
    for _ in range(rounds):
        pairing = swiss.pair_round(t)
        tables = []
        for k, (a, b) in enumerate(pairing.tables, 1):
            tid = f"r{pairing.round}t{k}"
            pa, pb = t.entrant(a).players, t.entrant(b).players
            players = [pa[0], pb[0], pa[1], pb[1]]
            game = play_game(rules, target, bot, players, seed_of(seed, tid), cap)
            records[tid] = game.record
            tables.append(Table(a, b, game.points, "a" if game.winner == "a" else "b",
                                False, tid))  # fmt: skip
        t.played.append(Round(pairing.round, pairing.byes, tables))
    out = _file(t)
    out["played"] = [
        {"round": r.round, "byes": r.byes,
         "tables": [{"a": x.a, "b": x.b, "points": list(x.points), "winner": x.winner,
                     "forfeit": x.forfeit, "record": x.record} for x in r.tables]}
        for r in t.played
    ]  # fmt: skip
    out["records"] = records
    out["standings"] = [s.to_json() for s in swiss.standings(t)]
    return out


def simulate_arena(
    entrants: int, minutes: float, target: int, bot: str, seed: int, rules: str = "havana",
    fill: float = FILL,
) -> dict[str, Any]:  # fmt: skip
    """An arena of ``entrants`` people (bots playing for them), all joining at its start, for
    ``minutes`` of simulated time: the file with its games in the order they ended."""
    if entrants < 1:
        raise TournamentError("an arena needs at least one entrant")
    bot = resolve_bot(bot)
    t = Tournament(
        format=FORMAT, kind="arena", rules=rules, target=target, minutes=minutes,
        entrants=[Entrant(f"p{i}", [f"p{i}"]) for i in range(1, entrants + 1)],
    )  # fmt: skip
    end = minutes * 60
    lines = arena.lines_of(t)
    free: dict[str, float] = {e.id: 0.0 for e in t.entrants}  # who is free, since when
    running: list[tuple[float, int, ArenaGame]] = []  # (ends, order, game) as a heap
    records: dict[str, Any] = {}
    now, started = 0.0, 0

    def start(seats: Sequence[str | None]) -> None:
        nonlocal started
        started += 1
        tid = f"g{started}"
        for eid in seats:
            if eid is not None:
                del free[eid]
        game = play_game(rules, target, bot, seats, seed_of(seed, tid))
        records[tid] = game.record
        ended = now + game.seconds
        g = ArenaGame(tid, round(ended, 3), (seats[0], seats[1], seats[2], seats[3]),
                      game.points, "a" if game.winner == "a" else "b", game.pollona)  # fmt: skip
        heapq.heappush(running, (ended, started, g))

    while True:
        if now < end:
            for four in arena.seat_free([lines[eid] for eid in free]):
                start(four)
            if any(now - since >= fill for since in free.values()):
                # Fewer than four, one of them past his fill time: bots take the other seats.
                start(_with_bots(sorted(free, key=lambda eid: lines[eid].joined)))
        deadlines = [since + fill for since in free.values() if since + fill > now]
        nexts = [running[0][0]] if running else []
        if now < end and deadlines:
            nexts.append(min(deadlines))
        if not nexts:
            break
        now = min(nexts)
        while running and running[0][0] <= now:
            _, _, g = heapq.heappop(running)
            t.games.append(g)
            arena.play(lines, g)
            for eid in g.seats:
                if eid is not None:
                    free[eid] = now
    out = _file(t)
    out["games"] = [
        {"table": g.table, "ended": g.ended, "seats": list(g.seats), "points": list(g.points),
         "winner": g.winner, "pollona": g.pollona}
        for g in t.games
    ]  # fmt: skip
    out["records"] = records
    out["standings"] = [x.to_json() for x in arena.standings(t)]
    return out


def _with_bots(people: Sequence[str]) -> tuple[str | None, ...]:
    """Up to three people at a table with bots: two are partners (seats 0 and 2)."""
    seats: list[str | None] = [None] * 4
    for eid, seat in zip(people, (0, 2, 1), strict=False):
        seats[seat] = eid
    return tuple(seats)


def _file(t: Tournament) -> dict[str, Any]:
    return {
        "format": t.format,
        "kind": t.kind,
        "rules": t.rules,
        "target": t.target,
        "minutes": t.minutes,
        "rounds": t.rounds,
        "entrants": [
            {"id": e.id, "players": e.players, "rating": e.rating, "withdrawn": e.withdrawn}
            for e in t.entrants
        ],
    }
