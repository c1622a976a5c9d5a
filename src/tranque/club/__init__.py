"""The club: accounts and sessions, ratings and profiles. Logic only: it talks to ports that
``store`` (SQL) and ``runtime`` (Redis) implement, and imports no socket, SQL or Redis library."""
