"""SQLAlchemy Core adapters for the table's ports: SQLite (WAL) by default, PostgreSQL by URL."""

from tranque.store.db import Store, async_url, open_store

__all__ = ["Store", "async_url", "open_store"]
