"""Applying an entry: ``apply_entry(table, entry)``, the only way a table's state changes.

Plain functions over the table's state (``TableState``), apart from the rest because rebuilding
a table is applying its logged entries in order: everything here depends on the entry and the
state only (deadlines come from the entry's own time stamp), and it is here that the decision
clocks are re-armed for each new phase (``_changed``). ``reply`` reads back what
``apply_entry`` kept of each guest's commands. ``TableService`` has them as its methods
``apply`` and ``reply`` (``TableApply``, at the end).
"""

from __future__ import annotations

from typing import assert_never

from tranque.fair.recipe import coin as fair_coin
from tranque.fair.recipe import deal_for, first_hand_draw
from tranque.fair.seeds import SeatKind, hand_fairness
from tranque.rules.game import GameState, LeadChoice, MatchState, Phase
from tranque.rules.hand import PASS, Action
from tranque.rules.timecap import end_by_time, time_up_winner
from tranque.table.abort import count_decision
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
from tranque.table.frames import Ack
from tranque.table.model import ABANDON, ACT, GRACE, REDEAL, FairHand, Seat, TableSettings
from tranque.table.ports import Entry
from tranque.table.state import TableState


def apply_entry(table: TableState, entry: Entry) -> None:
    if entry.seq != table.seq + 1:
        raise ValueError(f"entry {entry.seq} does not follow {table.seq}")
    body = body_of(entry)
    ts = entry.ts
    # The commonest first: a class pattern is one isinstance check after another.
    match body:
        case Played():
            _on_played(table, body, ts)
        case Chose():
            _on_chose(table, body, ts)
        case Dealt():
            _on_dealt(table, body, ts)
        case RedealClosed():
            _on_redeal_closed(table, body, ts)
        case HandSeed():
            _on_hand_seed(table, body, ts)
        case Created():
            _on_created(table, body, ts)
        case Sat():
            _on_sat(table, body, ts)
        case BotSat():
            _on_bot_sat(table, body, ts)
        case FillSeats():
            _on_fill(table, body, ts)
        case Stood():
            _on_stood(table, body, ts)
        case Started():
            _on_started(table, body, ts)
        case Committed():
            _on_committed(table, body, ts)
        case RevealOpen():
            _on_reveal_open(table, body, ts)
        case Revealed():
            _on_revealed(table, body, ts)
        case Redealt():
            _on_redeal(table, body, ts)
        case Choices():
            _on_choices(table, body, ts)
        case ReadingAsked():
            _on_reading(table, body, ts)
        case NextGame():
            _on_next_game(table, body, ts)
        case Away():
            _on_away(table, body, ts)
        case Back():
            _on_back(table, body, ts)
        case Takeover():
            _on_takeover(table, body, ts)
        case Resumed():
            _on_resumed(table, body, ts)
        case Abandoned():
            _on_abandoned(table, body, ts)
        case Aborted():
            _on_aborted(table, body, ts)
        case _:
            assert_never(body)
    table.seq = entry.seq
    table.last_ts = ts
    table._body_entry, table._body = entry, body
    guest, cmd = body.guest, body.cmd
    if guest is not None and cmd is not None:
        applied = table.replies.get(guest)
        if applied is None:
            applied = table.replies[guest] = {}
        applied[cmd] = entry.seq


def reply(table: TableState, guest: str, cmd: str) -> Ack | None:
    """The ack of the command ``cmd`` of ``guest`` if it was applied (a resend gets it)."""
    applied = table.replies.get(guest)
    seq = None if applied is None else applied.get(cmd)
    return None if seq is None else Ack(cmd, seq)


def _on_created(table: TableState, d: Created, ts: float) -> None:
    table.settings = TableSettings.from_json(d.settings)
    table.host = d.host
    table.rematch_of = d.rematch
    table.game = GameState.new(table.settings.rules)
    table.match = MatchState(table.settings.rules)
    table.hand_base = 0


def _on_sat(table: TableState, d: Sat, ts: float) -> None:
    table.seats[d.seat] = Seat("person", d.guest, d.nickname)


def _on_bot_sat(table: TableState, d: BotSat, ts: float) -> None:
    table.seats[d.seat] = Seat("bot", bot=d.bot, nickname=f"bot ({d.bot})")


