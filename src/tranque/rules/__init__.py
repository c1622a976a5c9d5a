"""The rules of Cuban dominoes, pure: standard library only, immutable values, typed errors.

>>> from tranque.rules import HAVANA, Deal, HandState, Action
>>> HAVANA.target
100
"""

from tranque.rules.errors import IllegalMoveError, MalformedError, RulesError
from tranque.rules.game import GameState, LeadChoice, MatchState, Phase
from tranque.rules.hand import PASS, Action, Deal, EndKind, HandState, Outcome
from tranque.rules.tiles import DOUBLE_NINE, DOUBLE_SIX, Tile
from tranque.rules.variants import BARRIO, HAVANA, MIAMI, ORIENTE, PRESETS, Rules
from tranque.rules.views import PublicView, SeatView, public_view, seat_view

__all__ = [
    "BARRIO",
    "DOUBLE_NINE",
    "DOUBLE_SIX",
    "HAVANA",
    "MIAMI",
    "ORIENTE",
    "PASS",
    "PRESETS",
    "Action",
    "Deal",
    "EndKind",
    "GameState",
    "HandState",
    "IllegalMoveError",
    "LeadChoice",
    "MalformedError",
    "MatchState",
    "Outcome",
    "Phase",
    "PublicView",
    "Rules",
    "RulesError",
    "SeatView",
    "Tile",
    "public_view",
    "seat_view",
]
