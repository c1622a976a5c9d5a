"""``TableState``: what one table holds, how it starts, and the questions every part asks of it.

The state that the table's functions take as their first argument (commands in
table/checks.py, what the table does by itself in table/due.py, the entry appliers in
table/apply.py, what leaves the table in table/views.py), and the base of ``TableService``: the
attributes are declared and typed here once, so that each function reads and writes them under
mypy's eye, and the small reading helpers they share (``over``, ``table_hand``, ``seat_of``, the
records) live with the state they read.
"""

from __future__ import annotations

from typing import Any

from tranque.rules.game import GameState, LeadChoice, MatchState
from tranque.rules.record import game_record, match_record
from tranque.table.entries import EntryBody
from tranque.table.model import FairHand, Seat, SeedSource, TableSettings
from tranque.table.ports import Entry


class TableState:
    """One table's state (see ``TableService`` for how it changes)."""

    def __init__(self, table_id: str, seed_source: SeedSource) -> None:
        self.table_id = table_id
        self.seed_source = seed_source
        self.settings = TableSettings()
        self.host: str | None = None
        self.seats = [Seat() for _ in range(4)]
        self.started = False
        self.started_at = 0.0  # when the ``started`` entry was logged (the arrival window's start)
        # The table ended because its people had all gone (``abandoned``): over, with no result.
        self.abandoned = False
        # The seat whose leave aborted a rated table before its first hand ended (``aborted``,
        # table.abort): the table is then ``abandoned`` too (over, no result, chips back).
        self.aborted: int | None = None
        # The seats whose people never came (their ``away`` was ``absent``): read from the log,
        # so a rebuilt table knows them too. A tournament rules its no-shows by them.
        self.absent: set[int] = set()
        # Each seat's decisions, and those of them a bot took for an away person (table.abort's
        # ``count``): who was away for more than a quarter of his own loses alone (docs/club.md).
        self.decisions = [0, 0, 0, 0]
        self.bot_decisions = [0, 0, 0, 0]
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
        # The pair that won by the time cap (rules/timecap.py), once the game ended so.
        self.time_winner: int | None = None
        # A rematch's table: the table it follows and who declined there (seat, nickname).
        self.rematch_of: dict[str, Any] | None = None
        self._checked: tuple[int, int, str, GameState] | None = None  # see checks._play
        # The last entry applied and its typed body: its public form (views.event) is made
        # right after it is applied, and reads the body decoded once.
        self._body_entry: Entry | None = None
        self._body: EntryBody | None = None
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
        """The table is done: its match is decided (with one game to win, the game is over), or
        it was abandoned (its people all gone: it ends with no result)."""
        match = self.match
        if match is not self._over_of:  # asked several times per event; the match changes rarely
            self._over_of, self._over = match, match.winner is not None or self.abandoned
        return self._over

    @property
    def deadline(self) -> float | None:
        """When a capped game's time is up (the logged start plus ``time_cap``), else None."""
        cap = self.settings.time_cap
        if cap is None or not self.started or self.is_match:  # a cap is for one-game rules
            return None
        return self.started_at + cap

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
        record = game_record(self.game, fairness=fairness)
        if self.time_winner is not None:
            # An optional key every reader ignores (docs/records.md): the hands replay to a game
            # short of the target, and this says the time cap ended it, and who won.
            record["time_cap"] = {"seconds": self.settings.time_cap,
                                  "winner": "AB"[self.time_winner]}  # fmt: skip
        return record

    def table_record(self) -> dict[str, Any]:
        """The table's record: a game record, or under match rules (Miami) a match record."""
        if not self.is_match:
            return self.game_record()
        ended = bool(self.match.games) and self.match.games[-1] is self.game
        current = None if ended else self.game
        return match_record(self.match, current, fairness=self.published)
