"""The people each table was made with (issue 28): ``table_people``, one row per table and
person seated when the table was created (a quick match's people, a rematch's, a host in his
own seat), indexed by the person.

A table the quick-match queue opens has no host among its people (its host is ``quick-match``),
so the cap on a guest's unfinished tables, which counted the tables he hosts, never saw it: four
guests opened hundreds of tables through the queue. The cap now counts the tables a person hosts
and the tables he was seated at by the server (``Store.open_tables_of``). Tables made before
this revision have no rows: they count for their hosts only, as they did.

Revision ID: 0006c
Revises: 0006a
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0006c"
down_revision = "0006b"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_people",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("guest", sa.String(64), primary_key=True),
    )
    op.create_index("ix_table_people_guest", "table_people", ["guest"])


def downgrade() -> None:
    op.drop_index("ix_table_people_guest", "table_people")
    op.drop_table("table_people")
