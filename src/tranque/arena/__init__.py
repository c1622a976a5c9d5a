"""Bots at the table without the server: duplicate-deal matches between bots, statistics, the
``tranque arena`` command, and ``tranque play`` (you and three bots in the terminal)."""
