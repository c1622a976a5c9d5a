"""Moderation: people's roles, their standing (suspended from rated play until when, closed
since when, warnings), the append-only moderation log, players' reports and blocks, and the
fair-play screen's flags kept for the moderators' page, and each finished game's screen (its
per-seat sums, what the flags are summed from as the service goes).

Revision ID: 0008m
Revises: 0007e
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0008m"
down_revision = "0007e"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "roles",
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("role", sa.String(16), primary_key=True),
        sa.Column("granted", sa.Float, nullable=False),
    )
    op.create_table(
        "standing",
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("suspended_until", sa.Float, nullable=True),
        sa.Column("closed", sa.Float, nullable=True),
        sa.Column("warnings", sa.Integer, nullable=False),
    )
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("ts", sa.Float, nullable=False),
        sa.Column("moderator", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(160), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("until", sa.Float, nullable=True),
    )
    op.create_index("ix_moderation_log_target", "moderation_log", ["target", "ts"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("ts", sa.Float, nullable=False),
        sa.Column("reporter", sa.String(64), nullable=False),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("reviewed", sa.Float, nullable=True),
    )
    op.create_index("ix_reports_reporter", "reports", ["reporter", "ts"])
    op.create_index("ix_reports_target", "reports", ["target", "reviewed"])
    op.create_table(
        "blocks",
        sa.Column("guest", sa.String(64), primary_key=True),
        sa.Column("other", sa.String(64), primary_key=True),
        sa.Column("ts", sa.Float, nullable=False),
    )
    op.create_index("ix_blocks_other", "blocks", ["other"])
    op.create_table(
        "screen_flags",
        sa.Column("subject", sa.String(160), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("stats", sa.Text, nullable=False),
        sa.Column("screened", sa.Float, nullable=False),
        sa.Column("reviewed", sa.Float, nullable=True),
    )
    op.create_table(
        "screen_games",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("finished", sa.Float, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
    )
    op.create_index("ix_screen_games_finished", "screen_games", ["finished", "table_id"])


def downgrade() -> None:
    op.drop_index("ix_screen_games_finished", "screen_games")
    op.drop_table("screen_games")
    op.drop_table("screen_flags")
    op.drop_index("ix_blocks_other", "blocks")
    op.drop_table("blocks")
    op.drop_index("ix_reports_target", "reports")
    op.drop_index("ix_reports_reporter", "reports")
    op.drop_table("reports")
    op.drop_index("ix_moderation_log_target", "moderation_log")
    op.drop_table("moderation_log")
    op.drop_table("standing")
    op.drop_table("roles")
