"""The plain data of one table: its settings, seats and fairness round, the refusal type, and
where server seeds come from. No behaviour beyond (de)serialising; ``TableService`` holds them.
"""

from __future__ import annotations

import hmac
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tranque.bots.base import resolve_bot
from tranque.fair.seeds import HandFairness, SeatKind
from tranque.refusals import TableError as TableError  # the table's name for it (refusals.py)
from tranque.rules.variants import Rules

log = logging.getLogger("tranque.table")

HEX64 = re.compile(r"^[0-9a-f]{64}$")
# The timers' keys, made once: a table looks them up several times for every event.
ACT = ("act0", "act1", "act2", "act3")  # a seat's decision is due (a bot, a pass, a clock)
GRACE = ("grace0", "grace1", "grace2", "grace3")  # a seat away gets a bot when it runs out
REDEAL = "redeal"  # the deal on show ends (``redeal_closed``) unless a redeal was asked
MAX_SEED_HEX = 128  # a client seed is 32 bytes; a longer one is refused before it is logged
ABANDON = "abandon"  # a table whose people have all been away this long ends (``abandoned``)
FILL_BOT = "normal"  # the level of the bots that take a free seat nobody came to (the queue's)


@dataclass(frozen=True, slots=True)
class TableSettings:
    """A table's settings, fixed when it is created and logged in its first entry."""

    rules: Rules = field(default_factory=Rules)
    practice: bool = True
    move_clock: float = 25.0  # seconds for a play
    choose_window: float = 15.0  # Salgo / Sal tú
    # Every deal stays on show this long before the lead, at a table with a person (a table of
    # bots alone shows it for ``bot_delay``): a seat with five doubles or more may ask for a
    # redeal meanwhile. The same for every hand, so that nobody learns who may ask (rules.md).
    redeal_window: float = 3.0
    fair_window: float = 3.0  # commit, then reveal, of the client seeds
    pass_delay: float = 1.0  # forced passes, the same for everyone
    bot_delay: float = 0.8  # a bot's "thinking" pause, so that people can follow
    between_hands: float = 4.0  # the finished hand stays face up this long
    # ... and up to this much longer while a person says he is still reading it (``reading``).
    reading_wait: float = 20.0
    grace: float = 60.0  # a player away this long gets a bot in his seat
    # A seated person with no connection at the table this long after the start never came: he
    # is away, and a bot plays for him at once (the table owner marks him: ``TableOwner``).
    arrival_window: float = 30.0
    # A started table whose people have all been away this long ends: no result, unrated, every
    # chip back (``abandoned``). Bots do not play on for nobody, and a table nobody came to ends.
    abandon_after: float = 300.0
    bot: str = "heuristic"
    public: bool = False  # listed in the lobby (else reached by its link only)
    stake: int = 0  # chips per person per game (ledger.stakes); 0: no chips (a free table)
    # The peña whose members alone may sit here (club.penas); None: anyone may. Its owner asks
    # the club at each sit (``TableOwner.pena_gate``), so a member who joined since sits too.
    pena: str | None = None
    # The tournament whose round seated this table (docs/tournaments.md), else None. Such a
    # table is never aborted by a leave: a person who never came gets a bot at once, and the
    # tournament, not the table, decides whether his pair lost by forfeit.
    tournament: str | None = None
    # A game's time cap, in seconds from the table's start (a tournament's ``minutes``), else
    # None: at the end of each hand past it, the pair ahead wins (rules/timecap.py; level
    # scores play one more hand). The start is the logged ``started`` entry's time, so a table
    # rebuilt from its log keeps the same deadline.
    time_cap: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_json(),
            "practice": self.practice,
            "move_clock": self.move_clock,
            "choose_window": self.choose_window,
            "redeal_window": self.redeal_window,
            "fair_window": self.fair_window,
            "pass_delay": self.pass_delay,
            "bot_delay": self.bot_delay,
            "between_hands": self.between_hands,
            "reading_wait": self.reading_wait,
            "grace": self.grace,
            "arrival_window": self.arrival_window,
            "abandon_after": self.abandon_after,
            "bot": self.bot,
            "public": self.public,
            "stake": self.stake,
            **({"pena": self.pena} if self.pena is not None else {}),
            # Only a tournament's table says so: every other table's settings read as before.
            **({"tournament": self.tournament} if self.tournament is not None else {}),
            **({"time_cap": self.time_cap} if self.time_cap is not None else {}),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> TableSettings:
        d = dict(data)
        d["rules"] = Rules.from_json(d.get("rules", "havana"))
        return TableSettings(**d)


@dataclass(slots=True)
class Seat:
    kind: str = "empty"  # "empty" | "person" | "bot"
    guest: str | None = None
    nickname: str | None = None
    bot: str | None = None  # the bot's name for a bot seat, or the bot that took over
    away_since: float | None = None
    taken_over: bool = False  # a bot plays for the person, who is away
    returning: bool = False  # back, and gets the seat from his next decision

    @property
    def bot_plays(self) -> bool:
        return self.kind == "bot" or self.taken_over

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "nickname": self.nickname,
            "bot": self.bot if self.bot_plays else None,
            "away": self.away_since is not None,
            "taken_over": self.taken_over,
        }


@dataclass(slots=True)
class FairHand:
    """The fairness of the hand being dealt. ``server_seed`` never leaves before the hand ends."""

    hand: int
    server_seed: bytes
    kinds: tuple[SeatKind, SeatKind, SeatKind, SeatKind]
    stage: str = "commit"  # "commit" -> "reveal" -> "dealt"
    commits: list[str | None] = field(default_factory=lambda: [None] * 4)
    seeds: list[bytes | None] = field(default_factory=lambda: [None] * 4)
    attempts: int = 0
    fairness: HandFairness | None = None

    def persons(self) -> list[int]:
        return [s for s in range(4) if self.kinds[s] is SeatKind.PERSON]


SeedSource = Callable[[str, int], bytes]

_warned_bots: set[str] = set()


def resolve_bot_name(name: str) -> str:
    """The bot to use for ``name`` (a level or a bot's name); the random bot, with a warning,
    while ``name`` is unknown."""
    try:
        return resolve_bot(name)
    except ValueError:
        if name not in _warned_bots:
            _warned_bots.add(name)
            log.warning("bot %r is not registered yet: falling back to the random bot", name)
        return "random"


def secure_seeds(table_id: str, hand: int) -> bytes:
    from tranque.fair.seeds import draw_seed

    return draw_seed()


def fixed_seeds(master: bytes) -> SeedSource:
    """Server seeds derived from a master secret: reproducible runs, for tests only (insecure)."""

    def source(table_id: str, hand: int) -> bytes:
        return hmac.digest(master, f"{table_id}|{hand}".encode(), "sha256")

    return source
