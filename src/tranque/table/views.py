"""What leaves a table: the public form of each entry, every recipient's state, a resync.

Plain functions over the table's state (``TableState``): they read it and never change it
(``TableService`` has them as its methods: ``TableViews``, at the end). ``event`` must
never show a seed before its hand ends, nor a tile its recipient may not see; ``state_for`` is
split in a part every recipient shares and each seat's own, so that an owner encodes the shared
part once per event (``TableOwner._render``).
"""

from __future__ import annotations

from typing import Any, assert_never

import msgspec

from tranque.fair.recipe import server_commit
from tranque.fair.seeds import SeatKind
from tranque.ledger import stakes
from tranque.rules.game import Phase
from tranque.rules.hand import PASS
from tranque.rules.tiles import format_tiles
from tranque.rules.views import public_view, seat_view
from tranque.table import events as ev
from tranque.table.entries import (
    Abandoned,
    Aborted,
    Away,
    Back,
    BotSat,
    Choices,
    Chose,
    Committed,
    Created,
    Dealt,
    FillSeats,
    HandSeed,
    NextGame,
    Played,
    ReadingAsked,
    RedealClosed,
    Redealt,
    Resumed,
    Revealed,
    RevealOpen,
    Sat,
    Started,
    Stood,
    Takeover,
    body_of,
)
from tranque.table.frames import Commitments, FairDue, PublicState, SeatState, Tally
from tranque.table.model import ACT, GRACE, REDEAL
from tranque.table.ports import Entry
from tranque.table.state import TableState


def tally(table: TableState) -> Tally:
    """The match tally every state carries: game number, games won by pair A and B.

    ``hand_base``: hand ``n`` of the current game (its views and record) is table hand
    ``hand_base + n``, the number that events, fairness sections and commitments use.
    """
    winner = table.match.winner
    return Tally(
        table.game_number,
        table.hand_base,
        list(table.match.wins),
        table.settings.rules.games_to_win_match,
        winner is not None,
        winner,
    )


def match_json(table: TableState) -> dict[str, Any]:
    """The match tally as a plain object: where it sits inside the parts that stay plain (a
    table's info, a hand's end, the next game's event)."""
    return msgspec.structs.asdict(tally(table))


def info(table: TableState) -> dict[str, Any]:
    s = table.settings.to_json()
    bot = s.pop("bot", None)
    result = result_json(table)
    return {
        "table": table.table_id,
        "settings": s,
        "bot": bot,  # the level (or bot) of the table's practice seats, takeovers and clocks
        "seats": [seat.to_json() for seat in table.seats],
        "started": table.started,
        "over": table.over,
        # Over with no result: its people had all gone (``abandoned``; unrated, chips back).
        "abandoned": table.abandoned,
        # Ended at its start because a person left a rated game (table.abort): his seat.
        "aborted": None if table.aborted is None else {"seat": table.aborted},
        # Per seat, its real decisions and those a bot took for the person while he was
        # away (the ``by`` of the table's events, counted): the club's leaver rule.
        "decisions": {"made": list(table.decisions), "by_bot": list(table.bot_decisions)},
        "host": table.host,
        # Until when the free seats are offered to the quick-match queue (``fill``), else
        # None; and a rematch's table: which table it follows, who declined there.
        "filling": table.timers.get("fill") if not table.started else None,
        "rematch": table.rematch_of,
        "match": match_json(table),
        "result": result,
        "chips": stakes.view(table.settings.stake, result),  # None for a free table
        # Only a capped game (a tournament's, rules/timecap.py) says when its time is up, and
        # the pair that won by it once the time cap ended the game ("A" / "B", else None).
        **(_time_cap(table) if table.settings.time_cap is not None else {}),
    }


def _time_cap(table: TableState) -> dict[str, Any]:
    return {
        "time_up": table.deadline,
        "by_time": None if table.time_winner is None else "AB"[table.time_winner],
    }


