"""Duplicate-deal matches between bots: play, statistics, the ``tranque arena`` command."""
