"""``TableState``: what one table holds, how it starts, and the questions every part asks of it.

The base of ``TableService`` and of each of its mixins (commands in table/checks.py, what the
table does by itself in table/due.py, the entry appliers in table/apply.py, what leaves the table
in table/views.py): the attributes are declared and typed here once, so that each mixin reads
and writes them under mypy's eye, and the small reading helpers they share (``over``,
``table_hand``, ``seat_of``, the records) live with the state they read.
"""

from __future__ import annotations

from typing import Any

from tranque.rules.game import GameState, LeadChoice, MatchState
from tranque.rules.record import game_record, match_record
from tranque.table.model import FairHand, Seat, SeedSource, TableSettings


class TableState:
    """One table's state (see ``TableService`` for how it changes)."""

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
        # The seats that said no to the deal on show (a person's "no", a bot's): not logged, for
        # a "no" must look like silence, only kept so that the seat is not asked again.
        self.redeal_silent: set[int] = set()
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
        # Each seat's tiles as sent, and the mask they were written from: a seat's tiles go out
        # with every event but change about once a hand (a shared cache of masks was too small
        # for thousands of tables, and missed). Two lists, not one of pairs: a pair would be a
        # new object for the collector to scan at each change, ints and strs are not tracked.
        self._tile_masks: list[int] = [-1] * 4
        self._tile_texts: list[str] = [""] * 4

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