def result_json(table: TableState) -> dict[str, Any] | None:
    """Once the table is over, what the club rates and counts (None before): the winning
    pair, and by pair (A, B) the pollonas and viajeras won and the points scored over the
    match's games (a pair's record: points for and against); ``pollona``: the deciding game
    was one (the rating update counts double, docs/club.md)."""
    match = table.match
    winner = match.winner
    if winner is None or not match.games:
        return None
    pollonas = [0, 0]
    viajeras = [0, 0]
    points = [0, 0]
    for game in match.games:
        points[0] += game.scores[0]
        points[1] += game.scores[1]
        if game.pollona and game.winner is not None:
            pollonas[game.winner] += 1
        for played in game.played:
            outcome = played.hand.outcome
            if outcome is not None and outcome.viajera and outcome.winning_pair is not None:
                viajeras[outcome.winning_pair] += 1
    return {
        "winner": "AB"[winner],
        "pollona": match.games[-1].pollona,
        "pollonas": pollonas,
        "viajeras": viajeras,
        "points": points,
    }


def actor_deadline(table: TableState, seat: int) -> float | None:
    return table.timers.get(ACT[seat])


def state_for(table: TableState, seat: int | None) -> dict[str, Any]:
    """The small state every event carries, as the plain object it encodes to: the public
    position, and the seat's own part (for whoever reads it in this process: the tests, a
    resync's ``full_view``)."""
    out: dict[str, Any] = msgspec.to_builtins(public_state(table))
    if seat is not None:
        out.update(msgspec.to_builtins(seat_state(table, seat)))
    return out


def public_state(table: TableState) -> PublicState:
    """The part of every recipient's state that is the same for all of them."""
    game = table.game
    hand = game.hand
    phase = game.phase
    turn: int | None
    if hand is not None:
        turn = hand.turn if phase is Phase.PLAY and not hand.is_over else None
        ends = list(hand.ends) if hand.ends is not None else None
        counts = [m.bit_count() for m in hand.hands]
    else:
        turn = ends = None
        n = game.rules.tiles_each if game.pending_deal is not None else 0
        counts = [n] * 4
    if table.abandoned:
        turn = None  # it ended where it stood: nobody's turn any more
    out = PublicState(
        phase.value, table.table_hand, table.version, list(game.scores), tally(table), turn, ends,
        counts,
    )  # fmt: skip
    if phase is Phase.PLAY and hand is not None and not hand.is_over:
        out.deadline = actor_deadline(table, hand.turn)
    elif phase is Phase.REDEAL and REDEAL in table.timers:
        out.deadline = table.timers[REDEAL]  # the deal on show: the same every hand
    # Between hands (or games): when the next one starts, and who it waits for.
    nxt = table.timers.get("hand")
    if nxt is None:
        nxt = table.timers.get("next_game")
    if nxt is not None:
        out.next_hand = nxt
        out.reading = sorted(table.reading)
    time_up = table.deadline
    if time_up is not None:  # a capped game (a tournament's): when its time is up
        out.time_up = time_up
    return out


