"""``TableService``: one table's state machine, from inputs (log entries) to state and views.

Two ways in, one way to change state:

- ``command(guest, msg, now)`` checks a person's command against the state and returns the entry
  that applies it, or raises ``TableError`` (code + sentence) and changes nothing.
- ``due(now)`` returns the next entry the table makes by itself: a bot's decision, a forced pass,
  a clock that ran out, the next hand's server seed, the end of a fairness window.
- ``apply(entry)`` is the only method that changes state. Rebuilding a table is applying its
  logged entries in order, so everything ``apply`` does depends on the entry and the state only
  (deadlines are computed from the entry's own time stamp).

What leaves the table is read by the ``TableViews`` mixin (table/views.py): ``project(entry)``
(the public form of an entry: no seed before the hand ends, no tile anyone may not see),
``state_for(seat)`` (the small per-recipient state attached to every event) and
``full_view(seat)`` (a resync). The plain data (settings, seats, the fairness round, the refusal
type) is in table/model.py.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import replace
from typing import Any

from tranque.bots.base import resolve_bot
from tranque.fair.recipe import coin as fair_coin
from tranque.fair.recipe import deal_for, first_hand_draw
from tranque.fair.seeds import SeatKind, hand_fairness
from tranque.rules.errors import RulesError
from tranque.rules.game import GameState, LeadChoice, MatchState, Phase
from tranque.rules.hand import PASS, Action
from tranque.rules.record import game_record, match_record
from tranque.rules.views import seat_view
from tranque.table.model import (
    ACT,
    GRACE,
    HEX64,
    MAX_SEED_HEX,
    FairHand,
    Seat,
    SeedSource,
    TableError,
    TableSettings,
    fixed_seeds,
    resolve_bot_name,
    secure_seeds,
)
from tranque.table.ports import Entry, ThinkRequest
from tranque.table.views import TableViews

log = logging.getLogger("tranque.table")


class TableService(TableViews):
    def __init__(self, table_id: str, seed_source: SeedSource) -> None:
        self.table_id = table_id
        self.seed_source = seed_source
        self.settings = TableSettings()
        self.host: str | None = None
        self.seats = [Seat() for _ in range(4)]
        self.started = False
        self.game = GameState.new(self.settings.rules)
        # The games already finished (a match of one game outside Miami); the current game is
        # added the moment it ends. ``hand_base`` counts the table hands of the games before the
        # current one: the fairness recipe's hand numbers keep counting per table.
        self.match = MatchState(self.settings.rules)
        self.hand_base = 0
        self.seq = 0  # the last applied entry
        self.version = 0  # the last entry that changed what a seat may decide
        self.fair: FairHand | None = None
        self.published: dict[int, dict[str, Any]] = {}  # hand -> fairness section
        self.choices: dict[int, LeadChoice | None] = {}
        self.timers: dict[str, float] = {}
        # Between two hands: the seats of the people still reading the last one's end, and when
        # it ended (the pause runs from there: see ``_pace_next_hand``).
        self.reading: set[int] = set()
        self.hand_ended_at = 0.0
        # Each guest's applied commands: id -> seq, for the ack a resend gets again. Plain ints
        # in one dict per guest, not a dict and a key pair per command: those were containers the
        # cyclic collector tracked, one more per move for the table's whole life.
        self.replies: dict[str, dict[str, int]] = {}
        self.last_ts = 0.0
        self.record: dict[str, Any] | None = None  # set once the match (the game) is over
        self._checked: tuple[int, int, str, GameState] | None = None  # see _cmd_play
        self._over_of: MatchState | None = None  # the match ``_over`` was worked out for
        self._over = False

    # -- reading --------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """The table is done: its match is decided (with one game to win, the game is over)."""
        match = self.match
        if match is not self._over_of:  # asked several times per event; the match changes rarely
            self._over_of, self._over = match, match.winner is not None
        return self._over

    @property
    def is_match(self) -> bool:
        return self.settings.rules.games_to_win_match > 1

    @property
    def table_hand(self) -> int:
        """The current hand's number at this table (the fairness recipe's), across games."""
        return self.hand_base + self.game.hand_number

    @property
    def game_number(self) -> int:
        """The current game's number in the match, from 1 (a finished game keeps its number)."""
        match = self.match
        ended = bool(match.games) and match.games[-1] is self.game
        return len(match.games) + (0 if ended else 1)

    def seat_of(self, guest: str | None) -> int | None:
        if guest is None:
            return None
        for s, seat in enumerate(self.seats):
            if seat.kind == "person" and seat.guest == guest:
                return s
        return None

    def next_wake(self, after: float | None = None) -> float | None:
        """The earliest time at which ``due`` may have something, or None for never; with
        ``after``, the earliest such time later than ``after`` (what else may come due while a
        decision is being thought about)."""
        times = [t for t in self.timers.values() if after is None or t > after]
        return min(times) if times else None

    def game_record(self) -> dict[str, Any]:
        """The current game's ``tranque-game/1`` record (its finished hands)."""
        base = self.hand_base
        fairness = {n - base: f for n, f in self.published.items() if n > base}
        return game_record(self.game, fairness=fairness)

    def table_record(self) -> dict[str, Any]:
        """The table's record: a game record, or under match rules (Miami) a match record."""
        if not self.is_match:
            return self.game_record()
        ended = bool(self.match.games) and self.match.games[-1] is self.game
        current = None if ended else self.game
        return match_record(self.match, current, fairness=self.published)

    # -- the per-recipient state ----------------------------------------------------------------

    # -- commands -------------------------------------------------------------------------------

    def command(self, guest: str, msg: dict[str, Any], now: float) -> Entry:
        """The entry that applies a person's command, or TableError. Changes nothing."""
        kind = msg["type"]
        seat = self.seat_of(guest)
        handler = getattr(self, f"_cmd_{kind}", None)
        if handler is None:
            raise TableError("unknown_type", f"there is no command {kind!r}")
        if kind in ("play", "choose", "redeal"):
            based = msg.get("seq")
            if based is not None and based < self.version:
                raise TableError(
                    "stale",
                    f"the command is based on event {based}, but the table has moved on to "
                    f"event {self.version}: look again",
                )
        entry_type, data = handler(guest, seat, msg)
        data["guest"] = guest
        data["cmd"] = msg.get("id")
        return Entry(self.seq + 1, entry_type, data, now)

    def _need_seat(self, seat: int | None) -> int:
        if seat is None:
            raise TableError("not_seated", "you have no seat at this table")
        if self.seats[seat].taken_over:
            raise TableError(
                "bot_playing", "a bot holds your seat; you get it back from your next turn"
            )
        return seat

    def _need_running(self) -> None:
        if not self.started:
            raise TableError("not_started", "the game has not started")
        if self.over:
            raise TableError("game_over", "the game is over")

    def _cmd_sit(
        self, guest: str, seat: int | None, msg: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        want = msg["seat"]
        if self.started:
            raise TableError("started", "the game has started: seats are taken")
        if seat is not None:
            raise TableError("already_seated", f"you already sit in seat {seat}")
        if not 0 <= want <= 3:
            raise TableError("bad_seat", "seats are 0, 1, 2 and 3")
        if self.seats[want].kind != "empty":
            raise TableError("seat_taken", f"seat {want} is taken")
        return "sat", {"seat": want, "nickname": msg.get("nickname") or "guest"}

    def _cmd_add_bot(
        self, guest: str, seat: int | None, msg: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        want = msg["seat"]
        if guest != self.host:
            raise TableError("not_host", "only the table's host may seat a bot")
        if self.started:
            raise TableError("started", "the game has started")
        if not 0 <= want <= 3:
            raise TableError("bad_seat", "seats are 0, 1, 2 and 3")
        if self.seats[want].kind != "empty":
            raise TableError("seat_taken", f"seat {want} is taken")
        level = msg.get("level")
        if level is None:
            return "bot_sat", {"seat": want, "bot": resolve_bot_name(self.settings.bot)}
        try:
            bot = resolve_bot(str(level))
        except ValueError as exc:
            raise TableError("bad_bot", str(exc)) from None
        return "bot_sat", {"seat": want, "bot": bot}

    def _cmd_leave(
        self, guest: str, seat: int | None, msg: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        if seat is None:
            raise TableError("not_seated", "you have no seat at this table")
        if not self.started:
            return "stood", {"seat": seat}
        if self.over:
            raise TableError("game_over", "the game is over")
        if self.seats[seat].away_since is not None:
            raise TableError("already_away", "you have already left this table")
        return "away", {"seat": seat, "left": True}

    def _cmd_ready(
        self, guest: str, seat: int | None, msg: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        self._need_running()
        s = self._need_seat(seat)
        fair = self.fair
        commit = str(msg["commit"]).lower()
        if fair is None or fair.stage != "commit" or msg["hand"] != fair.hand:
            raise TableError("no_commit_due", "no commitment is being collected for that hand")
        if fair.kinds[s] is not SeatKind.PERSON:
            raise TableError("no_commit_due", "your seat contributes no seed to this hand")
        if fair.commits[s] is not None:
            raise TableError("duplicate", "you already committed to a seed for this hand")
        if not HEX64.match(commit):
            raise TableError("bad_commit", "a commitment is 64 hex digits (SHA-256)")
        return "committed", {"seat": s, "hand": fair.hand, "commit": commit}

    def _cmd_reveal(
        self, guest: str, seat: int | None, msg: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        self._need_running()
        s = self._need_seat(seat)
        fair = self.fair
        if fair is None or fair.stage != "reveal" or msg["hand"] != fair.hand:
            raise TableError("no_reveal_due", "no seed is being revealed for that hand")
        if fair.commits[s] is None:
            raise TableError("no_reveal_due", "you made no commitment for this hand")
        if fair.seeds[s] is not None:
            raise TableError("duplicate", "you already revealed your seed for this hand")
        seed = str(msg["seed"]).lower()
        if (
            len(seed) > MAX_SEED_HEX
            or len(seed) % 2
            or not all(c in "0123456789abcdef" for c in seed)
        ):
            raise TableError("bad_seed", "a seed is hex text of at most 64 bytes")
        return "revealed", {"seat": s, "hand": fair.hand, "seed": seed}

    def _cmd_redeal(
        self, guest: str, seat: int | None, msg: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        self._need_running()
        s = self._need_seat(seat)
        try:
            self.game.answer_redeal(s, bool(msg["ask"]))
        except RulesError as exc:
            raise TableError(exc.code, str(exc)) from None
        return "redeal", {"seat": s, "ask": bool(msg["ask"]), "by": "person"}

    def _cmd_choose(
        self, guest: str, seat: int | None, msg: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        self._need_running()
        s = self._need_seat(seat)
        seats = self.game.choosing_seats()
        if seats is None or s not in seats:
            raise TableError("wrong_phase", "you are not choosing who leads now")
        if s in self.choices:
            raise TableError("duplicate", "you already chose")
        try:
            choice = LeadChoice(msg["choice"])
        except ValueError:
            raise TableError("malformed", "a choice is 'salgo' or 'sal_tu'") from None
        return "chose", {"seat": s, "choice": choice.value, "by": "person"}

    def _cmd_reading(
        self, guest: str, seat: int | None, msg: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        """Between two hands a person asks the next one to wait while he reads the end of the
        last (``done`` false), or says he has read it (``done`` true)."""
        self._need_running()
        s = self._need_seat(seat)
        hand = msg["hand"]
        fair = self.fair
        between = "hand" in self.timers and fair is not None and fair.hand in self.published
        if not between or fair is None or fair.hand != hand:
            raise TableError(
                "not_between_hands", f"hand {hand} is not the hand just ended, or the next began"
            )
        done = bool(msg["done"])
        if done and s not in self.reading:
            raise TableError("not_reading", "you did not ask the next hand to wait")
        if not done and s in self.reading:
            raise TableError("duplicate", "the next hand already waits for you")
        return "reading", {"seat": s, "hand": hand, "done": done}

    def _cmd_play(
        self, guest: str, seat: int | None, msg: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        self._need_running()
        s = self._need_seat(seat)
        try:
            action = Action.parse(msg["move"])
        except RulesError as exc:
            raise TableError(exc.code, str(exc)) from None
        game = self.game
        hand = game.hand
        if game.phase is not Phase.PLAY or hand is None or hand.is_over:
            raise TableError(
                "wrong_phase", f"no play is due: the game is in phase {game.phase.value}"
            )
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
        self._checked = (self.seq, s, move, after)
        return "played", {"seat": s, "move": move, "by": "person"}

    def may_say(self, guest: str) -> int:
        """The seat of a person who may say a phrase now, or TableError: only seated people,
        and never while a hand is on (the rule book forbids any talk or sign between partners
        during play): before the first deal, between hands, after the game."""
        seat = self.seat_of(guest)
        if seat is None:
            raise TableError("not_seated", "only the people at the table say phrases")
        if self.started and not self.over and self.game.phase in _HAND_ON:
            raise TableError(
                "phrase_during_hand", "no phrases while a hand is on: wait for its end"
            )
        return seat

    # -- what the table does by itself -----------------------------------------------------------

    def due(self, now: float) -> Entry | ThinkRequest | None:
        """The next entry the table makes by itself at ``now``, if any; or, when the next thing
        is a bot's decision, the request to think about (``answer`` turns its answer into the
        entry). Nothing that thinks runs here."""
        made = self._due(now)
        if made is None or isinstance(made, ThinkRequest):
            return made
        entry_type, data = made
        return Entry(self.seq + 1, entry_type, data, now)

    def _due(self, now: float) -> tuple[str, dict[str, Any]] | ThinkRequest | None:
        t = self.timers
        for s in range(4):
            g = t.get(GRACE[s])
            if g is not None and g <= now:
                return "takeover", {"seat": s, "bot": resolve_bot_name(self.settings.bot)}
        if not self.started:
            if all(seat.kind != "empty" for seat in self.seats):
                return "started", {}
            return None
        if self.over:
            return None
        g = t.get("next_game")
        if g is not None and g <= now:
            return "next_game", {"game": self.game_number + 1, "hand": self.table_hand + 1}
        h = t.get("hand")
        if h is not None and h <= now:
            number = self.table_hand
            return "hand_seed", {
                "hand": number,
                "server_seed": self.seed_source(self.table_id, number).hex(),
            }
        fair = self.fair
        if fair is not None and fair.stage == "commit":
            persons = fair.persons()
            if all(fair.commits[s] is not None for s in persons) or t.get("fair", now) <= now:
                return "reveal_open", {"hand": fair.hand}
        if fair is not None and fair.stage == "reveal":
            committed = [s for s in range(4) if fair.commits[s] is not None]
            if all(fair.seeds[s] is not None for s in committed) or t.get("fair", now) <= now:
                return "dealt", {"hand": fair.hand, "attempt": 0}
        d = t.get("deal")
        if d is not None and d <= now and fair is not None:
            return "dealt", {"hand": fair.hand, "attempt": fair.attempts}
        if self.game.phase is Phase.CHOOSE and len(self.choices) == 2:
            seats = self.game.choosing_seats()
            assert seats is not None
            return "choices", {
                "choices": [_cv(self.choices[seats[0]]), _cv(self.choices[seats[1]])]
            }
        acts = sorted((when, int(k[3:])) for k, when in t.items() if k.startswith("act"))
        for when, seat in acts:
            if when <= now:
                return self._act_for(seat)
        return None

    def _seed(self, seat: int, tail: str) -> int:
        # Seeded by the position, so the same position gives the same decision after a rebuild.
        game = self.game
        n = len(game.hand.moves) if game.hand is not None else 0
        text = f"{self.table_id}|{self.table_hand}|{n}|{seat}|{tail}"
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")

    def _bot(self, seat: int) -> tuple[str, int]:
        """The bot that plays for the seat, and its seed for this position."""
        name = self.seats[seat].bot or resolve_bot_name(self.settings.bot)
        return name, self._seed(seat, str(len(self.game.setup.redeals)))

    def _clock_bot(self, seat: int) -> tuple[str, int]:
        """The bot that plays when the seat's clock runs out, and its seed for this position."""
        return resolve_bot_name(self.settings.bot), self._seed(seat, "clock")

    def _think(self, seat: int, kind: str, by: str, bot: tuple[str, int]) -> ThinkRequest:
        return ThinkRequest(
            self.table_id,
            self.seq,
            self.version,
            seat,
            kind,
            by,
            bot[0],
            bot[1],
            seat_view(self.game, seat),
        )

    def _act_for(self, seat: int) -> tuple[str, dict[str, Any]] | ThinkRequest:
        """The server's decision for a seat: a forced pass or a clock that ran out on a person's
        window (made here), or a bot's decision (a request to think about, see ``answer``)."""
        game = self.game
        who = "bot" if self.seats[seat].bot_plays else "clock"
        if game.phase is Phase.REDEAL:
            if who == "bot":
                return self._think(seat, "redeal", who, self._bot(seat))
            return "redeal", {"seat": seat, "ask": False, "by": who}
        if game.phase is Phase.CHOOSE:
            if who == "bot":
                return self._think(seat, "lead", who, self._bot(seat))
            return "chose", {"seat": seat, "choice": None, "by": who}
        assert game.phase is Phase.PLAY and game.hand is not None
        legal = game.hand.legal_actions()
        if legal == [PASS]:
            return "played", {"seat": seat, "move": "pass", "by": "server"}
        # A clock that runs out plays the table's bot's move, never a random one.
        bot = self._bot(seat) if who == "bot" else self._clock_bot(seat)
        return self._think(seat, "action", who, bot)

    def answer(self, request: ThinkRequest, answer: str | bool, now: float) -> Entry:
        """The entry of a thought-out decision: the same entry the table always logged for it.

        Call it only while ``due`` still returns an equal request (same ``key``); the answer is
        checked against the position all the same, so a wrong one can never be logged.
        """
        seat = request.seat
        data: dict[str, Any]
        match request.kind:
            case "redeal":
                if not isinstance(answer, bool):
                    raise ValueError(f"a redeal answer is a bool, not {answer!r}")
                self.game.answer_redeal(seat, answer)
                entry_type, data = "redeal", {"seat": seat, "ask": answer, "by": request.by}
            case "lead":
                choice = LeadChoice(answer).value
                entry_type, data = "chose", {"seat": seat, "choice": choice, "by": request.by}
            case "action":
                action = Action.parse(str(answer))
                self.game.play(action, seat)  # raises on an illegal move: nothing is applied
                entry_type = "played"
                data = {"seat": seat, "move": str(action), "by": request.by}
            case _:
                raise ValueError(f"no decision of kind {request.kind!r}")
        return Entry(self.seq + 1, entry_type, data, now)

    # -- applying -------------------------------------------------------------------------------

    def apply(self, entry: Entry) -> None:
        if entry.seq != self.seq + 1:
            raise ValueError(f"entry {entry.seq} does not follow {self.seq}")
        getattr(self, f"_on_{entry.type}")(entry.data, entry.ts)
        self.seq = entry.seq
        self.last_ts = entry.ts
        guest, cmd = entry.data.get("guest"), entry.data.get("cmd")
        if guest is not None and cmd is not None:
            applied = self.replies.get(guest)
            if applied is None:
                applied = self.replies[guest] = {}
            applied[cmd] = entry.seq

    def reply(self, guest: str, cmd: str) -> dict[str, Any] | None:
        """The ack of the command ``cmd`` of ``guest`` if it was applied (a resend gets it)."""
        applied = self.replies.get(guest)
        seq = None if applied is None else applied.get(cmd)
        return None if seq is None else {"type": "ack", "id": cmd, "seq": seq}

    def _on_created(self, d: dict[str, Any], ts: float) -> None:
        self.settings = TableSettings.from_json(d["settings"])
        self.host = d.get("host")
        self.game = GameState.new(self.settings.rules)
        self.match = MatchState(self.settings.rules)
        self.hand_base = 0

    def _on_sat(self, d: dict[str, Any], ts: float) -> None:
        self.seats[d["seat"]] = Seat("person", d["guest"], d.get("nickname"))

    def _on_bot_sat(self, d: dict[str, Any], ts: float) -> None:
        self.seats[d["seat"]] = Seat("bot", bot=d["bot"], nickname=f"bot ({d['bot']})")

    def _on_stood(self, d: dict[str, Any], ts: float) -> None:
        self.seats[d["seat"]] = Seat()

    def _on_started(self, d: dict[str, Any], ts: float) -> None:
        self.started = True
        self.timers["hand"] = ts

    def _on_hand_seed(self, d: dict[str, Any], ts: float) -> None:
        self.timers.pop("hand", None)
        self.reading.clear()
        kinds = tuple(SeatKind.BOT if seat.bot_plays else SeatKind.PERSON for seat in self.seats)
        self.fair = FairHand(d["hand"], bytes.fromhex(d["server_seed"]), kinds)  # type: ignore[arg-type]
        if self.fair.persons():
            self.timers["fair"] = ts + self.settings.fair_window
        else:
            self.fair.stage = "reveal"

    def _on_committed(self, d: dict[str, Any], ts: float) -> None:
        assert self.fair is not None
        self.fair.commits[d["seat"]] = d["commit"]

    def _on_reveal_open(self, d: dict[str, Any], ts: float) -> None:
        assert self.fair is not None
        self.fair.stage = "reveal"
        self.timers["fair"] = ts + self.settings.fair_window

    def _on_revealed(self, d: dict[str, Any], ts: float) -> None:
        assert self.fair is not None
        self.fair.seeds[d["seat"]] = bytes.fromhex(d["seed"])

    def _on_dealt(self, d: dict[str, Any], ts: float) -> None:
        fair = self.fair
        assert fair is not None
        self.timers.pop("fair", None)
        self.timers.pop("deal", None)
        if fair.fairness is None:
            fair.fairness = hand_fairness(
                self.table_id, fair.hand, fair.server_seed, fair.kinds, fair.commits, fair.seeds
            )
        fair.stage = "dealt"
        attempt = d["attempt"]
        fair.attempts = attempt + 1
        key = fair.fairness.key
        rules = self.game.rules
        draw = first_hand_draw(key, rules) if self.game.needs_first_draw() else None
        coin = fair_coin(key) if self.game.needs_coin() else None
        self.game = self.game.deal(deal_for(key, rules, attempt), draw=draw, coin=coin)
        self.choices = {}
        self._changed(ts)

    def _on_redeal(self, d: dict[str, Any], ts: float) -> None:
        self.game = self.game.answer_redeal(d["seat"], d["ask"])
        self._took_decision(d["seat"])
        if self.game.phase is Phase.DEAL:
            self.timers["deal"] = ts
        self._changed(ts)

    def _on_chose(self, d: dict[str, Any], ts: float) -> None:
        c = d.get("choice")
        self.choices[d["seat"]] = None if c is None else LeadChoice(c)
        self.timers.pop(ACT[d["seat"]], None)
        self._took_decision(d["seat"])

    def _on_choices(self, d: dict[str, Any], ts: float) -> None:
        a, b = (None if c is None else LeadChoice(c) for c in d["choices"])
        self.game = self.game.choose_leader(a, b)
        self.choices = {}
        self._changed(ts)

    def _on_played(self, d: dict[str, Any], ts: float) -> None:
        before = self.game.hand
        assert before is not None
        checked = self._checked
        if checked is not None and checked[:3] == (self.seq, d["seat"], d["move"]):
            self.game = checked[3]
        else:
            self.game = self.game.play(Action.parse(d["move"]), d["seat"])
        self._checked = None
        self._took_decision(d["seat"])
        hand_ended = self.game.phase is not Phase.PLAY
        if hand_ended and self.fair is not None:
            assert self.fair.fairness is not None
            self.published[self.fair.hand] = self.fair.fairness.with_attempts(
                self.fair.attempts
            ).to_json()
        if self.game.is_over:
            self.match = self.match.add_game(self.game)
            if self.over:
                self.record = self.table_record()
        if hand_ended:
            self.hand_ended_at = ts
        self._changed(ts, between=hand_ended)

    def _on_reading(self, d: dict[str, Any], ts: float) -> None:
        if d["done"]:
            self.reading.discard(d["seat"])
        else:
            self.reading.add(d["seat"])
        self._pace_next_hand(ts)

    def _on_next_game(self, d: dict[str, Any], ts: float) -> None:
        """The match goes on: a new game at the same seats, scores from 0, hands counting on."""
        assert self.game.is_over and not self.over
        self.hand_base += self.game.hand_number
        self.game = GameState.new(self.settings.rules)
        self.choices = {}
        self.timers.pop("next_game", None)
        self._changed(ts)

    def _on_away(self, d: dict[str, Any], ts: float) -> None:
        seat = self.seats[d["seat"]]
        seat.away_since = ts
        seat.returning = False
        if d["seat"] in self.reading:  # nobody waits for a reader who has gone
            self.reading.discard(d["seat"])
            self._pace_next_hand(ts)
        if not seat.taken_over and not self.over:
            self.timers[GRACE[d["seat"]]] = ts + self.settings.grace

    def _on_back(self, d: dict[str, Any], ts: float) -> None:
        s = d["seat"]
        seat = self.seats[s]
        seat.away_since = None
        self.timers.pop(GRACE[s], None)
        if seat.taken_over:
            if self._deciding(s):
                seat.returning = True  # the bot finishes this decision; the next is his
            else:
                seat.taken_over = False
                self._changed(ts, bump=False)

    def _on_takeover(self, d: dict[str, Any], ts: float) -> None:
        s = d["seat"]
        seat = self.seats[s]
        self.timers.pop(GRACE[s], None)
        seat.taken_over = True
        seat.bot = d["bot"]
        self._changed(ts, bump=False)

    def _on_resumed(self, d: dict[str, Any], ts: float) -> None:
        shift = d["shift"]
        for k in list(self.timers):
            self.timers[k] += shift
        self.hand_ended_at += shift
        for s, seat in enumerate(self.seats):
            if seat.kind == "person" and seat.away_since is None and self.started and not self.over:
                seat.away_since = ts
                if not seat.taken_over:
                    self.timers[GRACE[s]] = ts + self.settings.grace

    # -- helpers of apply -----------------------------------------------------------------------

    def _deciding(self, seat: int) -> bool:
        return ACT[seat] in self.timers

    def _took_decision(self, seat: int) -> None:
        st = self.seats[seat]
        if st.returning:
            st.returning = False
            st.taken_over = False

    def _changed(self, ts: float, *, between: bool = False, bump: bool = True) -> None:
        """Re-arm the decision clocks for the phase the game is now in."""
        if bump:
            self.version = self.seq + 1
        old = {k: self.timers.pop(k) for k in [k for k in self.timers if k.startswith("act")]}
        game = self.game
        st = self.settings
        if game.is_over:
            if self.over:
                self.timers = {}
                return
            # The match goes on: the finished game stays on show, then the next one starts.
            # Grace periods keep running across the break.
            self.timers = {k: v for k, v in self.timers.items() if k.startswith("grace")}
            self.timers["next_game"] = ts + st.between_hands
            return
        if game.phase is Phase.DEAL:
            # A pause already running between hands keeps its end (a player coming back in it
            # does not cut it short).
            if "deal" not in self.timers and (between or "hand" not in self.timers):
                self.timers["hand"] = ts + (st.between_hands if between else 0.0)
            return
        if game.phase is Phase.REDEAL:
            for s in game.redeal_eligible():
                self._arm(s, ts, st.redeal_window, old)
        elif game.phase is Phase.CHOOSE:
            seats = game.choosing_seats()
            assert seats is not None
            for s in seats:
                if s not in self.choices:
                    self._arm(s, ts, st.choose_window, old)
        elif game.phase is Phase.PLAY and game.hand is not None:
            s = game.hand.turn
            if game.hand.legal_actions() == [PASS]:
                self.timers[ACT[s]] = ts + st.pass_delay
            else:
                self._arm(s, ts, st.move_clock)

    def _pace_next_hand(self, ts: float) -> None:
        """When the next hand starts: ``between_hands`` after the last one ended, or up to
        ``reading_wait`` later while somebody still reads it; never in the past (once the last
        reader is done after the short pause, the hand starts at once)."""
        if "hand" not in self.timers:
            return
        st = self.settings
        start = self.hand_ended_at + st.between_hands
        if self.reading:
            start += st.reading_wait
        self.timers["hand"] = max(start, ts)

    def _arm(
        self, seat: int, ts: float, window: float, old: dict[str, float] | None = None
    ) -> None:
        kept = (old or {}).get(ACT[seat])
        if kept is not None and not self.seats[seat].bot_plays:
            self.timers[ACT[seat]] = kept  # a window already open keeps its end
            return
        delay = self.settings.bot_delay if self.seats[seat].bot_plays else window
        self.timers[ACT[seat]] = ts + delay

    # -- what leaves the table ------------------------------------------------------------------


_HAND_ON = (Phase.REDEAL, Phase.CHOOSE, Phase.PLAY)


def _cv(c: LeadChoice | None) -> str | None:
    return None if c is None else c.value


def rebuild(table_id: str, entries: list[Entry], seed_source: SeedSource) -> TableService:
    svc = TableService(table_id, seed_source)
    for e in entries:
        svc.apply(e)
    return svc


__all__ = [
    "Entry",
    "FairHand",
    "Seat",
    "SeedSource",
    "TableError",
    "TableService",
    "TableSettings",
    "fixed_seeds",
    "rebuild",
    "replace",
    "resolve_bot_name",
    "secure_seeds",
]
