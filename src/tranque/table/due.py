"""What a table does by itself: a bot's decision, a forced pass, a clock that ran out, the next
hand's server seed, the end of a fairness window (``TableService.due`` and ``answer``).

A mixin of ``TableService``, apart from the commands and the appliers because it is the one part
driven by time and by bots: ``due`` says what comes next at ``now`` (or the request a bot must
think about, never thinking here), and ``answer`` turns a thought-out decision into the same
entry the table always logged for it. Bot seeds come from the position, so a rebuild decides the
same.
"""

from __future__ import annotations

import hashlib
from typing import Any

from tranque.rules.game import LeadChoice, Phase
from tranque.rules.hand import PASS, Action
from tranque.rules.views import seat_view
from tranque.table.model import ACT, GRACE, REDEAL, resolve_bot_name
from tranque.table.ports import Entry, ThinkRequest
from tranque.table.state import TableState


def _cv(c: LeadChoice | None) -> str | None:
    return None if c is None else c.value


class TableDue(TableState):
    """The table's own entries and the bots' requests (see ``TableService``)."""

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
                return "dealt", self._dealt(fair.hand, 0)
        d = t.get("deal")
        if d is not None and d <= now and fair is not None:
            return "dealt", self._dealt(fair.hand, fair.attempts)
        # Before any seat's decision: the window closes at its time whether or not a bot that
        # may ask has answered (a late answer is silence), so that it lasts the same every hand.
        w = t.get(REDEAL)
        if w is not None and w <= now and fair is not None:
            return "redeal_closed", {"hand": fair.hand}
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

    def _dealt(self, hand: int, attempt: int) -> dict[str, Any]:
        """A deal's entry, with the seconds it stays on show (``window``) whenever anybody
        could ask for a redeal: every hand the same, at a table with a person
        ``redeal_window``, at a table of bots alone ``bot_delay`` (rules.md, section 11)."""
        data: dict[str, Any] = {"hand": hand, "attempt": attempt}
        if self.settings.rules.redeal_doubles > 0:
            people = any(seat.kind == "person" for seat in self.seats)
            data["window"] = self.settings.redeal_window if people else self.settings.bot_delay
        return data

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

    def answer(self, request: ThinkRequest, answer: str | bool, now: float) -> Entry | None:
        """The entry of a thought-out decision: the same entry the table always logged for it;
        None for a bot's "no" to a deal on show, which is silence (nothing is logged, and the
        bot is not asked again for this deal).

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
                if not answer and self.game.redeal_held:
                    self.redeal_silent.add(seat)
                    self.timers.pop(ACT[seat], None)
                    return None
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
