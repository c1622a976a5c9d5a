"""Alembic environment: runs on the connection the store hands over (any driver, sync side)."""

from alembic import context

from tranque.store.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the store always passes its connection
    raise RuntimeError("tranque runs its migrations from Store.migrate(), with a connection")
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
