"""The club: what turns a table server into a place to meet people: accounts and sessions,
ratings and profiles, the lobby, the quick-match queue. Logic only: it talks to ports that
``store`` (SQL) and ``runtime`` (Redis) implement, with in-process adapters here for one node,
and imports no socket, SQL or Redis library."""
