"""Peñas: clubs of accounts, their members with a role, the requests and invitations not yet
answered, and their notice board.

A peña's name is unique by its casefolded key and its look-alike skeleton, like an account's.
A member is one row per peña and person; a pending request or invitation likewise.

Revision ID: 0011k
Revises: 0010p
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0011k"
down_revision = "0010p"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "penas",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False),
        sa.Column("name_skeleton", sa.String(255), nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("open", sa.Boolean, nullable=False),
        sa.Column("emblem", sa.String(16), nullable=False),
        sa.Column("founder", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.UniqueConstraint("name_key", name="uq_penas_name_key"),
        sa.UniqueConstraint("name_skeleton", name="uq_penas_name_skeleton"),
    )
    op.create_table(
        "pena_members",
        sa.Column("pena_id", sa.Integer, primary_key=True),
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("since", sa.Float, nullable=False),
    )
    op.create_index("ix_pena_members_guest", "pena_members", ["guest"])
    op.create_table(
        "pena_pending",
        sa.Column("pena_id", sa.Integer, primary_key=True),
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("by", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_pena_pending_guest", "pena_pending", ["guest"])
    op.create_table(
        "pena_posts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("pena_id", sa.Integer, nullable=False),
        sa.Column("author", sa.String(64), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_pena_posts_pena", "pena_posts", ["pena_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_pena_posts_pena", "pena_posts")
    op.drop_table("pena_posts")
    op.drop_index("ix_pena_pending_guest", "pena_pending")
    op.drop_table("pena_pending")
    op.drop_index("ix_pena_members_guest", "pena_members")
    op.drop_table("pena_members")
    op.drop_table("penas")