def _on_fill(table: TableState, d: FillSeats, ts: float) -> None:
    # The free seats are offered to the quick-match queue until then; bots take the seats
    # still free at that time (``TableDue``).
    table.timers["fill"] = ts + float(d.window)


def _on_stood(table: TableState, d: Stood, ts: float) -> None:
    table.seats[d.seat] = Seat()


def _on_started(table: TableState, d: Started, ts: float) -> None:
    table.started = True
    table.started_at = ts
    table.timers.pop("fill", None)
    table.timers["hand"] = ts


def _on_hand_seed(table: TableState, d: HandSeed, ts: float) -> None:
    table.timers.pop("hand", None)
    table.reading.clear()
    kinds = tuple(SeatKind.BOT if seat.bot_plays else SeatKind.PERSON for seat in table.seats)
    table.fair = FairHand(d.hand, bytes.fromhex(d.server_seed), kinds)  # type: ignore[arg-type]
    if table.fair.persons():
        table.timers["fair"] = ts + table.settings.fair_window
    else:
        table.fair.stage = "reveal"


def _on_committed(table: TableState, d: Committed, ts: float) -> None:
    assert table.fair is not None
    table.fair.commits[d.seat] = d.commit


def _on_reveal_open(table: TableState, d: RevealOpen, ts: float) -> None:
    assert table.fair is not None
    table.fair.stage = "reveal"
    table.timers["fair"] = ts + table.settings.fair_window


def _on_revealed(table: TableState, d: Revealed, ts: float) -> None:
    assert table.fair is not None
    table.fair.seeds[d.seat] = bytes.fromhex(d.seed)


def _on_dealt(table: TableState, d: Dealt, ts: float) -> None:
    fair = table.fair
    assert fair is not None
    table.timers.pop("fair", None)
    table.timers.pop("deal", None)
    if fair.fairness is None:
        fair.fairness = hand_fairness(
            table.table_id, fair.hand, fair.server_seed, fair.kinds, fair.commits, fair.seeds
        )
    fair.stage = "dealt"
    attempt = d.attempt
    fair.attempts = attempt + 1
    key = fair.fairness.key
    rules = table.game.rules
    draw = first_hand_draw(key, rules) if table.game.needs_first_draw() else None
    coin = fair_coin(key) if table.game.needs_coin() else None
    # ``window``: the deal stays on show that many seconds, whoever may ask for a redeal
    # (entries logged before there was such a window have none: the game waits then only
    # for the seats that may ask, as it did).
    window = d.window
    table.game = table.game.deal(
        deal_for(key, rules, attempt), draw=draw, coin=coin, hold=window is not None
    )
    table.choices = {}
    table.redeal_silent = set()
    if window is not None:
        table.timers[REDEAL] = ts + float(window)
    _changed(table, ts)


def _on_redeal(table: TableState, d: Redealt, ts: float) -> None:
    table.game = table.game.answer_redeal(d.seat, d.ask)
    count_decision(table, d.seat, d.by)
    _took_decision(table, d.seat)
    if table.game.phase is Phase.DEAL:
        table.timers.pop(REDEAL, None)
        table.timers["deal"] = ts
    _changed(table, ts)


def _on_redeal_closed(table: TableState, d: RedealClosed, ts: float) -> None:
    """The deal on show goes on to the lead: nobody asked for a redeal in its window."""
    table.timers.pop(REDEAL, None)
    table.game = table.game.close_redeal()
    _changed(table, ts)


def _on_chose(table: TableState, d: Chose, ts: float) -> None:
    c = d.choice
    table.choices[d.seat] = None if c is None else LeadChoice(c)
    table.timers.pop(ACT[d.seat], None)
    count_decision(table, d.seat, d.by)
    _took_decision(table, d.seat)


def _on_choices(table: TableState, d: Choices, ts: float) -> None:
    a, b = (None if c is None else LeadChoice(c) for c in d.choices)
    table.game = table.game.choose_leader(a, b)
    table.choices = {}
    _changed(table, ts)


