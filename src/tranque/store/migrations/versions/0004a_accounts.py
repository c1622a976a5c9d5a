"""The club's accounts and ratings: ``accounts``, ``sessions``, ``plays``, ``ratings`` and
``rating_changes``.

An account keeps the id of the guest that claimed it (``accounts.guest``), so nothing the
guest played moves. ``plays`` is one row per person per finished table (what profiles count);
``ratings`` one per person and preset; ``rating_changes`` one per person and rated table, the
history the profile's chart draws. Self-contained: it only adds tables.

Revision ID: 0004a
Revises: 0003
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0004a"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.UniqueConstraint("name_key", name="uq_accounts_name_key"),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("guest", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_sessions_guest", "sessions", ["guest"])
    op.create_table(
        "plays",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("nickname", sa.String(64), nullable=False),
        sa.Column("preset", sa.String(16), nullable=True),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("pollonas_given", sa.Integer, nullable=False),
        sa.Column("pollonas_suffered", sa.Integer, nullable=False),
        sa.Column("viajeras", sa.Integer, nullable=False),
        sa.Column("finished", sa.Float, nullable=False),
    )
    op.create_index("ix_plays_guest", "plays", ["guest", "finished"])
    op.create_table(
        "ratings",
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("preset", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_index("ix_ratings_preset", "ratings", ["preset", "games"])
    op.create_table(
        "rating_changes",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("preset", sa.String(16), nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("ts", sa.Float, nullable=False),
    )
    op.create_index("ix_rating_changes_guest", "rating_changes", ["guest", "preset", "ts"])


def downgrade() -> None:
    op.drop_index("ix_rating_changes_guest", "rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_ratings_preset", "ratings")
    op.drop_table("ratings")
    op.drop_index("ix_plays_guest", "plays")
    op.drop_table("plays")
    op.drop_index("ix_sessions_guest", "sessions")
    op.drop_table("sessions")
    op.drop_table("accounts")
