"""Deciding a person's command: ``decide(table, guest, command, now)`` checks it against the
table's state and returns the entry that applies it, or refuses it with a ``TableError``.

Plain functions over the table's state (``TableState``), apart from the appliers
(table/apply.py) because checking a command changes nothing: a refused command leaves the table
as it was, and only the entry it returns is ever applied. ``may_fill`` and ``may_say`` are here
too: the other questions a person's message asks of the table. ``TableService`` has them as its
methods ``command``, ``may_fill`` and ``may_say`` (``TableChecks``, at the end). (Not
``commands.py``: elsewhere in the package that name holds a command line's subcommands.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

from tranque.bots.base import LEVELS, resolve_bot
from tranque.fair.seeds import SeatKind
from tranque.rules.errors import RulesError
from tranque.rules.game import LeadChoice, Phase
from tranque.rules.hand import Action
from tranque.table.entries import (
    Away,
    BotSat,
    Chose,
    Committed,
    EntryBody,
    Played,
    ReadingAsked,
    Redealt,
    Revealed,
    Sat,
    Stood,
    logged,
)
from tranque.table.messages import (
    AddBot,
    Choose,
    Fill,
    Leave,
    Play,
    Reading,
    Ready,
    Redeal,
    RematchAnswer,
    Reveal,
    Say,
    Sit,
    TableCommand,
    as_command,
)
from tranque.table.model import HEX64, MAX_SEED_HEX, TableError, resolve_bot_name
from tranque.table.ports import Entry
from tranque.table.state import TableState

_HAND_ON = (Phase.REDEAL, Phase.CHOOSE, Phase.PLAY)


def decide(
    table: TableState, guest: str, msg: TableCommand | Mapping[str, Any], now: float
) -> Entry | None:
    """The entry that applies a person's command, or TableError; None for a command taken
    that logs nothing (a "no" to a deal on show: silence, see ``_redeal``). Changes
    nothing that is logged. The owner answers phrases, the rematch and ``fill`` itself."""
    cmd = as_command(msg)
    seat = table.seat_of(guest)
    made: EntryBody | None
    match cmd:
        case Play():
            _not_stale(table, cmd.seq)
            made = _play(table, seat, cmd)
        case Sit():
            made = _sit(table, seat, cmd)
        case AddBot():
            made = _add_bot(table, guest, cmd)
        case Leave():
            made = _leave(table, seat)
        case Ready():
            made = _ready(table, seat, cmd)
        case Reveal():
            made = _reveal(table, seat, cmd)
        case Redeal():
            _not_stale(table, cmd.seq)
            made = _redeal(table, seat, cmd)
        case Choose():
            _not_stale(table, cmd.seq)
            made = _choose(table, seat, cmd)
        case Reading():
            made = _reading(table, seat, cmd)
        case Say() | RematchAnswer() | Fill():
            raise TableError("unknown_type", f"the table's owner answers {cmd!r}")
        case _:
            assert_never(cmd)
    if made is None:
        return None
    made.guest, made.cmd = guest, cmd.id
    return logged(table.seq + 1, made, now)


def _not_stale(table: TableState, based: int) -> None:
    """A decision is based on the event it names: refused once the table has moved on."""
    if based < table.version:
        raise TableError(
            "stale",
            f"the command is based on event {based}, but the table has moved on to "
            f"event {table.version}: look again",
        )


def _need_seat(table: TableState, seat: int | None) -> int:
    if seat is None:
        raise TableError("not_seated", "you have no seat at this table")
    if table.seats[seat].taken_over:
        raise TableError(
            "bot_playing", "a bot holds your seat; you get it back from your next turn"
        )
    return seat


def _need_running(table: TableState) -> None:
    if not table.started:
        raise TableError("not_started", "the game has not started")
    if table.over:
        raise TableError("game_over", "the game is over")


def _sit(table: TableState, seat: int | None, msg: Sit) -> EntryBody:
    want = msg.seat
    if table.started:
        raise TableError("started", "the game has started: seats are taken")
    new_name = msg.nickname
    if seat is not None and want == seat and new_name and new_name != table.seats[seat].nickname:
        # A new name in one's own seat, before the first hand: "sat" again, ``renamed``
        # (no escrow taken again: table.chips).
        return Sat(seat=seat, nickname=new_name, renamed=True)
    if seat is not None:
        raise TableError("already_seated", f"you already sit in seat {seat}")
    if not 0 <= want <= 3:
        raise TableError("bad_seat", "seats are 0, 1, 2 and 3")
    if table.seats[want].kind != "empty":
        raise TableError("seat_taken", f"seat {want} is taken")
    return Sat(seat=want, nickname=msg.nickname or "guest")


def _add_bot(table: TableState, guest: str, msg: AddBot) -> EntryBody:
    want = msg.seat
    if guest != table.host:
        raise TableError("not_host", "only the table's host may seat a bot")
    if table.started:
        raise TableError("started", "the game has started")
    if not 0 <= want <= 3:
        raise TableError("bad_seat", "seats are 0, 1, 2 and 3")
    if table.seats[want].kind != "empty":
        raise TableError("seat_taken", f"seat {want} is taken")
    level = msg.level
    if level is None:
        return BotSat(seat=want, bot=resolve_bot_name(table.settings.bot))
    # A level people choose, never a bot's own name (``strong-slow`` costs the most): see
    # ``server.http_schemas.bot``.
    if level not in LEVELS:
        raise TableError("bad_bot", f"level is {', '.join(LEVELS)}, not {level!r}")
    try:
        bot = resolve_bot(str(level))
    except ValueError as exc:  # its bot is not installed here (the 'bots' extra)
        raise TableError("bad_bot", str(exc)) from None
    return BotSat(seat=want, bot=bot)


def may_fill(table: TableState, guest: str) -> int:
    """The seat of a person who may offer this table's free seats to the quick-match
    queue (``fill``), or TableError: seated, before the start, a seat free, not already."""
    if table.settings.pena is not None:
        raise TableError("pena_table", "a peña's table is for its members: invite one of them")
    seat = table.seat_of(guest)
    if seat is None:
        raise TableError("not_seated", "only the people seated may look for a fourth")
    if table.started:
        raise TableError("started", "the game has started: seats are taken")
    if all(s.kind != "empty" for s in table.seats):
        raise TableError("seat_taken", "every seat is taken")
    if "fill" in table.timers:
        raise TableError("filling", "the free seats are offered to the queue already")
    return seat


def _leave(table: TableState, seat: int | None) -> EntryBody:
    if seat is None:
        raise TableError("not_seated", "you have no seat at this table")
    if not table.started:
        return Stood(seat=seat)
    if table.over:
        raise TableError("game_over", "the game is over")
    if table.seats[seat].away_since is not None:
        raise TableError("already_away", "you have already left this table")
    return Away(seat=seat, left=True)


def _ready(table: TableState, seat: int | None, msg: Ready) -> EntryBody:
    _need_running(table)
    s = _need_seat(table, seat)
    fair = table.fair
    commit = msg.commit.lower()
    if fair is None or fair.stage != "commit" or msg.hand != fair.hand:
        raise TableError("no_commit_due", "no commitment is being collected for that hand")
    if fair.kinds[s] is not SeatKind.PERSON:
        raise TableError("no_commit_due", "your seat contributes no seed to this hand")
    if fair.commits[s] is not None:
        raise TableError("duplicate", "you already committed to a seed for this hand")
    if not HEX64.match(commit):
        raise TableError("bad_commit", "a commitment is 64 hex digits (SHA-256)")
    return Committed(seat=s, hand=fair.hand, commit=commit)


def _reveal(table: TableState, seat: int | None, msg: Reveal) -> EntryBody:
    _need_running(table)
    s = _need_seat(table, seat)
    fair = table.fair
    if fair is None or fair.stage != "reveal" or msg.hand != fair.hand:
        raise TableError("no_reveal_due", "no seed is being revealed for that hand")
    if fair.commits[s] is None:
        raise TableError("no_reveal_due", "you made no commitment for this hand")
    if fair.seeds[s] is not None:
        raise TableError("duplicate", "you already revealed your seed for this hand")
    seed = msg.seed.lower()
    if len(seed) > MAX_SEED_HEX or len(seed) % 2 or not all(c in "0123456789abcdef" for c in seed):
        raise TableError("bad_seed", "a seed is hex text of at most 64 bytes")
    return Revealed(seat=s, hand=fair.hand, seed=seed)


def _redeal(table: TableState, seat: int | None, msg: Redeal) -> EntryBody | None:
    """Asking is logged and shown to all (the table is told who, and deals again). A "no"
    to a deal on show is logged nowhere and shown to nobody: it must look exactly like the
    silence of a seat that could not ask, so it only withdraws this seat's offer (in
    memory: a rebuilt table offers it again) and the window runs to its end."""
    _need_running(table)
    s = _need_seat(table, seat)
    ask = msg.ask
    try:
        table.game.answer_redeal(s, ask)
    except RulesError as exc:
        raise TableError(exc.code, str(exc)) from None
    if s in table.redeal_silent:
        raise TableError("duplicate", "you already said no: this deal stands")
    if not ask and table.game.redeal_held:
        table.redeal_silent.add(s)
        return None
    return Redealt(seat=s, ask=ask, by="person")


def _choose(table: TableState, seat: int | None, msg: Choose) -> EntryBody:
    _need_running(table)
    s = _need_seat(table, seat)
    seats = table.game.choosing_seats()
    if seats is None or s not in seats:
        raise TableError("wrong_phase", "you are not choosing who leads now")
    if s in table.choices:
        raise TableError("duplicate", "you already chose")
    try:
        choice = LeadChoice(msg.choice)
    except ValueError:
        raise TableError("malformed", "a choice is 'salgo' or 'sal_tu'") from None
    return Chose(seat=s, choice=choice.value, by="person")


def _reading(table: TableState, seat: int | None, msg: Reading) -> EntryBody:
    """Between two hands a person asks the next one to wait while he reads the end of the
    last (``done`` false), or says he has read it (``done`` true)."""
    _need_running(table)
    s = _need_seat(table, seat)
    hand = msg.hand
    fair = table.fair
    between = "hand" in table.timers and fair is not None and fair.hand in table.published
    if not between or fair is None or fair.hand != hand:
        raise TableError(
            "not_between_hands", f"hand {hand} is not the hand just ended, or the next began"
        )
    done = msg.done
    if done and s not in table.reading:
        raise TableError("not_reading", "you did not ask the next hand to wait")
    if not done and s in table.reading:
        raise TableError("duplicate", "the next hand already waits for you")
    return ReadingAsked(seat=s, hand=hand, done=done)


def _play(table: TableState, seat: int | None, msg: Play) -> EntryBody:
    _need_running(table)
    s = _need_seat(table, seat)
    try:
        action = Action.parse(msg.move)
    except RulesError as exc:
        raise TableError(exc.code, str(exc)) from None
    game = table.game
    hand = game.hand
    if game.phase is not Phase.PLAY or hand is None or hand.is_over:
        raise TableError("wrong_phase", f"no play is due: the game is in phase {game.phase.value}")
    if hand.turn != s:
        raise TableError("not_your_turn", f"it is seat {hand.turn}'s turn, not yours")
    if action.is_pass:
        raise TableError("server_passes", "passes are made by the server, never sent")
    if action.end is None and hand.ends is not None and action.tile is not None:
        fits = [a for a in hand.legal_actions() if a.tile == action.tile]
        if len({a.end for a in fits}) == 1 or (fits and hand.ends[0] == hand.ends[1]):
            action = fits[0]
    try:
        after = game.play(action, s)
    except RulesError as exc:
        raise TableError(exc.code, str(exc)) from None
    move = str(action)
    # The checked play is the state ``apply`` would compute again: keep it for that entry.
    table._checked = (table.seq, s, move, after)
    return Played(seat=s, move=move, by="person")


def may_say(table: TableState, guest: str) -> int:
    """The seat of a person who may say a phrase now, or TableError: only seated people,
    and never while a hand is on (the rule book forbids any talk or sign between partners
    during play): before the first deal, between hands, after the game."""
    seat = table.seat_of(guest)
    if seat is None:
        raise TableError("not_seated", "only the people at the table say phrases")
    if table.started and not table.over and table.game.phase in _HAND_ON:
        raise TableError("phrase_during_hand", "no phrases while a hand is on: wait for its end")
    return seat


class TableChecks(TableState):
    """``command``, ``may_fill`` and ``may_say`` as methods of ``TableService``: the functions
    above."""

    def command(
        self, guest: str, msg: TableCommand | Mapping[str, Any], now: float
    ) -> Entry | None:
        return decide(self, guest, msg, now)

    def may_fill(self, guest: str) -> int:
        return may_fill(self, guest)

    def may_say(self, guest: str) -> int:
        return may_say(self, guest)