def seat_state(table: TableState, seat: int) -> SeatState:
    """The seat's own part of its state: its tiles and what it may decide now.

    Its keys never meet ``public_state``'s, so the two encode apart and join as one object.
    """
    game = table.game
    hand = game.hand
    phase = game.phase
    if hand is not None and phase is Phase.PLAY:
        mine = hand.hands[seat]
    elif game.pending_deal is not None:
        mine = game.pending_deal.hands[seat]
    elif hand is not None:
        mine = hand.hands[seat]
    else:
        mine = 0
    acting = not table.seats[seat].bot_plays and not table.abandoned
    legal: list[str] = []
    if acting and phase is Phase.PLAY and hand is not None and hand.turn == seat:
        actions = hand.legal_actions()
        if actions != [PASS]:  # passes are the server's to make
            legal = [a.text for a in actions]
    choosing = game.choosing_seats() if phase is Phase.CHOOSE else None
    fair_due = None
    fair = table.fair
    if fair is not None and fair.stage != "dealt" and fair.kinds[seat] is SeatKind.PERSON:
        if fair.stage == "commit" and fair.commits[seat] is None:
            fair_due = FairDue(fair.hand, "commit")
        elif fair.stage == "reveal" and fair.commits[seat] and fair.seeds[seat] is None:
            fair_due = FairDue(fair.hand, "reveal")
    if table._tile_masks[seat] != mine:
        table._tile_masks[seat] = mine
        table._tile_texts[seat] = format_tiles(mine)
    redeal = (
        acting
        and phase is Phase.REDEAL
        and seat not in table.redeal_silent
        and seat in game.redeal_eligible()
    )
    deadline = actor_deadline(table, seat)
    if redeal and game.redeal_held:
        deadline = table.timers.get(REDEAL)  # the window's end: the offer's own clock
    return SeatState(
        seat,
        table._tile_texts[seat],
        legal,
        redeal,
        acting and choosing is not None and seat in choosing and seat not in table.choices,
        fair_due,
        deadline,
    )


def full_view(table: TableState, seat: int | None) -> dict[str, Any]:
    """Everything a recipient may know now (a resync), as a plain object; the owner sends it
    typed (``frames.Sync``, ``OwnerFrames._sync_frame``) from the same parts."""
    pending = commitments(table)
    return {
        "table": info(table),
        "seq": table.seq,
        "view": game_view(table, seat),
        "state": state_for(table, seat),
        "commitments": None if pending is None else msgspec.to_builtins(pending),
        "fairness": fairness(table),
    }


def game_view(table: TableState, seat: int | None) -> dict[str, Any]:
    """The game as the recipient sees it: every hidden hand hidden (a spectator: all but the
    ones shown)."""
    game = table.game
    return public_view(game).to_json() if seat is None else seat_view(game, seat).to_json()


def commitments(table: TableState) -> Commitments | None:
    """The fairness round of the hand not published yet, else None."""
    fair = table.fair
    if fair is None or fair.hand in table.published:
        return None
    return Commitments(fair.hand, server_commit(fair.server_seed), list(fair.commits), fair.stage)


def fairness(table: TableState) -> dict[str, Any]:
    """The fairness sections published so far, by hand."""
    return {str(k): v for k, v in table.published.items()}


def project(table: TableState, entry: Entry) -> dict[str, Any]:
    """The public form of an entry, right after it was applied, as a plain object (see
    ``event``)."""
    return ev.as_dict(event(table, entry))


