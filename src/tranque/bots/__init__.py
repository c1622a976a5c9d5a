"""Bots: a SeatView in, a decision out. They never see another seat's tiles or the sleepers."""

from tranque.bots.base import Bot, bot_names, make_bot

__all__ = ["Bot", "bot_names", "make_bot"]
