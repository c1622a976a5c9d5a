"""Pairs: two accounts under one name, their games together and their rating per preset.

A pair's row is written when one partner proposes and completed (``formed``) when the other
accepts; a declined proposal or a dissolved pair loses its rows. ``a`` < ``b`` makes a couple of
people one key: a person may be in several pairs, never in two with the same partner. The name
is unique by its casefolded key and its look-alike skeleton, like an account's.

Revision ID: 0010p
Revises: 0009f
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0010p"
down_revision = "0009f"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pairs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False),
        sa.Column("name_skeleton", sa.String(255), nullable=False),
        sa.Column("a", sa.String(64), nullable=False),
        sa.Column("b", sa.String(64), nullable=False),
        sa.Column("proposer", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("formed", sa.Float, nullable=True),
        sa.UniqueConstraint("name_key", name="uq_pairs_name_key"),
        sa.UniqueConstraint("name_skeleton", name="uq_pairs_name_skeleton"),
        sa.UniqueConstraint("a", "b", name="uq_pairs_partners"),
    )
    op.create_index("ix_pairs_b", "pairs", ["b"])
    op.create_table(
        "pair_ratings",
        sa.Column("pair_id", sa.Integer, primary_key=True),
        sa.Column("preset", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_index("ix_pair_ratings_preset", "pair_ratings", ["preset", "games"])
    op.create_table(
        "pair_games",
        sa.Column("pair_id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("preset", sa.String(16), nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("pollonas_given", sa.Integer, nullable=False),
        sa.Column("pollonas_suffered", sa.Integer, nullable=False),
        sa.Column("points_for", sa.Integer, nullable=False),
        sa.Column("points_against", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("finished", sa.Float, nullable=False),
    )
    op.create_index("ix_pair_games_pair", "pair_games", ["pair_id", "finished"])


def downgrade() -> None:
    op.drop_index("ix_pair_games_pair", "pair_games")
    op.drop_table("pair_games")
    op.drop_index("ix_pair_ratings_preset", "pair_ratings")
    op.drop_table("pair_ratings")
    op.drop_index("ix_pairs_b", "pairs")
    op.drop_table("pairs")
