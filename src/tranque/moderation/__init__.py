"""Moderation: roles, what a moderator may do to whom, suspensions, reports and blocks.

The decisions live here and nowhere else (docs/fairplay.md, "Moderation"); the rows are
``store.moderation``, the routes ``server.moderation``, the command ``tranque admin``
(``server.admin``). Standard library only: it talks to the ``ModerationStore`` port.
"""
