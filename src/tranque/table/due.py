"""What a table does by itself: a bot's decision, a forced pass, a clock that ran out, the next
hand's server seed, the end of a fairness window, the end of a table its people have all left
(``due(table, now)`` and ``answer_request``).

Plain functions over the table's state (``TableState``), apart from the commands and the
appliers because this is the one part driven by time and by bots: ``due`` says what comes next
at ``now`` (or the request a bot must think about, never thinking here), and ``answer_request``
turns a thought-out decision into the same entry the table always logged for it. Bot seeds come
from the position, so a rebuild decides the same. ``TableService`` has them as its methods
``due`` and ``answer`` (``TableDue``, at the end).
"""

from __future__ import annotations

import hashlib

from tranque.rules.game import LeadChoice, Phase
from tranque.rules.hand import PASS, Action
from tranque.rules.views import seat_view
from tranque.table.abort import aborts_on_leave
from tranque.table.entries import (
    Abandoned,
    Aborted,
    BotSat,
    Choices,
    Chose,
    Dealt,
    EntryBody,
    HandSeed,
    NextGame,
    Played,
    RedealClosed,
    Redealt,
    RevealOpen,
    Started,
    Takeover,
    logged,
)
from tranque.table.model import ABANDON, ACT, FILL_BOT, GRACE, REDEAL, resolve_bot_name
from tranque.table.ports import Entry, ThinkRequest
from tranque.table.state import TableState


def _cv(c: LeadChoice | None) -> str | None:
    return None if c is None else c.value


def due(table: TableState, now: float) -> Entry | ThinkRequest | None:
    """The next entry the table makes by itself at ``now``, if any; or, when the next thing
    is a bot's decision, the request to think about (``answer`` turns its answer into the
    entry). Nothing that thinks runs here."""
    made = _due(table, now)
    if made is None or isinstance(made, ThinkRequest):
        return made
    return logged(table.seq + 1, made, now)


def _due(table: TableState, now: float) -> EntryBody | ThinkRequest | None:
    t = table.timers
    for s in range(4):
        g = t.get(GRACE[s])
        if g is not None and g <= now:
            if aborts_on_leave(table):  # a rated game left before its first hand ended
                return Aborted(seat=s)
            return Takeover(seat=s, bot=resolve_bot_name(table.settings.bot))
    if not table.started:
        if all(seat.kind != "empty" for seat in table.seats):
            return Started()
        f = t.get("fill")
        if f is not None and f <= now:
            # Nobody came from the queue in time: a bot of the quick match's level takes
            # each seat still free, one entry each, and the game starts.
            free = next(s for s, seat in enumerate(table.seats) if seat.kind == "empty")
            return BotSat(seat=free, bot=resolve_bot_name(FILL_BOT))
        return None
    if table.over:
        return None
    a = t.get(ABANDON)
    if a is not None and a <= now:
        return Abandoned(after=table.settings.abandon_after)
    g = t.get("next_game")
    if g is not None and g <= now:
        return NextGame(game=table.game_number + 1, hand=table.table_hand + 1)
    h = t.get("hand")
    if h is not None and h <= now:
        number = table.table_hand
        return HandSeed(hand=number, server_seed=table.seed_source(table.table_id, number).hex())
    fair = table.fair
    if fair is not None and fair.stage == "commit":
        persons = fair.persons()
        if all(fair.commits[s] is not None for s in persons) or t.get("fair", now) <= now:
            return RevealOpen(hand=fair.hand)
    if fair is not None and fair.stage == "reveal":
        committed = [s for s in range(4) if fair.commits[s] is not None]
        if all(fair.seeds[s] is not None for s in committed) or t.get("fair", now) <= now:
            return _dealt(table, fair.hand, 0)
    d = t.get("deal")
    if d is not None and d <= now and fair is not None:
        return _dealt(table, fair.hand, fair.attempts)
    # Before any seat's decision: the window closes at its time whether or not a bot that
    # may ask has answered (a late answer is silence), so that it lasts the same every hand.
    w = t.get(REDEAL)
    if w is not None and w <= now and fair is not None:
        return RedealClosed(hand=fair.hand)
    if table.game.phase is Phase.CHOOSE and len(table.choices) == 2:
        seats = table.game.choosing_seats()
        assert seats is not None
        return Choices(choices=[_cv(table.choices[seats[0]]), _cv(table.choices[seats[1]])])
    acts = sorted((when, int(k[3:])) for k, when in t.items() if k.startswith("act"))
    for when, seat in acts:
        if when <= now:
            return _act_for(table, seat)
    return None