def _on_played(table: TableState, d: Played, ts: float) -> None:
    before = table.game.hand
    assert before is not None
    checked = table._checked
    if checked is not None and checked[:3] == (table.seq, d.seat, d.move):
        table.game = checked[3]
    else:
        table.game = table.game.play(Action.parse(d.move), d.seat)
    table._checked = None
    count_decision(table, d.seat, d.by)
    _took_decision(table, d.seat)
    hand_ended = table.game.phase is not Phase.PLAY
    if hand_ended and table.fair is not None:
        assert table.fair.fairness is not None
        table.published[table.fair.hand] = table.fair.fairness.with_attempts(
            table.fair.attempts
        ).to_json()
    if hand_ended and not table.game.is_over:
        _time_cap(table, ts)
    if table.game.is_over:
        table.match = table.match.add_game(table.game)
        if table.over:
            table.record = table.table_record()
    if hand_ended:
        table.hand_ended_at = ts
    _changed(table, ts, between=hand_ended)


def _time_cap(table: TableState, ts: float) -> None:
    """A hand ended at ``ts`` (the entry's logged time): past a capped game's deadline with a
    pair ahead, the game ends there and that pair wins (rules/timecap.py)."""
    pair = time_up_winner(table.game.scores, ts, table.deadline)
    if pair is not None:
        table.game = end_by_time(table.game, pair)
        table.time_winner = pair


def _on_reading(table: TableState, d: ReadingAsked, ts: float) -> None:
    if d.done:
        table.reading.discard(d.seat)
    else:
        table.reading.add(d.seat)
    _pace_next_hand(table, ts)


def _on_next_game(table: TableState, d: NextGame, ts: float) -> None:
    """The match goes on: a new game at the same seats, scores from 0, hands counting on."""
    assert table.game.is_over and not table.over
    table.hand_base += table.game.hand_number
    table.game = GameState.new(table.settings.rules)
    table.choices = {}
    table.timers.pop("next_game", None)
    _changed(table, ts)


def _on_away(table: TableState, d: Away, ts: float) -> None:
    seat = table.seats[d.seat]
    seat.away_since = ts
    seat.returning = False
    if d.absent:
        table.absent.add(d.seat)
    if d.seat in table.reading:  # nobody waits for a reader who has gone
        table.reading.discard(d.seat)
        _pace_next_hand(table, ts)
    if not seat.taken_over and not table.over:
        # One who never came (``absent``: the owner saw no connection of his in the arrival
        # window) has had his grace: a bot plays for him at once.
        grace = 0.0 if d.absent else table.settings.grace
        table.timers[GRACE[d.seat]] = ts + grace
    _watch_abandon(table, ts)


def _on_back(table: TableState, d: Back, ts: float) -> None:
    s = d.seat
    seat = table.seats[s]
    seat.away_since = None
    table.timers.pop(GRACE[s], None)
    _watch_abandon(table, ts)
    if seat.taken_over:
        if _deciding(table, s):
            seat.returning = True  # the bot finishes this decision; the next is his
        else:
            seat.taken_over = False
            _changed(table, ts, bump=False)


def _on_takeover(table: TableState, d: Takeover, ts: float) -> None:
    s = d.seat
    seat = table.seats[s]
    table.timers.pop(GRACE[s], None)
    seat.taken_over = True
    seat.bot = d.bot
    _changed(table, ts, bump=False)


def _on_resumed(table: TableState, d: Resumed, ts: float) -> None:
    shift = d.shift
    for k in list(table.timers):
        table.timers[k] += shift
    table.hand_ended_at += shift
    for s, seat in enumerate(table.seats):
        if seat.kind == "person" and seat.away_since is None and table.started and not table.over:
            seat.away_since = ts
            if not seat.taken_over:
                table.timers[GRACE[s]] = ts + table.settings.grace
    _watch_abandon(table, ts)


def _on_abandoned(table: TableState, d: Abandoned, ts: float) -> None:
    """Its people all gone ``abandon_after`` seconds: the table ends where it stands, with no
    result. Its record holds the hands finished; its settlement gives every chip back and
    rates nobody (``store.settle``: a table without a result)."""
    _end_abandoned(table)


def _end_abandoned(table: TableState) -> None:
    table.abandoned = True
    table._over_of = None  # ``over`` is worked out again: true from now on
    table.timers = {}
    table.reading.clear()
    table.version = table.seq + 1
    table.record = table.table_record()