def event(table: TableState, entry: Entry) -> ev.TableEvent:
    """The public form of an entry, right after it was applied: no secret, no hidden tile.
    What every socket at the table is sent, and the log keeps for the history."""
    timers = table.timers
    body = table._body if table._body_entry is entry else None
    match body or body_of(entry):
        case Played(seat=seat, move=move, by=by):
            return _played(table, seat, move, by)
        case Created():
            return ev.Created(info(table))
        case Sat(seat=seat, nickname=nickname, renamed=renamed):
            return ev.Sat(seat, nickname, "person", renamed)
        case BotSat(seat=seat, bot=bot):
            return ev.BotSat(seat, bot, "bot")
        case Stood(seat=seat):
            return ev.Stood(seat)
        case Back(seat=seat):
            return ev.Back(seat)
        case Away(seat=seat, left=left, absent=absent):
            return ev.Away(seat, left, absent, timers.get(GRACE[seat]))
        case Takeover(seat=seat, bot=bot):
            return ev.Takeover(seat, bot)
        case FillSeats(seat=seat):
            return ev.Fill(seat, timers.get("fill"))
        case HandSeed(hand=hand, server_seed=server_seed):
            return ev.HandCommit(
                hand,
                server_commit(bytes.fromhex(server_seed)),
                [k.value for k in table.fair.kinds] if table.fair else None,
                timers.get("fair"),
            )
        case Committed(seat=seat, hand=hand, commit=commit):
            return ev.Committed(seat, hand, commit)
        case RevealOpen(hand=hand):
            return ev.RevealOpen(hand, timers.get("fair"))
        case Revealed(seat=seat, hand=hand):
            return ev.Revealed(seat, hand)  # the seed is published with the hand
        case Dealt(hand=hand, attempt=attempt):
            game = table.game
            setup = game.setup
            return ev.Dealt(
                hand,
                attempt,
                draw=None if setup.draw is None else [[str(a), str(b)] for a, b in setup.draw],
                coin=setup.coin,
                leading_pair=setup.leading_pair,
                leader=game.hand.leader if game.phase is Phase.PLAY and game.hand else None,
                # Every deal of a table is shown alike (``window`` in the entry): true,
                # with the same deadline's distance, whoever holds what. False only in old
                # logs, for a deal nobody could ask to throw in.
                redeal_window=game.phase is Phase.REDEAL,
                deadline=timers.get(REDEAL),
            )
        case Redealt(seat=seat, ask=ask):
            # Only an ask is logged now; the declines of old logs name no seat.
            return ev.Redeal(ask, seat if ask else None)
        case RedealClosed(hand=hand):
            game = table.game
            leader = game.hand.leader if game.phase is Phase.PLAY and game.hand else None
            return ev.RedealClosed(hand, leader)
        case Chose(seat=seat):
            return ev.Chose(seat)  # the choice itself is revealed with the partner's
        case Choices(choices=choices):
            return ev.Choices(choices, table.game.hand.leader if table.game.hand else None)
        case ReadingAsked(seat=seat, hand=hand, done=done):
            return ev.Reading(seat, hand, done)
        case NextGame(game=game_number, hand=hand):
            return ev.NextGame(game_number, hand, match_json(table))
        case Resumed(shift=shift):
            return ev.Resumed(shift)
        case Abandoned(after=after):
            return ev.Abandoned(after)
        case Aborted(seat=seat):
            return ev.Aborted(seat)
        case Started():
            return ev.Started()
        case other:
            assert_never(other)


def _played(table: TableState, seat: int, move: str, by: str | None) -> ev.Played:
    """A play's public form, and the end of its hand (everything shown) if it ended one."""
    game = table.game
    hand = game.hand
    last = game.played[-1].hand if game.played else None
    hand_end: dict[str, Any] | None = None
    if game.phase is not Phase.PLAY:
        hand_end = {
            "view": public_view(game).to_json(),
            "fairness": table.published.get(table.fair.hand) if table.fair else None,
            "game_over": game.is_over,
            "match_over": table.over,
            "match": match_json(table),
        }
        n = len(last.moves) - 1 if last is not None else None
    else:
        assert hand is not None
        n = len(hand.moves) - 1
    number = table.fair.hand if table.fair else game.hand_number
    return ev.Played(seat=seat, move=move, by=by, hand_end=hand_end, n=n, hand=number)


class TableViews(TableState):
    """What leaves the table, as methods of ``TableService``: the functions above."""

    def match_json(self) -> dict[str, Any]:
        return match_json(self)

    def info(self) -> dict[str, Any]:
        return info(self)

    def result_json(self) -> dict[str, Any] | None:
        return result_json(self)

    def actor_deadline(self, seat: int) -> float | None:
        return actor_deadline(self, seat)

    def state_for(self, seat: int | None) -> dict[str, Any]:
        return state_for(self, seat)

    def public_state(self) -> dict[str, Any]:
        return msgspec.to_builtins(public_state(self))  # type: ignore[no-any-return]

    def seat_state(self, seat: int) -> dict[str, Any]:
        return msgspec.to_builtins(seat_state(self, seat))  # type: ignore[no-any-return]

    def full_view(self, seat: int | None) -> dict[str, Any]:
        return full_view(self, seat)

    def project(self, entry: Entry) -> dict[str, Any]:
        return project(self, entry)

    def event(self, entry: Entry) -> ev.TableEvent:
        return event(self, entry)
