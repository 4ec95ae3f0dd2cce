"""Persistence: SQLAlchemy 2 (async) on SQLite by default, PostgreSQL from the same code.

A game is stored as its action log plus a snapshot. Every change to a game is one transaction that
compare-and-swaps the game's ``version`` and, for a match action, appends it to the log under the new
version number; the log's primary key (game, seq) makes a second writer of the same turn fail even if
the version check were bypassed. Two clicks or two processes can therefore never both apply a turn,
and whatever was acknowledged to a player was committed first.

Schema changes are numbered migrations applied on start-up (``schema_version`` table), under a lock
so that several processes starting together migrate once.

A game update (the per-action hot path) is sent to the database as cheaply as each back end allows, with
the same statements' effect and the same single transaction: on a SQLite file, one hop to a dedicated writer
thread that runs the whole transaction on its own connection; on PostgreSQL, one statement (the CAS ``UPDATE``
with the log and timer changes as data-modifying CTEs), a single round trip on the pooled asyncpg connection.
Connections are pooled (a burst queues for one rather than opening more), and players' and servers' settings,
read by every action, are served from a short-lived cache.

Every wait for the database is bounded (``Store.open``'s ``acquire_timeout`` and ``statement_timeout``): a call
that gets no connection in time, whose statement runs or waits for a lock too long, or whose connection is lost,
raises :class:`Unavailable` (its message is for the player: try again) instead of the driver's error. The
connection is then rolled back, or discarded when its state is unknown, and the game update, one transaction, is
applied whole or not at all.

Many servers share one store. Every game lookup takes a :class:`Scope` (one server's games, a direct message's
own games, or the system's all) and applies it in the query's ``WHERE``: a game outside the scope is
:class:`NotFound`, exactly like a missing one. Ratings, vacations and results belong to a server.

The package: ``schema`` (tables, migrations), ``rows`` (values and errors), ``store`` (opening, games and the unit
of work), ``timers``, ``community`` (results, ratings, watchers, vacations, settings, forgetting), ``consultation``
(team proposals, dice secrets), ``prompts`` (each live game's message with buttons), ``servers`` (members' locales,
the setup message), and ``dialects`` (every SQLite/PostgreSQL difference, one compare-and-swap each).
"""

from __future__ import annotations

from .dialects import Dialect, GameUpdate, PostgresDialect, SqliteDialect, Timeouts
from .prompts import LiveGame, Prompt
from .rows import ActionRow, Conflict, GameRow, GameStatus, NotFound, Scope, TimerRow, TimerSpec, Unavailable
from .schema import (
    MIGRATIONS,
    Migration,
    actions,
    game_players,
    game_secrets,
    games,
    guilds,
    member_locales,
    member_names,
    metadata,
    players,
    prompts,
    proposals,
    ratings,
    result_players,
    results,
    schema_version,
    server_setup,
    timers_table,
    vacations,
    watchers,
)
from .store import Store, log_lines, normalise_url

__all__ = [
    "Conflict",
    "NotFound",
    "Unavailable",
    "GameRow",
    "GameStatus",
    "ActionRow",
    "TimerSpec",
    "TimerRow",
    "Store",
    "Prompt",
    "LiveGame",
    "metadata",
    "normalise_url",
    "log_lines",
    "Scope",
    "MIGRATIONS",
    "Migration",
    "Dialect",
    "GameUpdate",
    "SqliteDialect",
    "PostgresDialect",
    "Timeouts",
    # the tables, for tests and maintenance tools
    "actions",
    "game_players",
    "game_secrets",
    "games",
    "guilds",
    "member_locales",
    "member_names",
    "players",
    "prompts",
    "proposals",
    "ratings",
    "result_players",
    "results",
    "schema_version",
    "server_setup",
    "timers_table",
    "vacations",
    "watchers",
]