def _on_aborted(table: TableState, d: Aborted, ts: float) -> None:
    """A person left a rated game (his grace ran out) before its first hand ended: the
    table ends as an abandoned one does (no result, unrated, every chip back), and says
    whose leave ended it (table.abort)."""
    table.aborted = d.seat
    table.seats[d.seat].away_since = table.seats[d.seat].away_since or ts
    table.timers.pop(GRACE[d.seat], None)
    _end_abandoned(table)


# -- helpers of apply -----------------------------------------------------------------------


def _watch_abandon(table: TableState, ts: float) -> None:
    """Arm the end of a started table when its last person still there goes away (at
    ``ts``, ``abandon_after`` later); anyone back disarms it. An end already armed keeps its
    time: a restart (``resumed``) has moved it on by the time the server was down."""
    away = [seat.away_since for seat in table.seats if seat.kind == "person"]
    if table.started and not table.over and away and None not in away:
        table.timers.setdefault(ABANDON, ts + table.settings.abandon_after)
    else:
        table.timers.pop(ABANDON, None)


def _deciding(table: TableState, seat: int) -> bool:
    return ACT[seat] in table.timers


def _took_decision(table: TableState, seat: int) -> None:
    st = table.seats[seat]
    if st.returning:
        st.returning = False
        st.taken_over = False


def _changed(table: TableState, ts: float, *, between: bool = False, bump: bool = True) -> None:
    """Re-arm the decision clocks for the phase the game is now in."""
    if bump:
        table.version = table.seq + 1
    old = {k: table.timers.pop(k) for k in [k for k in table.timers if k.startswith("act")]}
    game = table.game
    st = table.settings
    if game.is_over:
        if table.over:
            table.timers = {}
            return
        # The match goes on: the finished game stays on show, then the next one starts.
        # Grace periods, and the end of a table its people have left, keep running across
        # the break.
        table.timers = {
            k: v for k, v in table.timers.items() if k.startswith("grace") or k == ABANDON
        }
        table.timers["next_game"] = ts + st.between_hands
        return
    if game.phase is Phase.DEAL:
        # A pause already running between hands keeps its end (a player coming back in it
        # does not cut it short).
        if "deal" not in table.timers and (between or "hand" not in table.timers):
            table.timers["hand"] = ts + (st.between_hands if between else 0.0)
        return
    if game.phase is Phase.REDEAL:
        for s in game.redeal_eligible():
            if not game.redeal_held:  # a deal of an old log: each seat had its own window
                _arm(table, s, ts, st.redeal_window, old)
            elif table.seats[s].bot_plays and s not in table.redeal_silent:
                # A bot is asked at once; a person has the whole window (its end, the
                # REDEAL timer, is the same for everybody and closes it for everybody).
                table.timers[ACT[s]] = ts
    elif game.phase is Phase.CHOOSE:
        seats = game.choosing_seats()
        assert seats is not None
        for s in seats:
            if s not in table.choices:
                _arm(table, s, ts, st.choose_window, old)
    elif game.phase is Phase.PLAY and game.hand is not None:
        s = game.hand.turn
        if game.hand.legal_actions() == [PASS]:
            table.timers[ACT[s]] = ts + st.pass_delay
        else:
            _arm(table, s, ts, st.move_clock)


def _pace_next_hand(table: TableState, ts: float) -> None:
    """When the next hand starts: ``between_hands`` after the last one ended, or up to
    ``reading_wait`` later while somebody still reads it; never in the past (once the last
    reader is done after the short pause, the hand starts at once)."""
    if "hand" not in table.timers:
        return
    st = table.settings
    start = table.hand_ended_at + st.between_hands
    if table.reading:
        start += st.reading_wait
    table.timers["hand"] = max(start, ts)


def _arm(
    table: TableState, seat: int, ts: float, window: float, old: dict[str, float] | None = None
) -> None:
    kept = (old or {}).get(ACT[seat])
    if kept is not None and not table.seats[seat].bot_plays:
        table.timers[ACT[seat]] = kept  # a window already open keeps its end
        return
    delay = table.settings.bot_delay if table.seats[seat].bot_plays else window
    table.timers[ACT[seat]] = ts + delay


class TableApply(TableState):
    """``apply`` and ``reply`` as methods of ``TableService``: the functions above."""

    def apply(self, entry: Entry) -> None:
        apply_entry(self, entry)

    def reply(self, guest: str, cmd: str) -> Ack | None:
        return reply(self, guest, cmd)
