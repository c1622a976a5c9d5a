"""The rules of Cuban dominoes, pure: standard library only, immutable values, typed errors.

Everything a user of the library needs is here: the tiles, the options and presets, one hand, a
game and a match, what a seat may see, ordinary random deals, records and their replay, and one
error class per way input can be wrong (the rules are written out in ``docs/rules.md``).

>>> from tranque.rules import HAVANA, Action, GameState, load, replay_hand
>>> HAVANA, HAVANA.target
(HAVANA, 100)
>>> Action.parse("49@9")
Action.parse('94@9')
>>> import random
>>> game = deal_next(GameState.new(HAVANA), random.Random(7))
>>> game.phase in (Phase.CHOOSE, Phase.REDEAL)
True
>>> replay_hand(load('{"format": "tranque-hand/1", "moves": []}'))
Traceback (most recent call last):
    ...
tranque.rules.errors.InvalidRecordError: hand record: missing 'hands'
"""

from tranque.rules.dealing import deal_next, random_deal, random_draw
from tranque.rules.errors import (
    HandOverError,
    IllegalMoveError,
    InvalidDealError,
    InvalidRecordError,
    MalformedError,
    MalformedMoveError,
    MalformedTileError,
    NotYourTurnError,
    PassNotAllowedError,
    RulesError,
    TileDoesNotFitError,
    TileNotInHandError,
    UnknownOptionError,
    WrongEndError,
    WrongPhaseError,
)
from tranque.rules.game import GameState, LeadChoice, MatchState, Phase
from tranque.rules.hand import PASS, Action, Deal, EndKind, HandState, Outcome
from tranque.rules.record import (
    FORMATS,
    GAME_FORMAT,
    HAND_FORMAT,
    MATCH_FORMAT,
    ReplayError,
    game_record,
    hand_record,
    load,
    match_record,
    replay_game,
    replay_hand,
    replay_match,
)
from tranque.rules.tiles import DOUBLE_NINE, DOUBLE_SIX, Tile, TileSet, format_tiles, parse_tiles
from tranque.rules.variants import (
    BARRIO,
    HAVANA,
    MIAMI,
    ORIENTE,
    PRESETS,
    FirstLeader,
    NextLeader,
    Rules,
    TiedBlock,
)
from tranque.rules.views import PublicView, SeatView, public_view, seat_view

__all__ = [
    "BARRIO",
    "DOUBLE_NINE",
    "DOUBLE_SIX",
    "FORMATS",
    "GAME_FORMAT",
    "HAND_FORMAT",
    "HAVANA",
    "MATCH_FORMAT",
    "MIAMI",
    "ORIENTE",
    "PASS",
    "PRESETS",
    "Action",
    "Deal",
    "EndKind",
    "FirstLeader",
    "GameState",
    "HandOverError",
    "HandState",
    "IllegalMoveError",
    "InvalidDealError",
    "InvalidRecordError",
    "LeadChoice",
    "MalformedError",
    "MalformedMoveError",
    "MalformedTileError",
    "MatchState",
    "NextLeader",
    "NotYourTurnError",
    "Outcome",
    "PassNotAllowedError",
    "Phase",
    "PublicView",
    "ReplayError",
    "Rules",
    "RulesError",
    "SeatView",
    "TiedBlock",
    "Tile",
    "TileDoesNotFitError",
    "TileNotInHandError",
    "TileSet",
    "UnknownOptionError",
    "WrongEndError",
    "WrongPhaseError",
    "deal_next",
    "format_tiles",
    "game_record",
    "hand_record",
    "load",
    "match_record",
    "parse_tiles",
    "public_view",
    "random_deal",
    "random_draw",
    "replay_game",
    "replay_hand",
    "replay_match",
    "seat_view",
]
