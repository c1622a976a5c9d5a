"""Look-alike names are one name: ``accounts.name_skeleton``, unique (issue 28, finding 11).

The skeleton is ``club.skeleton.name_skeleton``: Unicode TR39's confusable skeleton with the
accents, the case and the separators folded, so ``Marta`` and ``Mаrta`` (a Cyrillic ``а``), or
``Zoé_Two`` and ``zoe-two``, share one. Every existing account gets its skeleton here. Two
accounts made before this revision may share one (both were allowed then): the older keeps the
plain skeleton, so nobody can claim a third look-alike, and each later one gets its skeleton
followed by ``#`` and its guest id, which no name's skeleton has; they keep their names and log
in by them (a login finds the casefolded name first). If the skeleton's definition ever
changes, a new revision must compute the column again.

Revision ID: 0006a
Revises: 0005b
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0006a"
down_revision = "0005b"
branch_labels = None
depends_on = None

SKELETON_LENGTH = 255  # store.schema.SKELETON_LENGTH, as of this revision


def upgrade() -> None:
    from tranque.club.skeleton import name_skeleton

    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("name_skeleton", sa.String(SKELETON_LENGTH), nullable=True))
    conn = op.get_bind()
    rows = conn.execute(
        sa.text("SELECT guest, name FROM accounts ORDER BY created, guest")
    ).fetchall()
    seen: set[str] = set()
    for guest, name in rows:
        skeleton = name_skeleton(name)[: SKELETON_LENGTH - 70]
        if skeleton in seen:
            skeleton = f"{skeleton}#{guest}"
        seen.add(skeleton)
        conn.execute(
            sa.text("UPDATE accounts SET name_skeleton = :s WHERE guest = :g"),
            {"s": skeleton, "g": guest},
        )
    with op.batch_alter_table("accounts") as batch:
        batch.alter_column(
            "name_skeleton", existing_type=sa.String(SKELETON_LENGTH), nullable=False
        )
        batch.create_index("uq_accounts_name_skeleton", ["name_skeleton"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.drop_index("uq_accounts_name_skeleton")
        batch.drop_column("name_skeleton")
