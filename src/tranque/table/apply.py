"""The entry appliers: ``TableService.apply``, the only way a table's state changes.

A mixin of ``TableService``, apart from the rest because rebuilding a table is applying its
logged entries in order: everything here depends on the entry and the state only (deadlines
come from the entry's own time stamp), and it is here that the decision clocks are re-armed for
each new phase (``_changed``). ``reply`` reads back what ``apply`` kept of each guest's commands.
"""

from __future__ import annotations

from typing import Any

from tranque.fair.recipe import coin as fair_coin
from tranque.fair.recipe import deal_for, first_hand_draw
from tranque.fair.seeds import SeatKind, hand_fairness
from tranque.rules.game import GameState, LeadChoice, MatchState, Phase
from tranque.rules.hand import PASS, Action
from tranque.table.model import ACT, GRACE, REDEAL, FairHand, Seat, TableSettings
from tranque.table.ports import Entry
from tranque.table.state import TableState


class TableApply(TableState):
    """The appliers of log entries (see ``TableService``)."""

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
        # ``window``: the deal stays on show that many seconds, whoever may ask for a redeal
        # (entries logged before there was such a window have none: the game waits then only
        # for the seats that may ask, as it did).
        window = d.get("window")
        self.game = self.game.deal(
            deal_for(key, rules, attempt), draw=draw, coin=coin, hold=window is not None
        )
        self.choices = {}
        self.redeal_silent = set()
        if window is not None:
            self.timers[REDEAL] = ts + float(window)
        self._changed(ts)

    def _on_redeal(self, d: dict[str, Any], ts: float) -> None:
        self.game = self.game.answer_redeal(d["seat"], d["ask"])
        self._took_decision(d["seat"])
        if self.game.phase is Phase.DEAL:
            self.timers.pop(REDEAL, None)
            self.timers["deal"] = ts
        self._changed(ts)

    def _on_redeal_closed(self, d: dict[str, Any], ts: float) -> None:
        """The deal on show goes on to the lead: nobody asked for a redeal in its window."""
        self.timers.pop(REDEAL, None)
        self.game = self.game.close_redeal()
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
                if not game.redeal_held:  # a deal of an old log: each seat had its own window
                    self._arm(s, ts, st.redeal_window, old)
                elif self.seats[s].bot_plays and s not in self.redeal_silent:
                    # A bot is asked at once; a person has the whole window (its end, the
                    # REDEAL timer, is the same for everybody and closes it for everybody).
                    self.timers[ACT[s]] = ts
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
