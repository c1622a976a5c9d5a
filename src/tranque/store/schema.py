"""The tables of the database, as SQLAlchemy Core metadata (the migrations create them)."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

# A skeleton may be longer than its name (``m`` is ``rn``); a name's is far under this (a longer
# one is refused as a bad name), and the rows a migration had to tell apart add a suffix.
SKELETON_LENGTH = 255

guests = sa.Table(
    "guests",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("nickname", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
)

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("host", sa.String(64), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # "open" | "over" | "expired"
    # JSON: the settings at creation; once over, the table's final info (seats, nicknames...)
    sa.Column("info", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("ended", sa.Float, nullable=True),  # when it was over or expired (0002)
    sa.Index("ix_tables_status", "status"),
)

# The people a table was made with (0006c): a quick match's, a rematch's, a host's own seat.
# What counts a person's unfinished tables against his cap (``Store.open_tables_of``) beside the
# tables he hosts: a table the queue opens has no host of his.
table_people = sa.Table(
    "table_people",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Index("ix_table_people_guest", "guest"),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.String(64), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("type", sa.String(32), nullable=False),
    sa.Column("payload", sa.Text, nullable=False),  # JSON
    sa.Column("ts", sa.Float, nullable=False),
    sa.Column("epoch", sa.Integer, nullable=True),  # the appending owner's lease epoch (0003)
    # JSON: the event as an item of the table's history, {"seq", "ts", ...what a spectator was
    # sent} (TableService.project, store.writer.history_item), written with it (0006b); NULL
    # for rows written before, filled once when the table's history is first asked for.
    sa.Column("public", sa.Text, nullable=True),
    sa.UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
)

games = sa.Table(
    "games",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("record", sa.Text, nullable=False),  # JSON: tranque-game/1 with fairness
    sa.Column("finished", sa.Float, nullable=False),
    sa.Index("ix_games_finished", "finished"),  # the history lists, newest first (0005b)
)

meta = sa.Table(
    "meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

# Who owns each table on a cluster (0003): the node, the epoch (one more at every takeover; the
# fencing token every append checks) and until when (seconds since the epoch, database time).
leases = sa.Table(
    "leases",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("node", sa.String(64), nullable=False),
    sa.Column("epoch", sa.Integer, nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
    sa.Index("ix_leases_node", "node"),
)

# The club (0004a): accounts (each the guest that claimed it), their sessions, and for every
# finished table each person's play, rating changes, and the current rating per preset.
accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("name_key", sa.String(64), nullable=False),  # NFKC casefolded: unique
    sa.Column("password_hash", sa.Text, nullable=False),  # argon2id; never logged nor sent
    sa.Column("created", sa.Float, nullable=False),
    # The confusable skeleton (club.skeleton), unique: look-alike names are one name (0006a).
    sa.Column("name_skeleton", sa.String(SKELETON_LENGTH), nullable=False),
    sa.UniqueConstraint("name_key", name="uq_accounts_name_key"),
    sa.Index("uq_accounts_name_skeleton", "name_skeleton", unique=True),
)

sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("guest", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Index("ix_sessions_guest", "guest"),
)

plays = sa.Table(
    "plays",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("nickname", sa.String(64), nullable=False),
    sa.Column("preset", sa.String(16), nullable=True),  # None: custom rules
    sa.Column("won", sa.Boolean, nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("pollonas_given", sa.Integer, nullable=False),
    sa.Column("pollonas_suffered", sa.Integer, nullable=False),
    sa.Column("viajeras", sa.Integer, nullable=False),  # won by the person's pair
    sa.Column("finished", sa.Float, nullable=False),
    sa.Index("ix_plays_guest", "guest", "finished"),
)

ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("preset", sa.String(16), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
    sa.Index("ix_ratings_preset", "preset", "games"),
)

rating_changes = sa.Table(
    "rating_changes",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("preset", sa.String(16), nullable=False),
    sa.Column("mu_before", sa.Float, nullable=False),
    sa.Column("sigma_before", sa.Float, nullable=False),
    sa.Column("mu_after", sa.Float, nullable=False),
    sa.Column("sigma_after", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),  # rated games after this one
    sa.Column("ts", sa.Float, nullable=False),
    sa.Index("ix_rating_changes_guest", "guest", "preset", "ts"),
)

# Every finished game explained (0005b): the fair analysis of the people's plays of a table
# ("fair") and the hindsight analyses asked for ("hindsight:G:N"), each claimed by one node.
analyses = sa.Table(
    "analyses",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("part", sa.String(32), primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),  # "pending" | "done" | "failed"
    sa.Column("seats", sa.String(16), nullable=False),  # the analysed seats: "0 2"
    sa.Column("node", sa.String(64), nullable=False),  # who claimed it
    sa.Column("claimed", sa.Float, nullable=False),  # renewed after every hand analysed
    sa.Column("result", sa.Text, nullable=True),  # JSON: tranque-analysis/1, or the failure
    sa.Column("updated", sa.Float, nullable=False),
    sa.Index("ix_analyses_status", "status", "claimed"),
)
