"""Each event's public form kept with it (issue 28): ``events.public``.

The history of a table (``GET /api/tables/{id}/history``) is every event as a spectator saw it.
That form depends on the table's state before the event, so until now each page was rebuilt by
replaying the table's log from its start, on the event loop, at every request. The owner of a
table makes the public form of every event anyway (it sends it), so it now writes it in the
event's own row, in the same transaction, as the event's item of the history (``{"seq", "ts",
...the public form}``, JSON); a page of the history is its rows' items, by sequence number.

The rows written before this migration have none (NULL): the first request for such a table's
history replays its log once, off the event loop, and writes the forms in (``server.replays``).
Nothing is replayed here: a migration must not depend on the rules code of the day, nor take
as long as every table's log.

Revision ID: 0006b
Revises: 0006a
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0006b"
down_revision = "0006a"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("public", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("public")