def _dealt(table: TableState, hand: int, attempt: int) -> Dealt:
    """A deal's entry, with the seconds it stays on show (``window``) whenever anybody
    could ask for a redeal: every hand the same, at a table with a person
    ``redeal_window``, at a table of bots alone ``bot_delay`` (rules.md, section 11)."""
    if table.settings.rules.redeal_doubles == 0:
        return Dealt(hand=hand, attempt=attempt)
    people = any(seat.kind == "person" for seat in table.seats)
    window = table.settings.redeal_window if people else table.settings.bot_delay
    return Dealt(hand=hand, attempt=attempt, window=window)


def _seed(table: TableState, seat: int, tail: str) -> int:
    # Seeded by the position, so the same position gives the same decision after a rebuild.
    game = table.game
    n = len(game.hand.moves) if game.hand is not None else 0
    text = f"{table.table_id}|{table.table_hand}|{n}|{seat}|{tail}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _bot(table: TableState, seat: int) -> tuple[str, int]:
    """The bot that plays for the seat, and its seed for this position."""
    name = table.seats[seat].bot or resolve_bot_name(table.settings.bot)
    return name, _seed(table, seat, str(len(table.game.setup.redeals)))


def _clock_bot(table: TableState, seat: int) -> tuple[str, int]:
    """The bot that plays when the seat's clock runs out, and its seed for this position."""
    return resolve_bot_name(table.settings.bot), _seed(table, seat, "clock")


def _think(table: TableState, seat: int, kind: str, by: str, bot: tuple[str, int]) -> ThinkRequest:
    return ThinkRequest(
        table.table_id,
        table.seq,
        table.version,
        seat,
        kind,
        by,
        bot[0],
        bot[1],
        seat_view(table.game, seat),
    )


def _act_for(table: TableState, seat: int) -> EntryBody | ThinkRequest:
    """The server's decision for a seat: a forced pass or a clock that ran out on a person's
    window (made here), or a bot's decision (a request to think about, see ``answer``)."""
    game = table.game
    who = "bot" if table.seats[seat].bot_plays else "clock"
    if game.phase is Phase.REDEAL:
        if who == "bot":
            return _think(table, seat, "redeal", who, _bot(table, seat))
        return Redealt(seat=seat, ask=False, by=who)
    if game.phase is Phase.CHOOSE:
        if who == "bot":
            return _think(table, seat, "lead", who, _bot(table, seat))
        return Chose(seat=seat, choice=None, by=who)
    assert game.phase is Phase.PLAY and game.hand is not None
    legal = game.hand.legal_actions()
    if legal == [PASS]:
        return Played(seat=seat, move="pass", by="server")
    # A clock that runs out plays the table's bot's move, never a random one.
    bot = _bot(table, seat) if who == "bot" else _clock_bot(table, seat)
    return _think(table, seat, "action", who, bot)


def answer_request(
    table: TableState, request: ThinkRequest, answer: str | bool, now: float
) -> Entry | None:
    """The entry of a thought-out decision: the same entry the table always logged for it;
    None for a bot's "no" to a deal on show, which is silence (nothing is logged, and the
    bot is not asked again for this deal).

    Call it only while ``due`` still returns an equal request (same ``key``); the answer is
    checked against the position all the same, so a wrong one can never be logged.
    """
    seat = request.seat
    made: EntryBody
    match request.kind:
        case "redeal":
            if not isinstance(answer, bool):
                raise ValueError(f"a redeal answer is a bool, not {answer!r}")
            table.game.answer_redeal(seat, answer)
            if not answer and table.game.redeal_held:
                table.redeal_silent.add(seat)
                table.timers.pop(ACT[seat], None)
                return None
            made = Redealt(seat=seat, ask=answer, by=request.by)
        case "lead":
            choice = LeadChoice(answer).value
            made = Chose(seat=seat, choice=choice, by=request.by)
        case "action":
            action = Action.parse(str(answer))
            table.game.play(action, seat)  # raises on an illegal move: nothing is applied
            made = Played(seat=seat, move=str(action), by=request.by)
        case _:
            raise ValueError(f"no decision of kind {request.kind!r}")
    return logged(table.seq + 1, made, now)


class TableDue(TableState):
    """``due`` and ``answer`` as methods of ``TableService``: the functions above."""

    def due(self, now: float) -> Entry | ThinkRequest | None:
        return due(self, now)

    def answer(self, request: ThinkRequest, answer: str | bool, now: float) -> Entry | None:
        return answer_request(self, request, answer, now)
