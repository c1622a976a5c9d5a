"""The club: what turns a table server into a place to meet people (the lobby, the quick-match
queue). Logic only: it talks to ports (``club.ports``) that ``store`` and ``runtime`` implement,
with in-process adapters here for one node."""
