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

# The tables a person began and did not finish (0007e): he left a rated game at its start
# (``aborted``), everybody left (``abandoned``), or a bot took over a quarter of his decisions
# (``leaver``: the table finished, his play row is there). The completion rate is worked out of
# these and ``plays`` (``club_rows.completion``): finished ÷ begun.
departures = sa.Table(
    "departures",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),  # aborted | abandoned | leaver
    sa.Column("ts", sa.Float, nullable=False),
    sa.Index("ix_departures_guest", "guest"),
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

# Moderation (0008m; docs/fairplay.md, "Moderation"). A person's roles, and his standing:
# suspended from rated play until when, closed since when, warnings had.
roles = sa.Table(
    "roles",
    metadata,
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("role", sa.String(16), primary_key=True),  # moderation.rules.ROLES
    sa.Column("granted", sa.Float, nullable=False),
)

standing = sa.Table(
    "standing",
    metadata,
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("suspended_until", sa.Float, nullable=True),
    sa.Column("closed", sa.Float, nullable=True),
    sa.Column("warnings", sa.Integer, nullable=False),
)

# Append-only: rows are inserted, never updated nor deleted (store.moderation has no statement
# that would). ``moderator`` is a guest id, or "tranque admin" for the command's grants.
moderation_log = sa.Table(
    "moderation_log",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("ts", sa.Float, nullable=False),
    sa.Column("moderator", sa.String(64), nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("target", sa.String(160), nullable=False),  # a guest id, or a flag's subject
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("until", sa.Float, nullable=True),
    sa.Index("ix_moderation_log_target", "target", "ts"),
)

# What players report (never shown to anyone but moderators), and whom they block.
reports = sa.Table(
    "reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("ts", sa.Float, nullable=False),
    sa.Column("reporter", sa.String(64), nullable=False),
    sa.Column("target", sa.String(64), nullable=False),
    sa.Column("reason", sa.String(32), nullable=False),  # moderation.rules.REPORT_REASONS
    sa.Column("table_id", sa.String(64), nullable=True),
    sa.Column("reviewed", sa.Float, nullable=True),
    sa.Index("ix_reports_reporter", "reporter", "ts"),
    sa.Index("ix_reports_target", "target", "reviewed"),
)

blocks = sa.Table(
    "blocks",
    metadata,
    sa.Column("guest", sa.String(64), primary_key=True),  # who blocks
    sa.Column("other", sa.String(64), primary_key=True),  # whom
    sa.Column("ts", sa.Float, nullable=False),
    sa.Index("ix_blocks_other", "other"),
)

# The fair-play screen's flags (a person's handle, or two handles joined by "+"), with the
# screen's figures as JSON; ``reviewed`` once a moderator marked it so.
screen_flags = sa.Table(
    "screen_flags",
    metadata,
    sa.Column("subject", sa.String(160), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),  # person | partnership
    sa.Column("stats", sa.Text, nullable=False),
    sa.Column("screened", sa.Float, nullable=False),
    sa.Column("reviewed", sa.Float, nullable=True),
)

# Each finished game's screen as the service goes (``fairplay.screen_record``'s output: the
# record's players and per-seat sums), written once its fair analysis is done (server.analyst);
# the flags are summed from these, oldest first, as ``tranque fairplay screen --db`` does.
screen_games = sa.Table(
    "screen_games",
    metadata,
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("finished", sa.Float, nullable=False),  # the game's (``games.finished``)
    sa.Column("result", sa.Text, nullable=False),  # JSON
    sa.Index("ix_screen_games_finished", "finished", "table_id"),
)

# Friends (0009f): a request is one row until answered; a friendship is two rows, one per side,
# so that a person's friends are one range of the primary key. ``privacy`` has a row only for a
# person who changed the defaults (anyone may invite him, his status is shown). ``notices`` are
# the bell's: kept until read, paged by id.
friend_requests = sa.Table(
    "friend_requests",
    metadata,
    sa.Column("sender", sa.String(64), primary_key=True),
    sa.Column("recipient", sa.String(64), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Index("ix_friend_requests_recipient", "recipient"),
)

friendships = sa.Table(
    "friendships",
    metadata,
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("friend", sa.String(64), primary_key=True),
    sa.Column("since", sa.Float, nullable=False),
)

privacy = sa.Table(
    "privacy",
    metadata,
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("invites", sa.String(8), nullable=False),  # everyone | friends | nobody
    sa.Column("show_online", sa.Boolean, nullable=False),
)

notices = sa.Table(
    "notices",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("guest", sa.String(64), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),  # club.friends.NOTICE_KINDS
    sa.Column("body", sa.Text, nullable=False),  # JSON: who, and for an invite the table
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("read", sa.Boolean, nullable=False),
    sa.Index("ix_notices_guest", "guest", "id"),
)

# Pairs (0010p): two accounts under one name, ``a`` < ``b`` so that a couple of people is one
# key (a person may be in several pairs, never two with the same partner). A pair is
# ``proposed`` until the partner accepts (``formed`` set then); declined or dissolved, its rows
# go. Its name is unique among pairs by its casefolded key and its look-alike skeleton, as an
# account's name is. ``pair_games`` are the rated games both played as partners once formed,
# one row per pair and table (the key makes the pair's update happen once per game), and
# ``pair_ratings`` the pair's OpenSkill rating per preset (docs/club.md, "Pairs").
pairs = sa.Table(
    "pairs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("name_key", sa.String(64), nullable=False),
    sa.Column("name_skeleton", sa.String(SKELETON_LENGTH), nullable=False),
    sa.Column("a", sa.String(64), nullable=False),
    sa.Column("b", sa.String(64), nullable=False),
    sa.Column("proposer", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("formed", sa.Float, nullable=True),  # None: proposed, not yet accepted
    sa.UniqueConstraint("name_key", name="uq_pairs_name_key"),
    sa.UniqueConstraint("name_skeleton", name="uq_pairs_name_skeleton"),
    sa.UniqueConstraint("a", "b", name="uq_pairs_partners"),
    sa.Index("ix_pairs_b", "b"),
)

pair_ratings = sa.Table(
    "pair_ratings",
    metadata,
    sa.Column("pair_id", sa.Integer, primary_key=True),
    sa.Column("preset", sa.String(16), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
    sa.Index("ix_pair_ratings_preset", "preset", "games"),
)

pair_games = sa.Table(
    "pair_games",
    metadata,
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
    sa.Index("ix_pair_games_pair", "pair_id", "finished"),
)

# Peñas (0011k): clubs of accounts (docs/club.md, "Peñas"). A peña's name is unique among peñas
# by its casefolded key and its look-alike skeleton, as an account's is. ``pena_members`` has one
# row per member with his role (founder, admin, member); ``pena_pending`` the requests to join
# (``kind`` request) and the invitations (``kind`` invite) not yet answered; ``pena_posts`` the
# notice board, newest first by id.
penas = sa.Table(
    "penas",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("name_key", sa.String(64), nullable=False),
    sa.Column("name_skeleton", sa.String(SKELETON_LENGTH), nullable=False),
    sa.Column("description", sa.Text, nullable=False),
    sa.Column("open", sa.Boolean, nullable=False),
    sa.Column("emblem", sa.String(16), nullable=False),
    sa.Column("founder", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.UniqueConstraint("name_key", name="uq_penas_name_key"),
    sa.UniqueConstraint("name_skeleton", name="uq_penas_name_skeleton"),
)

pena_members = sa.Table(
    "pena_members",
    metadata,
    sa.Column("pena_id", sa.Integer, primary_key=True),
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("role", sa.String(8), nullable=False),  # founder | admin | member
    sa.Column("since", sa.Float, nullable=False),
    sa.Index("ix_pena_members_guest", "guest"),
)

pena_pending = sa.Table(
    "pena_pending",
    metadata,
    sa.Column("pena_id", sa.Integer, primary_key=True),
    sa.Column("guest", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),  # request | invite
    sa.Column("by", sa.String(64), nullable=False),  # who asked: the person, or the admin
    sa.Column("created", sa.Float, nullable=False),
    sa.Index("ix_pena_pending_guest", "guest"),
)

pena_posts = sa.Table(
    "pena_posts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("pena_id", sa.Integer, nullable=False),
    sa.Column("author", sa.String(64), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Index("ix_pena_posts_pena", "pena_id", "id"),
)


# -- tournaments (0012t; docs/tournaments.md, "The service") ---------------------------------------

tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),  # "swiss-pairs" | "arena"
    sa.Column("rules", sa.String(16), nullable=False),  # a preset: its games are rated
    sa.Column("target", sa.Integer, nullable=False),
    sa.Column("minutes", sa.Float, nullable=True),
    sa.Column("rounds", sa.Integer, nullable=False),
    sa.Column("no_show", sa.Float, nullable=False),  # seconds a pair has to come to its table
    sa.Column("state", sa.String(16), nullable=False),  # registering | running | finished
    sa.Column("creator", sa.String(64), nullable=False),  # the creator's guest id
    sa.Column("public", sa.Boolean, nullable=False),  # listed, else reached by its link
    sa.Column("starts", sa.Float, nullable=True),  # when it starts by itself (None: by hand)
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("entrants_made", sa.Integer, nullable=False),  # p1, p2, ...: never given twice
    # (0013s) The schedule that made it, and its occurrence's key (None: made by a person).
    sa.Column("schedule", sa.String(32), nullable=True),
    sa.Column("occurrence", sa.String(64), nullable=True),
    sa.Index("ix_tournaments_state", "state", "created"),
    sa.Index("ux_tournaments_occurrence", "occurrence", unique=True),
)

# -- scheduled tournaments (0013s; docs/tournaments.md, "Scheduled tournaments") ------------------

tournament_schedules = sa.Table(
    "tournament_schedules",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),  # each occurrence's name, and its maker
    sa.Column("kind", sa.String(16), nullable=False),  # "swiss-pairs"
    sa.Column("rules", sa.String(16), nullable=False),
    sa.Column("rounds", sa.Integer, nullable=False),
    sa.Column("minutes", sa.Float, nullable=True),  # each game's time cap
    sa.Column("no_show", sa.Float, nullable=False),
    sa.Column("public", sa.Boolean, nullable=False),
    sa.Column("weekdays", sa.String(16), nullable=False),  # "5" or "4,5" (0 = Monday)
    sa.Column("at", sa.String(5), nullable=False),  # the local time of day, "20:00"
    sa.Column("zone", sa.String(64), nullable=False),  # IANA, "America/Havana"
    sa.Column("opens_hours", sa.Float, nullable=False),  # registration opens this long before
    sa.Column("created", sa.Float, nullable=False),
)

tournament_entrants = sa.Table(
    "tournament_entrants",
    metadata,
    sa.Column("tournament_id", sa.String(32), primary_key=True),
    sa.Column("entrant", sa.String(16), primary_key=True),  # "p1", "p2", ... (the file's id)
    sa.Column("pair_id", sa.Integer, nullable=False),
    sa.Column("a", sa.String(64), nullable=False),  # the partners' guest ids
    sa.Column("b", sa.String(64), nullable=False),
    sa.Column("rating", sa.Float, nullable=False),  # the pair's, at registration
    sa.Column("withdrawn", sa.Boolean, nullable=False),
    sa.Column("registered", sa.Float, nullable=False),
    sa.UniqueConstraint("tournament_id", "pair_id", name="uq_tournament_entrants_pair"),
)

tournament_rounds = sa.Table(
    "tournament_rounds",
    metadata,
    sa.Column("tournament_id", sa.String(32), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),  # the key makes a round start once
    sa.Column("byes", sa.Text, nullable=False),  # JSON list of entrant ids
    sa.Column("started", sa.Float, nullable=False),
    sa.Column("ended", sa.Float, nullable=True),
)

tournament_tables = sa.Table(
    "tournament_tables",
    metadata,
    sa.Column("tournament_id", sa.String(32), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),  # its place in the round's list
    sa.Column("a", sa.String(16), nullable=False),  # pair A (seats 0 and 2)
    sa.Column("b", sa.String(16), nullable=False),
    sa.Column("table_id", sa.String(64), nullable=True),  # None until the table is opened
    sa.Column("points_a", sa.Integer, nullable=True),  # None until its result is written
    sa.Column("points_b", sa.Integer, nullable=True),
    sa.Column("winner", sa.String(1), nullable=True),  # "a" | "b" | None (neither came)
    sa.Column("forfeit", sa.Boolean, nullable=False),
    sa.Column("done", sa.Boolean, nullable=False),
)


# -- the arena (0013a; docs/tournaments.md, "The service") ---------------------------------------

arena_entrants = sa.Table(
    "arena_entrants",
    metadata,
    sa.Column("tournament_id", sa.String(32), primary_key=True),
    sa.Column("entrant", sa.String(16), primary_key=True),  # "p1", "p2", ...: the join order
    sa.Column("guest", sa.String(64), nullable=False),  # one person per entrant
    sa.Column("rating", sa.Float, nullable=False),  # his, in the arena's preset, when he joined
    sa.Column("withdrawn", sa.Boolean, nullable=False),  # left: never seated until he rejoins
    sa.Column("joined", sa.Float, nullable=False),
    sa.Column("free_since", sa.Float, nullable=False),  # his (re)join or his last game's end
    sa.UniqueConstraint("tournament_id", "guest", name="uq_arena_entrants_guest"),
)

arena_games = sa.Table(
    "arena_games",
    metadata,
    sa.Column("tournament_id", sa.String(32), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),  # 1, 2, ...: the order games were seated
    sa.Column("seat0", sa.String(16), nullable=True),  # entrant ids; None: a bot
    sa.Column("seat1", sa.String(16), nullable=True),
    sa.Column("seat2", sa.String(16), nullable=True),
    sa.Column("seat3", sa.String(16), nullable=True),
    sa.Column("table_id", sa.String(64), nullable=True),  # None until the table is opened
    sa.Column("opened", sa.Float, nullable=False),
    sa.Column("ended", sa.Float, nullable=True),  # seconds after the arena's start
    sa.Column("points_a", sa.Integer, nullable=True),  # None until its result is written
    sa.Column("points_b", sa.Integer, nullable=True),
    sa.Column("winner", sa.String(1), nullable=True),  # "a" | "b" | None (no result: not counted)
    sa.Column("pollona", sa.Boolean, nullable=False),
    sa.Column("done", sa.Boolean, nullable=False),
)

arena_clocks = sa.Table(
    "arena_clocks",
    metadata,
    sa.Column("tournament_id", sa.String(32), primary_key=True),  # inserted once: one start
    sa.Column("started", sa.Float, nullable=False),
    sa.Column("ends", sa.Float, nullable=False),  # no table is seated after this
)
