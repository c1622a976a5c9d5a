"""Friends, their requests, each person's privacy, and the notices kept for him until read.

A friendship is two rows of ``friendships`` (one per side), so a person's friends are one
indexed range; a pending request is one row of ``friend_requests`` (sender, recipient). A
person's privacy is a row of ``privacy`` only once he changed it (no row: anyone may invite
him, his status is shown). ``notices`` keep what the bell shows (friend requests, invitations,
later a tournament's call), numbered so that a page of them is a range of ids.

Revision ID: 0009f
Revises: 0008m
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0009f"
down_revision = "0008m"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "friend_requests",
        sa.Column("sender", sa.String(64), primary_key=True),
        sa.Column("recipient", sa.String(64), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_friend_requests_recipient", "friend_requests", ["recipient"])
    op.create_table(
        "friendships",
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("friend", sa.String(64), primary_key=True),
        sa.Column("since", sa.Float, nullable=False),
    )
    op.create_table(
        "privacy",
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("invites", sa.String(8), nullable=False),
        sa.Column("show_online", sa.Boolean, nullable=False),
    )
    op.create_table(
        "notices",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("guest", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("read", sa.Boolean, nullable=False),
    )
    op.create_index("ix_notices_guest", "notices", ["guest", "id"])


def downgrade() -> None:
    op.drop_index("ix_notices_guest", "notices")
    op.drop_table("notices")
    op.drop_table("privacy")
    op.drop_table("friendships")
    op.drop_index("ix_friend_requests_recipient", "friend_requests")
    op.drop_table("friend_requests")
