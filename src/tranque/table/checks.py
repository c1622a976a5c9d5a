"""A person's commands at a table: each checked against the state, and turned into the entry
that applies it (``TableService.command``), or refused with a ``TableError``.

A mixin of ``TableService``, apart from the appliers (table/apply.py) because checking a command
changes nothing: a refused command leaves the table as it was, and only the entry it returns is
ever applied. ``may_say`` is here too: the other question a person's message asks of the table.
(Not ``commands.py``: elsewhere in the package that name holds a command line's subcommands.)
"""

from __future__ import annotations

from typing import Any

from tranque.bots.base import resolve_bot
from tranque.fair.seeds import SeatKind
from tranque.rules.errors import RulesError
from tranque.rules.game import LeadChoice, Phase
from tranque.rules.hand import Action
from tranque.table.model import HEX64, MAX_SEED_HEX, TableError, resolve_bot_name
from tranque.table.ports import Entry
from tranque.table.state import TableState

_HAND_ON = (Phase.REDEAL, Phase.CHOOSE, Phase.PLAY)


class TableChecks(TableState):
    """The checking of people's commands (see ``TableService``)."""

    def command(self, guest: str, msg: dict[str, Any], now: float) -> Entry | None:
        """The entry that applies a person's command, or TableError; None for a command taken
        that logs nothing (a "no" to a deal on show: silence, see ``_cmd_redeal``). Changes
        nothing that is logged."""
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
        made = handler(guest, seat, msg)
        if made is None:
            return None
        entry_type, data = made
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
    ) -> tuple[str, dict[str, Any]] | None:
        """Asking is logged and shown to all (the table is told who, and deals again). A "no"
        to a deal on show is logged nowhere and shown to nobody: it must look exactly like the
        silence of a seat that could not ask, so it only withdraws this seat's offer (in
        memory: a rebuilt table offers it again) and the window runs to its end."""
        self._need_running()
        s = self._need_seat(seat)
        ask = bool(msg["ask"])
        try:
            self.game.answer_redeal(s, ask)
        except RulesError as exc:
            raise TableError(exc.code, str(exc)) from None
        if s in self.redeal_silent:
            raise TableError("duplicate", "you already said no: this deal stands")
        if not ask and self.game.redeal_held:
            self.redeal_silent.add(s)
            return None
        return "redeal", {"seat": s, "ask": ask, "by": "person"}

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
