"""Rules: every option of the rule book as a field of one frozen value, and the four presets.

The presets are the variants table of docs/rules.md (section 9), which also says which option
settles each point where the traditional rule book is silent (section 11). A table
may combine options freely: ``replace(HAVANA, capicua_multiplier=2)`` is a valid ``Rules``.

>>> HAVANA.target, MIAMI.games_to_win_match, ORIENTE.tiles_each
(100, 2, 7)
>>> Rules.from_json("havana") is HAVANA
True

A preset shows as its name; any other ``Rules`` lists only what differs from Havana's:

>>> HAVANA, MIAMI
(HAVANA, MIAMI)
>>> dataclasses.replace(HAVANA, capicua_multiplier=2, tied_block=TiedBlock.LEADING_PAIR_WINS)
Rules(capicua_multiplier=2, tied_block=TiedBlock.LEADING_PAIR_WINS)
>>> Rules(target=150, games_to_win_match=2, first_leader=FirstLeader.COIN, first_pass_points=2)
MIAMI
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any

from tranque.rules.errors import UnknownOptionError
from tranque.rules.tiles import DOUBLE_NINE, DOUBLE_SIX, TileSet


class FirstLeader(str, Enum):
    """Who leads the first hand of a game."""

    DRAW = "draw"  # one tile drawn per pair, higher sum leads, equal sums draw again (Havana)
    COIN = "coin"  # pares o nones: a verifiable coin between the pairs (Miami)
    HIGHEST_DOUBLE = "highest_double"  # the holder of the highest double dealt leads, any tile


class NextLeader(str, Enum):
    """Who leads every later hand of a game."""

    WINNERS_CHOOSE = "winners_choose"  # the winning pair, Salgo / Sal tú
    RIGHT_OF_LAST_LEADER = "right_of_last_leader"  # Oriente: the seat after the last leader
    WINNER = "winner"  # Barrio: the player who won the hand himself, no choice


class TiedBlock(str, Enum):
    """What a block whose lowest total is shared across the pairs gives."""

    NOBODY_SCORES = "nobody_scores"  # 0 points, the pair that did not lead leads next
    LEADING_PAIR_WINS = "leading_pair_wins"  # Oriente, Barrio


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule option. Defaults are Havana's."""

    max_pip: int = 9
    tiles_each: int = 10
    target: int = 100
    games_to_win_match: int = 1  # Miami: best of three, so 2
    first_leader: FirstLeader = FirstLeader.DRAW
    next_leader: NextLeader = NextLeader.WINNERS_CHOOSE
    capicua_multiplier: int = 1
    tied_block: TiedBlock = TiedBlock.NOBODY_SCORES
    first_pass_points: int = 0
    unanswered_double_lead_points: int = 0
    redeal_doubles: int = 5  # a player with this many doubles may ask for a redeal; 0 disables

    def __post_init__(self) -> None:
        if self.max_pip not in (6, 9):
            raise UnknownOptionError(f"max_pip must be 6 or 9, not {self.max_pip!r}")
        n_tiles = (self.max_pip + 1) * (self.max_pip + 2) // 2
        if not (self.tiles_each >= 1 and 4 * self.tiles_each <= n_tiles):
            raise UnknownOptionError(
                f"tiles_each={self.tiles_each!r} does not fit four hands in {n_tiles} tiles"
            )
        for name in ("target", "games_to_win_match", "capicua_multiplier"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise UnknownOptionError(f"{name} must be a positive integer, not {value!r}")
        for name in ("first_pass_points", "unanswered_double_lead_points", "redeal_doubles"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise UnknownOptionError(f"{name} must be a non-negative integer, not {value!r}")

    def __repr__(self) -> str:
        name = self.name
        if name != "custom":
            return name.upper()
        changed = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value != field.default:
                shown = f"{type(value).__name__}.{value.name}" if isinstance(value, Enum) else value
                changed.append(f"{field.name}={shown}")
        return f"Rules({', '.join(changed)})"

    @property
    def tile_set(self) -> TileSet:
        return DOUBLE_NINE if self.max_pip == 9 else DOUBLE_SIX

    @property
    def sleepers(self) -> int:
        return len(self.tile_set.tiles) - 4 * self.tiles_each

    @property
    def name(self) -> str:
        """The preset's name, or ``"custom"``."""
        for name, preset in PRESETS.items():
            if preset == self:
                return name
        return "custom"

    def to_json(self) -> str | dict[str, Any]:
        """A preset's name, or an object of every option (record notation)."""
        name = self.name
        if name != "custom":
            return name
        out: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            out[field.name] = value.value if isinstance(value, Enum) else value
        return out

    @staticmethod
    def from_json(data: object) -> Rules:
        """Parse a preset name or an object of options (over Havana's defaults).

        An object may name a ``"preset"`` to start from. Unknown names raise UnknownOptionError.
        """
        if isinstance(data, str):
            try:
                return PRESETS[data.lower()]
            except KeyError:
                raise UnknownOptionError(
                    f"unknown rules preset {data!r}; known: {', '.join(PRESETS)}"
                ) from None
        if not isinstance(data, dict):
            raise UnknownOptionError(f"rules must be a preset name or an object, not {data!r}")
        options = dict(data)
        preset = options.pop("preset", "havana")
        if not isinstance(preset, str):
            raise UnknownOptionError(f"'preset' must be a preset name, not {preset!r}"[:120])
        base = Rules.from_json(preset)
        fields = {f.name: f for f in dataclasses.fields(Rules)}
        changes: dict[str, Any] = {}
        for key, value in options.items():
            if key not in fields:
                raise UnknownOptionError(
                    f"unknown rules option {key!r}; known: {', '.join(fields)}"
                )
            enum_type = _ENUM_FIELDS.get(key)
            if enum_type is not None:
                try:
                    value = enum_type(value)
                except ValueError:
                    allowed = ", ".join(e.value for e in enum_type)
                    raise UnknownOptionError(
                        f"rules option {key}={value!r} is not one of: {allowed}"
                    ) from None
            elif not isinstance(value, int) or isinstance(value, bool):
                raise UnknownOptionError(f"rules option {key} must be an integer, not {value!r}")
            changes[key] = value
        return dataclasses.replace(base, **changes)


_ENUM_FIELDS: dict[str, type[Enum]] = {
    "first_leader": FirstLeader,
    "next_leader": NextLeader,
    "tied_block": TiedBlock,
}

HAVANA = Rules()
MIAMI = Rules(target=150, games_to_win_match=2, first_leader=FirstLeader.COIN, first_pass_points=2)
ORIENTE = Rules(
    max_pip=6,
    tiles_each=7,
    target=20,
    first_leader=FirstLeader.HIGHEST_DOUBLE,
    next_leader=NextLeader.RIGHT_OF_LAST_LEADER,
    tied_block=TiedBlock.LEADING_PAIR_WINS,
)
BARRIO = Rules(
    first_leader=FirstLeader.HIGHEST_DOUBLE,
    next_leader=NextLeader.WINNER,
    capicua_multiplier=2,
    tied_block=TiedBlock.LEADING_PAIR_WINS,
    unanswered_double_lead_points=20,
)

PRESETS: dict[str, Rules] = {
    "havana": HAVANA,
    "miami": MIAMI,
    "oriente": ORIENTE,
    "barrio": BARRIO,
}
