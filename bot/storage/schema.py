"""The tables, and the numbered migrations that build them.

Migrations are applied in order on start-up (``schema_version`` holds the numbers applied). Never edit a released
one: append a new one. A migration that reshapes a table built by an earlier one builds that earlier table from its
own frozen definition (see ``_ratings_v2``), so that every database, new or old, passes through the same states.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import sqlalchemy as sa

__all__ = [
    "MIGRATIONS",
    "Migration",
    "actions",
    "game_players",
    "game_secrets",
    "games",
    "guilds",
    "member_locales",
    "member_names",
    "metadata",
    "players",
    "prompts",
    "proposals",
    "ratings",
    "result_players",
    "results",
    "schema_version",
    "server_setup",
    "timers_table",
    "tournaments",
    "vacations",
    "watchers",
]

metadata = sa.MetaData()

schema_version = sa.Table("schema_version", metadata, sa.Column("version", sa.Integer, nullable=False))

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("guild_id", sa.String(32), nullable=False, index=True),
    sa.Column("channel_id", sa.String(32), nullable=True),
    sa.Column("thread_id", sa.String(32), nullable=True),
    # challenge, active, finished, declined, expired, archived
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("variant", sa.String(64), nullable=False),
    sa.Column("setup", sa.Text, nullable=False),  # JSON: match setup (or challenge terms)
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("snapshot", sa.Text, nullable=True),  # JSON summary of the state after the last action
    sa.Column("draft", sa.Text, nullable=True),  # JSON: submoves made this turn, not yet confirmed
    sa.Column("turn_player", sa.String(32), nullable=True, index=True),
    sa.Column("clock", sa.Text, nullable=True),  # JSON: reserves and whose clock runs since when
    sa.Column("created_at", sa.Float, nullable=False),
    # JSON: each player's rolls so far, counts of the 36 ordered rolls (engine.fairdice.tally_rolls); NULL for a
    # game played before migration 7 until it is counted (a player's dice statistics count it once).
    sa.Column("dice", sa.Text, nullable=True),
    sa.Column("updated_at", sa.Float, nullable=False),
)

game_players = sa.Table(
    "game_players",
    metadata,
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("player_id", sa.String(32), primary_key=True),
    sa.Column("side", sa.Integer, nullable=True),
    sa.Index("ix_game_players_player", "player_id"),
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("action", sa.Text, nullable=False),  # JSON
    sa.Column("at", sa.Float, nullable=False),
)

players = sa.Table(
    "players",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("settings", sa.Text, nullable=False, default="{}"),
)

guilds = sa.Table(
    "guilds",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("settings", sa.Text, nullable=False, default="{}"),
)

timers_table = sa.Table(
    "timers",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=True, index=True),
    # timeout, reminder, opening, challenge-expiry, archive
    sa.Column("kind", sa.String(24), nullable=False),
    sa.Column("due_at", sa.Float, nullable=False),
    sa.Column("game_version", sa.Integer, nullable=True),  # the game version the timer was set for
    sa.Column("payload", sa.Text, nullable=False, default="{}"),
    sa.Column("claimed_by", sa.String(64), nullable=True),
    sa.Column("claimed_until", sa.Float, nullable=True),
    sa.Column("fired_at", sa.Float, nullable=True),
    sa.Index("ix_timers_due", "fired_at", "due_at"),
)

vacations = sa.Table(
    "vacations",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player_id", sa.String(32), nullable=False, index=True),
    sa.Column("guild_id", sa.String(32), nullable=False),
    sa.Column("start", sa.Float, nullable=False),
    sa.Column("end", sa.Float, nullable=False),
)

#: A player's rating in one rule set and rating system, on one server (each server keeps its own ladder).
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("guild_id", sa.String(32), nullable=False),
    sa.Column("player_id", sa.String(32), nullable=False),
    sa.Column("variant", sa.String(64), nullable=False),
    sa.Column("system", sa.String(32), nullable=False),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("experience", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False, default=0),
    sa.Column("losses", sa.Integer, nullable=False, default=0),
    sa.Column("streak", sa.Integer, nullable=False, default=0),  # +n: n wins in a row, -n: n losses
    sa.Column("updated_at", sa.Float, nullable=False),
    # Named apart from the version-2 table's "ratings_pkey", which migration 3 renames away but PostgreSQL keeps.
    sa.PrimaryKeyConstraint("guild_id", "player_id", "variant", "system", name="ratings_guild_pkey"),
    sa.Index("ix_ratings_player", "player_id"),
)

results = sa.Table(
    "results",
    metadata,
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("guild_id", sa.String(32), nullable=False, index=True),
    sa.Column("variant", sa.String(64), nullable=False),
    sa.Column("length", sa.Integer, nullable=False),
    sa.Column("data", sa.Text, nullable=False),  # JSON: sides, names, winner, score, rating changes
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("finished_at", sa.Float, nullable=False, index=True),
)

result_players = sa.Table(
    "result_players",
    metadata,
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("player_id", sa.String(32), primary_key=True),
    sa.Column("won", sa.Boolean, nullable=False),
    sa.Index("ix_result_players_player", "player_id"),
)

watchers = sa.Table(
    "watchers",
    metadata,
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("player_id", sa.String(32), primary_key=True),
)

game_secrets = sa.Table(
    "game_secrets",
    metadata,
    # The dice server seed of a match: never shown, never logged, revealed into the setup at match end.
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("seed", sa.String(128), nullable=False),
)

proposals = sa.Table(
    "proposals",
    metadata,
    # Team consultation: a teammate's suggested play or cube decision, or an acting member's play held for
    # the teammate's approval. Only that team's members ever see them.
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False, index=True),
    sa.Column("side", sa.Integer, nullable=False),
    sa.Column("author", sa.String(32), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),  # play, double, roll, take, pass, beaver, held
    sa.Column("text", sa.Text, nullable=False),  # notation, or the JSON of a held action
    sa.Column("turn", sa.Integer, nullable=False),  # length of the match record when proposed
    sa.Column("status", sa.String(16), nullable=False),  # open, adopted, approved, rejected, stale
    sa.Column("created_at", sa.Float, nullable=False),
)

#: The message carrying each live game's buttons (its prompt), so that a restarted bot can bring it up to date, or
#: take the buttons off a game that ended meanwhile. Transport data, not a game change: written without moving the
#: game's version. ``game_version`` is the version the prompt was drawn at; ``callers`` whom it called to act.
prompts = sa.Table(
    "prompts",
    metadata,
    sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("channel_id", sa.String(32), nullable=False),
    sa.Column("message_id", sa.String(32), nullable=False),
    sa.Column("game_version", sa.Integer, nullable=False),
    sa.Column("callers", sa.Text, nullable=False),  # player ids, comma-separated
    sa.Column("posted_at", sa.Float, nullable=False),
)


#: A server's tournaments: the engine's state (engine.tournament, as JSON) compare-and-swapped on ``version`` like a
#: game, the service's own notes (``meta``: names, who created it, matches waiting for an admin), and where the
#: transport announces it (transport data, written without moving the version).
tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("guild_id", sa.String(32), nullable=False, index=True),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # signup, running, finished
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("state", sa.Text, nullable=False),  # JSON: engine.tournament.to_data
    sa.Column("meta", sa.Text, nullable=False),  # JSON: the service's notes
    sa.Column("channel_id", sa.String(32), nullable=True),  # where it is announced and its matches get threads
    sa.Column("signup_message_id", sa.String(32), nullable=True),  # the message with Join and Leave
    sa.Column("pinned_message_id", sa.String(32), nullable=True),  # the bracket or standings, edited as it goes
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

#: The Discord locale each player's client last showed in each server (a player's interactions carry it): what the
#: server's members speak, for a server whose Discord language says nothing (a server that is not a Community server
#: always reports en-US). Erased with the player's data.
member_locales = sa.Table(
    "member_locales",
    metadata,
    sa.Column("guild_id", sa.String(32), primary_key=True),
    sa.Column("player_id", sa.String(32), primary_key=True),
    sa.Column("locale", sa.String(16), nullable=False),
    sa.Column("seen_at", sa.Float, nullable=False),
)

#: The name each player goes by in each server (Discord: their nickname there), written as they act there: what that
#: server's leaderboards, profiles and timers call them. A server with no row for a player falls back to the
#: player's own name (``players.name``: first seen, or written from a direct message). Erased with the player's data.
member_names = sa.Table(
    "member_names",
    metadata,
    sa.Column("guild_id", sa.String(32), primary_key=True),
    sa.Column("player_id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
)

#: The setup message the bot posts once in each server (language, default rule set, match length): where, and when.
server_setup = sa.Table(
    "server_setup",
    metadata,
    sa.Column("guild_id", sa.String(32), primary_key=True),
    sa.Column("offered_at", sa.Float, nullable=False),
    sa.Column("channel_id", sa.String(32), nullable=True),
    sa.Column("message_id", sa.String(32), nullable=True),
)

# --- tables as released migrations built them (frozen: never change these) ---------------------------------------
_released = sa.MetaData()


def _ratings_v2(name: str) -> sa.Table:
    """The ratings table of schema versions 2 (one rating per player, rule set and system, for every server)."""
    return sa.Table(
        name,
        _released,
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("variant", sa.String(64), primary_key=True),
        sa.Column("system", sa.String(32), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("experience", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False, default=0),
        sa.Column("losses", sa.Integer, nullable=False, default=0),
        sa.Column("streak", sa.Integer, nullable=False, default=0),
        sa.Column("updated_at", sa.Float, nullable=False),
        keep_existing=True,
    )


# --- migrations --------------------------------------------------------------------------------------------------
Migration = Callable[[sa.Connection], None]


def _migration_1(conn: sa.Connection) -> None:
    for table in (games, game_players, actions, players, guilds, timers_table, vacations):
        table.create(conn, checkfirst=True)


def _migration_2(conn: sa.Connection) -> None:
    for table in (_ratings_v2("ratings"), results, result_players, watchers, game_secrets, proposals):
        table.create(conn, checkfirst=True)


def _migration_3(conn: sa.Connection) -> None:
    """Ratings per server: ``guild_id`` joins the key of ``ratings``.

    Before, a player had one rating per rule set and system, shared by every server. Each old rating is copied to
    every server where that player finished a *rated* match of that rule set (the servers whose ladder it came
    from), whole: rating, experience, wins, losses and streak; from then on each server's copy moves on its own.
    A rating with no such match anywhere (its results were removed by hand) is kept under the server id ``""``,
    which no server has, rather than dropped. Unrated matches never moved a rating, so they copy nothing.
    """
    old = _ratings_v2("ratings_v2")
    conn.execute(sa.text("ALTER TABLE ratings RENAME TO ratings_v2"))
    ratings.create(conn)
    rated_here = (
        sa.select(results.c.guild_id, result_players.c.player_id, results.c.variant)
        .join(result_players, result_players.c.game_id == results.c.game_id)
        .where(results.c.rated.is_(True))
        .distinct()
        .subquery()
    )
    carried = [old.c.rating, old.c.experience, old.c.wins, old.c.losses, old.c.streak, old.c.updated_at]
    columns = ["guild_id", "player_id", "variant", "system", "rating", "experience", "wins", "losses", "streak"]
    columns.append("updated_at")
    copied = sa.select(rated_here.c.guild_id, old.c.player_id, old.c.variant, old.c.system, *carried).join(
        rated_here, sa.and_(rated_here.c.player_id == old.c.player_id, rated_here.c.variant == old.c.variant)
    )
    orphans = sa.select(sa.literal(""), old.c.player_id, old.c.variant, old.c.system, *carried).where(
        ~sa.exists().where(rated_here.c.player_id == old.c.player_id, rated_here.c.variant == old.c.variant)
    )
    conn.execute(ratings.insert().from_select(columns, copied))
    conn.execute(ratings.insert().from_select(columns, orphans))
    old.drop(conn)


def _migration_4(conn: sa.Connection) -> None:
    """The prompts table: each live game's message with buttons (empty until the bot next posts one)."""
    prompts.create(conn, checkfirst=True)


