"""Typed errors of the rules core.

Two families, as in python-chess: *malformed* input (text that is not a tile, a move or a record)
and *illegal* input (well formed, but against the rules in this position). Every error says what is
wrong; the server maps each class to a protocol error code. Raising one never changes any state:
the core's values are immutable.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error the rules core raises on bad input."""

    code = "rules_error"


class MalformedError(RulesError):
    """Input that cannot be parsed at all."""

    code = "malformed"


class MalformedTileError(MalformedError):
    code = "malformed_tile"


class MalformedMoveError(MalformedError):
    code = "malformed_move"


class InvalidRecordError(MalformedError):
    """A record that is not valid JSON of the expected shape, or names an unknown option."""

    code = "invalid_record"


class UnknownOptionError(InvalidRecordError):
    code = "unknown_option"


class IllegalMoveError(RulesError):
    """A well-formed action that the rules do not allow here."""

    code = "illegal_move"


class NotYourTurnError(IllegalMoveError):
    code = "not_your_turn"


class TileNotInHandError(IllegalMoveError):
    code = "tile_not_in_hand"


class TileDoesNotFitError(IllegalMoveError):
    code = "tile_does_not_fit"


class WrongEndError(IllegalMoveError):
    code = "wrong_end"


class PassNotAllowedError(IllegalMoveError):
    code = "pass_not_allowed"


class HandOverError(IllegalMoveError):
    code = "hand_over"


class InvalidDealError(RulesError):
    """A deal with a duplicated, missing or foreign tile, or the wrong number of tiles."""

    code = "invalid_deal"


class WrongPhaseError(IllegalMoveError):
    """A decision (redeal, Salgo / Sal tú, a play) asked for at a moment it is not due."""

    code = "wrong_phase"