def _migration_5(conn: sa.Connection) -> None:
    """The tournaments table (issue 22)."""
    tournaments.create(conn, checkfirst=True)


def _migration_6(conn: sa.Connection) -> None:
    """The members' locales and each server's setup message (issue 30)."""
    for table in (member_locales, server_setup):
        table.create(conn, checkfirst=True)


def _migration_7(conn: sa.Connection) -> None:
    """Each game's dice tally (issue 31): a column of ``games`` (a database made since has it from migration 1)."""
    if "dice" not in {c["name"] for c in sa.inspect(conn).get_columns("games")}:
        conn.execute(sa.text("ALTER TABLE games ADD COLUMN dice TEXT"))


def _migration_8(conn: sa.Connection) -> None:
    """Names per server (issue 33): the ``member_names`` table, filled with the name each server's latest game that
    names a player gave them (a game's ``names``, written from the players' requests in that server). Read by
    ranges of game ids, so a large database is never read whole."""
    member_names.create(conn, checkfirst=True)
    latest: dict[tuple[str, str], str] = {}
    last = 0
    while True:
        rows = conn.execute(
            sa.select(games.c.id, games.c.guild_id, games.c.setup)
            .where(games.c.id > last)
            .order_by(games.c.id)
            .limit(500)
        ).all()
        if not rows:
            break
        for game_id, guild_id, setup in rows:
            last = game_id
            try:
                names = json.loads(setup).get("names")
            except (ValueError, AttributeError):
                continue
            if guild_id and isinstance(names, dict):
                for player_id, name in names.items():
                    if isinstance(name, str) and name and len(name) <= 100 and len(str(player_id)) <= 32:
                        latest[(str(guild_id), str(player_id))] = name
    rows_out = [{"guild_id": g, "player_id": p, "name": n} for (g, p), n in sorted(latest.items())]
    for k in range(0, len(rows_out), 500):
        conn.execute(member_names.insert(), rows_out[k : k + 500])


#: Numbered schema migrations, applied in order; never edit a released one, append a new one.
MIGRATIONS: list[Migration] = [
    _migration_1,
    _migration_2,
    _migration_3,
    _migration_4,
    _migration_5,
    _migration_6,
    _migration_7,
    _migration_8,
]
