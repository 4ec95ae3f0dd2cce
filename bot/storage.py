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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

__all__ = [
    "Conflict",
    "NotFound",
    "GameRow",
    "ActionRow",
    "TimerSpec",
    "TimerRow",
    "Store",
    "metadata",
    "normalise_url",
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


ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("player_id", sa.String(32), primary_key=True),
    sa.Column("variant", sa.String(64), primary_key=True),
    sa.Column("system", sa.String(32), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("experience", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False, default=0),
    sa.Column("losses", sa.Integer, nullable=False, default=0),
    sa.Column("streak", sa.Integer, nullable=False, default=0),  # +n: n wins in a row, -n: n losses
    sa.Column("updated_at", sa.Float, nullable=False),
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


def _migration_1(conn: sa.Connection) -> None:
    for table in (games, game_players, actions, players, guilds, timers_table, vacations):
        table.create(conn, checkfirst=True)


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


def _migration_2(conn: sa.Connection) -> None:
    for table in (ratings, results, result_players, watchers, game_secrets, proposals):
        table.create(conn, checkfirst=True)


#: Numbered schema migrations, applied in order; never edit a released one, append a new one.
MIGRATIONS: list[Callable[[sa.Connection], None]] = [_migration_1, _migration_2]


class Conflict(RuntimeError):
    """The game changed since it was read (another click or process acted first)."""


class NotFound(LookupError):
    """No game with that id."""


@dataclass
class GameRow:
    """One stored game (or challenge) with its decoded JSON columns."""

    id: int
    guild_id: str
    status: str
    variant: str
    setup: dict[str, Any]
    version: int
    snapshot: dict[str, Any] | None = None
    draft: list[Any] | None = None
    clock: dict[str, Any] | None = None
    turn_player: str | None = None
    channel_id: str | None = None
    thread_id: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    players: dict[str, int | None] = field(default_factory=dict)


@dataclass(frozen=True)
class TimerSpec:
    """A timer to store: what fires, when, and what it needs to know."""

    kind: str
    due_at: float
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass
class TimerRow:
    id: int
    game_id: int | None
    kind: str
    due_at: float
    game_version: int | None
    payload: dict[str, Any]
    claimed_by: str | None
    fired_at: float | None


def _timer(r: Any) -> TimerRow:
    return TimerRow(
        r["id"],
        r["game_id"],
        r["kind"],
        r["due_at"],
        r["game_version"],
        json.loads(r["payload"]),
        r["claimed_by"],
        r["fired_at"],
    )


@dataclass
class ActionRow:
    seq: int
    action: dict[str, Any]
    at: float


def normalise_url(url: str) -> str:
    """Accept plain ``sqlite:///`` and ``postgresql://`` URLs and pick the async drivers."""
    if url.startswith("sqlite:///") or url == "sqlite://":
        return "sqlite+aiosqlite" + url[len("sqlite") :]
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+asyncpg://" + url.split("://", 1)[1]
    return url


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


class Store:
    """The game database. Create with :meth:`open`; every method is a coroutine."""

    def __init__(
        self, engine: AsyncEngine, *, clock: Callable[[], float] = time.time, settings_ttl: float = 5.0
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.dialect = engine.dialect.name
        #: Seconds a player's or server's settings, once read, are served from memory (every game action reads
        #: some). A change made through this store is seen at once; one made by another process within this
        #: many seconds. 0: always read the database.
        self.settings_ttl = settings_ttl
        self._settings_cache: dict[tuple[str, str], tuple[float, str | None]] = {}
        self._settings_generation = 0
        #: SQLite file: the writer thread of :meth:`update_game` (None: every update takes the general path).
        self._sqlite_writer: _SqliteWriter | None = None
        #: PostgreSQL: the one-statement text of :meth:`update_game`, by the game columns it sets.
        self._pg_update_sql: dict[tuple[str, ...], str] = {}

    # --- lifecycle ------------------------------------------------------------------------------
    @classmethod
    async def open(
        cls,
        url: str,
        *,
        clock: Callable[[], float] = time.time,
        sqlite_synchronous: str = "FULL",
        schema: str | None = None,
        echo: bool = False,
        settings_ttl: float = 5.0,
        pool_size: int | None = None,
    ) -> Store:
        """Connect, configure (SQLite: WAL, busy timeout) and migrate an empty or older database.

        ``pool_size``: connections kept open (default 10 on PostgreSQL, 5 on a SQLite file); that many at most, so
        that a busy moment queues for a connection instead of opening and closing extra ones (on PostgreSQL each is
        a server process to start, and the driver's set-up).
        """
        url = normalise_url(url)
        parsed = sa.engine.make_url(url)
        if "schema" in parsed.query:  # postgresql://host/db?schema=name: tables live in that schema
            schema = schema or str(parsed.query["schema"])
            url = parsed.difference_update_query(["schema"]).render_as_string(hide_password=False)
        kwargs: dict[str, Any] = {"echo": echo}
        if url.startswith("postgresql") and schema:
            kwargs["connect_args"] = {"server_settings": {"search_path": schema}}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": 30}
        in_memory = url.startswith("sqlite") and (parsed.database in (None, "", ":memory:") or "memory" in url)
        if not in_memory:
            kwargs["pool_size"] = pool_size or (10 if url.startswith("postgresql") else 5)
            kwargs["max_overflow"] = 0
        engine = create_async_engine(url, **kwargs)
        if engine.dialect.name == "sqlite":
            sync = sqlite_synchronous.upper()
            if sync not in ("OFF", "NORMAL", "FULL", "EXTRA"):
                raise ValueError(f"sqlite synchronous must be OFF, NORMAL, FULL or EXTRA, not {sqlite_synchronous!r}")

            @event.listens_for(engine.sync_engine, "connect")
            def _pragmas(dbapi_conn: Any, _record: Any) -> None:
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute(f"PRAGMA synchronous={sync}")
                cur.execute("PRAGMA busy_timeout=30000")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.close()

        store = cls(engine, clock=clock, settings_ttl=settings_ttl)
        await store.migrate()
        if engine.dialect.name == "sqlite":
            database = engine.url.database
            if database and database != ":memory:" and not database.startswith("file:") and not engine.url.query:
                store._sqlite_writer = _SqliteWriter(database, sqlite_synchronous.upper())
        return store

    async def close(self) -> None:
        if self._sqlite_writer is not None:
            await self._sqlite_writer.close()
            self._sqlite_writer = None
        await self.engine.dispose()

    async def migrate(self) -> int:
        """Apply the migrations this database lacks; returns the schema version now in force."""
        async with self.engine.begin() as conn:
            if self.dialect == "postgresql":
                await conn.execute(sa.text("SELECT pg_advisory_xact_lock(7302915)"))
            elif self.dialect == "sqlite":
                await _sqlite_write_lock(conn)
            await conn.run_sync(lambda c: schema_version.create(c, checkfirst=True))
            current = (await conn.execute(sa.select(sa.func.max(schema_version.c.version)))).scalar() or 0
            for number, step in enumerate(MIGRATIONS, 1):
                if number > current:
                    await conn.run_sync(step)
                    await conn.execute(schema_version.insert().values(version=number))
            return len(MIGRATIONS)

    # --- games ----------------------------------------------------------------------------------
    async def create_game(
        self,
        *,
        guild_id: str,
        status: str,
        variant: str,
        setup: dict[str, Any],
        players: dict[str, int | None],
        turn_player: str | None = None,
        snapshot: dict[str, Any] | None = None,
        channel_id: str | None = None,
    ) -> GameRow:
        now = self.clock()
        async with self.engine.begin() as conn:
            result = await conn.execute(
                games.insert().values(
                    guild_id=guild_id,
                    status=status,
                    variant=variant,
                    setup=_dump(setup),
                    version=0,
                    snapshot=None if snapshot is None else _dump(snapshot),
                    turn_player=turn_player,
                    channel_id=channel_id,
                    created_at=now,
                    updated_at=now,
                )
            )
            game_id = int(result.inserted_primary_key[0])  # type: ignore[index]
            if players:
                await conn.execute(
                    game_players.insert(), [{"game_id": game_id, "player_id": p, "side": s} for p, s in players.items()]
                )
        return await self.load_game(game_id)

    async def load_game(self, game_id: int) -> GameRow:
        async with self.engine.connect() as conn:
            return await self._load(conn, game_id)

    async def _load(self, conn: AsyncConnection, game_id: int) -> GameRow:
        row = (await conn.execute(sa.select(games).where(games.c.id == game_id))).mappings().first()
        if row is None:
            raise NotFound(f"there is no game #{game_id}")
        seats = (await conn.execute(sa.select(game_players).where(game_players.c.game_id == game_id))).all()
        return GameRow(
            id=row["id"],
            guild_id=row["guild_id"],
            status=row["status"],
            variant=row["variant"],
            setup=_load(row["setup"]),
            version=row["version"],
            snapshot=_load(row["snapshot"]),
            draft=_load(row["draft"]),
            clock=_load(row["clock"]),
            turn_player=row["turn_player"],
            channel_id=row["channel_id"],
            thread_id=row["thread_id"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            players={s.player_id: s.side for s in seats},
        )

    async def load_game_and_actions(self, game_id: int) -> tuple[GameRow, list[ActionRow]]:
        """A game and its action log as of one moment (retried if a write lands between the two reads)."""
        for _ in range(20):
            row = await self.load_game(game_id)
            log = await self.load_actions(game_id)
            async with self.engine.connect() as conn:
                version = (await conn.execute(sa.select(games.c.version).where(games.c.id == game_id))).scalar()
            if version == row.version:
                return row, log
        raise Conflict(f"game #{game_id} keeps changing while being read")

    async def load_actions(self, game_id: int) -> list[ActionRow]:
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    sa.select(actions.c.seq, actions.c.action, actions.c.at)
                    .where(actions.c.game_id == game_id)
                    .order_by(actions.c.seq)
                )
            ).all()
        return [ActionRow(r.seq, json.loads(r.action), r.at) for r in rows]

    async def update_game(
        self,
        game_id: int,
        expected_version: int,
        *,
        new_actions: Sequence[dict[str, Any]] = (),
        players: Mapping[str, int | None] | None = None,
        timers: Sequence[TimerSpec] | None = None,
        also: Callable[[AsyncConnection], Awaitable[None]] | None = None,
        log_length: int | None = None,
        **changes: Any,
    ) -> int:
        """Compare-and-swap: apply ``changes`` (and append ``new_actions``) only if the version still matches.

        Returns the new version. Raises :class:`Conflict` if someone else changed the game first.
        JSON columns (setup, snapshot, draft, clock) are encoded here; pass ``draft=None`` to clear it.
        ``timers`` (when not None) replaces the game's pending timers, in the same transaction, and ``also``
        runs further statements in it (a finished match's result and ratings).
        ``log_length``: how many actions the log held at ``expected_version``, when the caller knows it (it read
        the game at that version), so the new actions are numbered without reading the log; otherwise they
        continue from the last stored one. Either way the log's primary key refuses a duplicate number.
        """
        values: dict[str, Any] = {}
        for key, value in changes.items():
            if key in ("setup", "snapshot", "draft", "clock"):
                values[key] = None if value is None else _dump(value)
            elif key in ("status", "turn_player", "channel_id", "thread_id", "variant"):
                values[key] = value
            else:
                raise TypeError(f"games has no column {key!r} to update")
        now = self.clock()
        new_version = expected_version + 1
        values.update(version=new_version, updated_at=now)
        if also is None and not players and (self._sqlite_writer is not None or self.dialect == "postgresql"):
            encoded = [_dump(a) for a in new_actions]
            specs = None if timers is None else [(t.kind, float(t.due_at), _dump(t.payload)) for t in timers]
            if self._sqlite_writer is not None:
                done = await self._sqlite_writer.update_game(
                    game_id, expected_version, values, encoded, log_length, now, specs
                )
            else:
                done = await self._pg_update_game(game_id, expected_version, values, encoded, log_length, now, specs)
            if not done:
                await self._conflict(game_id, expected_version)
            return new_version
        async with self.engine.begin() as conn:
            result = await conn.execute(
                games.update().where(games.c.id == game_id, games.c.version == expected_version).values(**values)
            )
            if result.rowcount != 1:
                await self._conflict(game_id, expected_version, conn)
            if new_actions:
                # The log's seq numbers continue from the last one; the primary key refuses a duplicate.
                last = log_length
                if last is None:
                    last = (
                        await conn.execute(sa.select(sa.func.max(actions.c.seq)).where(actions.c.game_id == game_id))
                    ).scalar() or 0
                await conn.execute(
                    actions.insert(),
                    [
                        {"game_id": game_id, "seq": last + k, "action": _dump(a), "at": now}
                        for k, a in enumerate(new_actions, 1)
                    ],
                )
            if players:
                await conn.execute(
                    game_players.insert(), [{"game_id": game_id, "player_id": p, "side": s} for p, s in players.items()]
                )
            if timers is not None:
                await conn.execute(
                    timers_table.delete().where(timers_table.c.game_id == game_id, timers_table.c.fired_at.is_(None))
                )
                await self._insert_timers(conn, game_id, new_version, timers)
            if also is not None:
                await also(conn)
        return new_version

    async def update_setup(self, game_id: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        """Rewrite a game's stored setup with ``change`` (read and written in one locked transaction) without
        moving its version: for facts about the game's surroundings that no compare-and-swap judges (a team's
        private thread), so that a player's board and buttons stay current. Returns the new setup."""
        async with self.engine.begin() as conn:
            query = sa.select(games.c.setup).where(games.c.id == game_id)
            if self.dialect == "sqlite":
                await _sqlite_write_lock(conn)
            else:
                query = query.with_for_update()
            found = (await conn.execute(query)).first()
            if found is None:
                raise NotFound(f"there is no game #{game_id}")
            setup = change(_load(found[0]) or {})
            await conn.execute(games.update().where(games.c.id == game_id).values(setup=_dump(setup)))
        return setup

    async def _conflict(self, game_id: int, expected_version: int, conn: AsyncConnection | None = None) -> None:
        """Raise why a compare-and-swap on the game failed: NotFound, or Conflict naming the versions."""
        query = sa.select(games.c.version).where(games.c.id == game_id)
        if conn is None:
            async with self.engine.connect() as fresh:
                exists = (await fresh.execute(query)).first()
        else:
            exists = (await conn.execute(query)).first()
        if exists is None:
            raise NotFound(f"there is no game #{game_id}")
        raise Conflict(f"game #{game_id} changed (version {exists[0]}, expected {expected_version})")

    async def _pg_update_game(
        self,
        game_id: int,
        expected_version: int,
        values: dict[str, Any],
        encoded: list[str],
        log_length: int | None,
        now: float,
        specs: list[tuple[str, float, str]] | None,
    ) -> bool:
        """The whole game update as one statement (one round trip, its own transaction); False if the CAS failed.

        The CAS ``UPDATE`` returns the game's id only when the version matched; the log insert, the timer delete
        and the timer insert each read from it, so they do nothing when it did not. Every part sees the same
        snapshot, so the delete only removes timers that were pending before this statement.
        """
        columns = tuple(values)
        sql = self._pg_update_sql.get(columns)
        if sql is None:
            n = len(columns) + 2
            assignments = ", ".join(f"{c} = ${k}" for k, c in enumerate(columns, 3))
            sql = self._pg_update_sql[columns] = (
                f"WITH g AS (UPDATE games SET {assignments} WHERE id = $1 AND version = $2 RETURNING id), "
                f"a AS (INSERT INTO actions (game_id, seq, action, at) "
                f"SELECT g.id, COALESCE(${n + 1}::integer, "
                f"(SELECT max(seq) FROM actions WHERE game_id = $1), 0) + u.ord, u.act, ${n + 2}::float8 "
                f"FROM g, unnest(${n + 3}::text[]) WITH ORDINALITY AS u(act, ord)), "
                f"d AS (DELETE FROM timers WHERE ${n + 4}::boolean AND game_id = $1 AND fired_at IS NULL "
                f"AND EXISTS (SELECT 1 FROM g)), "
                f"t AS (INSERT INTO timers (game_id, kind, due_at, game_version, payload) "
                f"SELECT g.id, u.kind, u.due, ${n + 5}::integer, u.payload "
                f"FROM g, unnest(${n + 6}::text[], ${n + 7}::float8[], ${n + 8}::text[]) AS u(kind, due, payload)) "
                f"SELECT count(*) FROM g"
            )
        timer_rows = specs or []
        args = [
            game_id,
            expected_version,
            *values.values(),
            log_length,
            now,
            encoded,
            specs is not None,
            values["version"],
            [t[0] for t in timer_rows],
            [t[1] for t in timer_rows],
            [t[2] for t in timer_rows],
        ]
        return bool(await self._pg_fetchval(sql, *args))

    async def _pg_fetchval(self, sql: str, *args: Any) -> Any:
        """One statement on a pooled connection's asyncpg driver: its own implicit transaction, one round trip
        (the driver keeps it prepared). SQLAlchemy would add a BEGIN and a ROLLBACK or COMMIT round trip."""
        async with self.engine.connect() as conn:
            raw = await conn.get_raw_connection()
            pg = raw.driver_connection
            assert pg is not None
            try:
                return await pg.fetchval(sql, *args)
            except _postgres_error() as exc:
                # The statement failed and rolled back; the connection is fine unless the server ended the session
                # (class 57: shut down, terminated; class 08: connection exceptions).
                if str(getattr(exc, "sqlstate", "") or "")[:2] in ("57", "08"):
                    with contextlib.suppress(Exception):
                        await conn.invalidate()
                raise
            except BaseException:
                # Cancelled or cut off mid-statement: the connection's state is unknown, so it is never reused.
                with contextlib.suppress(Exception):
                    await conn.invalidate()
                raise

    async def _insert_timers(
        self, conn: AsyncConnection, game_id: int | None, version: int | None, specs: Sequence[TimerSpec]
    ) -> None:
        if specs:
            await conn.execute(
                timers_table.insert(),
                [
                    {
                        "game_id": game_id,
                        "kind": t.kind,
                        "due_at": t.due_at,
                        "game_version": version,
                        "payload": _dump(t.payload),
                    }
                    for t in specs
                ],
            )

    # --- timers ---------------------------------------------------------------------------------
    async def add_timers(
        self, game_id: int | None, specs: Sequence[TimerSpec], game_version: int | None = None
    ) -> None:
        async with self.engine.begin() as conn:
            await self._insert_timers(conn, game_id, game_version, specs)

    async def pending_timers(self, game_id: int | None = None) -> list[TimerRow]:
        async with self.engine.connect() as conn:
            query = sa.select(timers_table).where(timers_table.c.fired_at.is_(None)).order_by(timers_table.c.due_at)
            if game_id is not None:
                query = query.where(timers_table.c.game_id == game_id)
            return [_timer(r) for r in (await conn.execute(query)).mappings().all()]

    async def next_due(self) -> float | None:
        """When the earliest pending timer is due (None when nothing is pending)."""
        async with self.engine.connect() as conn:
            due = (
                await conn.execute(
                    sa.select(sa.func.min(timers_table.c.due_at)).where(timers_table.c.fired_at.is_(None))
                )
            ).scalar()
        return None if due is None else float(due)

    async def claim_due_timers(
        self, now: float, worker: str, *, limit: int = 100, lease: float = 60.0
    ) -> list[TimerRow]:
        """Claim up to ``limit`` due timers for ``worker`` (a lease: unfinished claims return after ``lease`` s).

        PostgreSQL: ``FOR UPDATE SKIP LOCKED``, so workers in several processes never claim the same timer.
        SQLite: the single statement runs under the database's one writer lock, with the same effect.
        """
        t = timers_table
        due = (
            sa.select(t.c.id)
            .where(
                t.c.fired_at.is_(None),
                t.c.due_at <= now,
                sa.or_(t.c.claimed_until.is_(None), t.c.claimed_until < now),
            )
            .order_by(t.c.due_at)
            .limit(limit)
        )
        if self.dialect == "postgresql":
            due = due.with_for_update(skip_locked=True)
        stmt = (
            t.update()
            .where(t.c.id.in_(due.scalar_subquery()))
            .values(claimed_by=worker, claimed_until=now + lease)
            .returning(*t.c)
        )
        async with self.engine.begin() as conn:
            rows = (await conn.execute(stmt)).mappings().all()
        return sorted((_timer(r) for r in rows), key=lambda r: (r.due_at, r.id))

    async def finish_timers(self, timer_ids: Sequence[int], worker: str, now: float) -> int:
        """Mark claimed timers fired; returns how many were still this worker's (the rest were taken over)."""
        if not timer_ids:
            return 0
        t = timers_table
        async with self.engine.begin() as conn:
            result = await conn.execute(
                t.update()
                .where(t.c.id.in_(list(timer_ids)), t.c.claimed_by == worker, t.c.fired_at.is_(None))
                .values(fired_at=now)
            )
        return int(result.rowcount)

    async def timers_taken_over(self, timer_ids: Sequence[int], worker: str) -> int:
        """How many of these timers another worker holds now (a timer whose firing changed its game is gone:
        the change replaced the game's timers, so it is not counted)."""
        if not timer_ids:
            return 0
        t = timers_table
        async with self.engine.connect() as conn:
            query = sa.select(sa.func.count()).where(t.c.id.in_(list(timer_ids)), t.c.claimed_by != worker)
            return int((await conn.execute(query)).scalar() or 0)

    # --- team consultation ----------------------------------------------------------------------
    async def add_proposal(self, game_id: int, side: int, author: str, kind: str, text: str, turn: int) -> int:
        async with self.engine.begin() as conn:
            if kind == "held":  # one held play per team and turn: a newer one replaces it
                await conn.execute(
                    proposals.update()
                    .where(
                        proposals.c.game_id == game_id,
                        proposals.c.side == side,
                        proposals.c.kind == "held",
                        proposals.c.status == "open",
                    )
                    .values(status="stale")
                )
            result = await conn.execute(
                proposals.insert().values(
                    game_id=game_id,
                    side=side,
                    author=author,
                    kind=kind,
                    text=text,
                    turn=turn,
                    status="open",
                    created_at=self.clock(),
                )
            )
            return int(result.inserted_primary_key[0])  # type: ignore[index]

    async def open_proposals(self, game_id: int, side: int, turn: int) -> list[dict[str, Any]]:
        async with self.engine.connect() as conn:
            rows = (
                (
                    await conn.execute(
                        sa.select(proposals)
                        .where(
                            proposals.c.game_id == game_id,
                            proposals.c.side == side,
                            proposals.c.turn == turn,
                            proposals.c.status == "open",
                        )
                        .order_by(proposals.c.id)
                    )
                )
                .mappings()
                .all()
            )
        return [dict(r) for r in rows]

    async def proposal(self, proposal_id: int) -> dict[str, Any] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(proposals).where(proposals.c.id == proposal_id))).mappings().first()
        return None if row is None else dict(row)

    async def close_proposal(self, proposal_id: int, status: str) -> bool:
        """Mark an open proposal adopted/approved/rejected; False if it was no longer open."""
        async with self.engine.begin() as conn:
            result = await conn.execute(
                proposals.update()
                .where(proposals.c.id == proposal_id, proposals.c.status == "open")
                .values(status=status)
            )
        return result.rowcount == 1

    # --- dice secrets ---------------------------------------------------------------------------
    async def put_secret(self, game_id: int, seed_hex: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(game_secrets.insert().values(game_id=game_id, seed=seed_hex))

    async def secret(self, game_id: int) -> str | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(game_secrets.c.seed).where(game_secrets.c.game_id == game_id))).first()
        return None if row is None else str(row[0])

    # --- results, ratings, watchers --------------------------------------------------------------
    async def lock_ratings(
        self, conn: AsyncConnection, player_ids: Sequence[str], variant: str, system: str
    ) -> dict[str, dict[str, Any]]:
        """The current rating rows of ``player_ids`` (locked for this transaction on PostgreSQL)."""
        query = sa.select(ratings).where(
            ratings.c.player_id.in_(list(player_ids)), ratings.c.variant == variant, ratings.c.system == system
        )
        if self.dialect == "postgresql":
            query = query.with_for_update()
        rows = (await conn.execute(query)).mappings().all()
        return {r["player_id"]: dict(r) for r in rows}

    async def put_rating(self, conn: AsyncConnection, row: dict[str, Any], *, exists: bool) -> None:
        keys = {"player_id": row["player_id"], "variant": row["variant"], "system": row["system"]}
        values = {k: v for k, v in row.items() if k not in keys}
        if exists:
            await conn.execute(ratings.update().where(*(ratings.c[k] == v for k, v in keys.items())).values(**values))
        else:
            await conn.execute(ratings.insert().values(**row))

    async def put_result(
        self,
        conn: AsyncConnection,
        *,
        game_id: int,
        guild_id: str,
        variant: str,
        length: int,
        data: dict[str, Any],
        rated: bool,
        finished_at: float,
        won: dict[str, bool],
    ) -> None:
        await conn.execute(
            results.insert().values(
                game_id=game_id,
                guild_id=guild_id,
                variant=variant,
                length=length,
                data=_dump(data),
                rated=rated,
                finished_at=finished_at,
            )
        )
        await conn.execute(
            result_players.insert(), [{"game_id": game_id, "player_id": p, "won": w} for p, w in won.items()]
        )

    async def ratings_of(self, player_id: str, system: str) -> list[dict[str, Any]]:
        async with self.engine.connect() as conn:
            rows = (
                (
                    await conn.execute(
                        sa.select(ratings)
                        .where(ratings.c.player_id == player_id, ratings.c.system == system)
                        .order_by(ratings.c.variant)
                    )
                )
                .mappings()
                .all()
            )
        return [dict(r) for r in rows]

    async def leaderboard(
        self, guild_id: str, variant: str, system: str, *, min_matches: int = 1, limit: int = 20
    ) -> list[dict[str, Any]]:
        """Players who finished a rated match of ``variant`` on this server, best rating first."""
        async with self.engine.connect() as conn:
            here = (
                sa.select(result_players.c.player_id)
                .join(results, results.c.game_id == result_players.c.game_id)
                .where(results.c.guild_id == guild_id, results.c.variant == variant, results.c.rated.is_(True))
                .distinct()
            )
            query = (
                sa.select(ratings, players.c.name)
                .join(players, players.c.id == ratings.c.player_id, isouter=True)
                .where(
                    ratings.c.variant == variant,
                    ratings.c.system == system,
                    ratings.c.player_id.in_(here.scalar_subquery()),
                    (ratings.c.wins + ratings.c.losses) >= min_matches,
                )
                .order_by(ratings.c.rating.desc(), ratings.c.player_id)
                .limit(limit)
            )
            rows = (await conn.execute(query)).mappings().all()
        return [dict(r) for r in rows]

    async def results_of(
        self, *, player_id: str | None = None, guild_id: str | None = None, limit: int = 20
    ) -> list[dict[str, Any]]:
        """Finished matches, newest first: all of a server's, or one player's."""
        async with self.engine.connect() as conn:
            query = sa.select(results, games.c.thread_id, games.c.channel_id).join(
                games, games.c.id == results.c.game_id
            )
            if player_id is not None:
                query = query.join(result_players, result_players.c.game_id == results.c.game_id).where(
                    result_players.c.player_id == player_id
                )
            if guild_id is not None:
                query = query.where(results.c.guild_id == guild_id)
            rows = (await conn.execute(query.order_by(results.c.finished_at.desc()).limit(limit))).mappings().all()
        return [{**dict(r), "data": json.loads(r["data"])} for r in rows]

    async def watch(self, game_id: int, player_id: str, on: bool = True) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                watchers.delete().where(watchers.c.game_id == game_id, watchers.c.player_id == player_id)
            )
            if on:
                await conn.execute(watchers.insert().values(game_id=game_id, player_id=player_id))

    async def watchers_of(self, game_id: int) -> list[str]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(watchers.c.player_id).where(watchers.c.game_id == game_id))).all()
        return sorted(r[0] for r in rows)

    async def forget_player(self, player_id: str, replacement: str) -> int:
        """Remove what is personal about a player; match records keep their place under ``replacement``."""
        self._settings_changed("players", player_id)
        try:
            return await self._forget_player(player_id, replacement)
        finally:
            self._settings_changed("players", player_id)

    async def _forget_player(self, player_id: str, replacement: str) -> int:
        changed = 0
        async with self.engine.begin() as conn:
            await conn.execute(
                players.update().where(players.c.id == player_id).values(name=replacement, settings="{}")
            )
            await conn.execute(vacations.delete().where(vacations.c.player_id == player_id))
            await conn.execute(watchers.delete().where(watchers.c.player_id == player_id))
            ids = [
                r[0]
                for r in (
                    await conn.execute(sa.select(game_players.c.game_id).where(game_players.c.player_id == player_id))
                ).all()
            ]
            for game_id in ids:
                row = (await conn.execute(sa.select(games.c.setup).where(games.c.id == game_id))).first()
                if row is not None:
                    setup = json.loads(row[0])
                    if _rename(setup, player_id, replacement):
                        await conn.execute(games.update().where(games.c.id == game_id).values(setup=_dump(setup)))
                        changed += 1
                res = (await conn.execute(sa.select(results.c.data).where(results.c.game_id == game_id))).first()
                if res is not None:
                    data = json.loads(res[0])
                    if _rename(data, player_id, replacement):
                        await conn.execute(
                            results.update().where(results.c.game_id == game_id).values(data=_dump(data))
                        )
        return changed

    # --- vacations ------------------------------------------------------------------------------
    async def add_vacation(self, player_id: str, guild_id: str, start: float, end: float) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(vacations.insert().values(player_id=player_id, guild_id=guild_id, start=start, end=end))

    async def vacations_of(self, player_id: str, since: float = 0.0) -> list[tuple[float, float]]:
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    sa.select(vacations.c.start, vacations.c.end)
                    .where(vacations.c.player_id == player_id, vacations.c.end > since)
                    .order_by(vacations.c.start)
                )
            ).all()
        return [(float(a), float(b)) for a, b in rows]

    async def games_of(
        self, player_id: str, *, guild_id: str | None = None, statuses: Sequence[str] = ("challenge", "active")
    ) -> list[GameRow]:
        """The games a player sits in (or was challenged to), newest first."""
        async with self.engine.connect() as conn:
            query = (
                sa.select(games.c.id)
                .join(game_players, game_players.c.game_id == games.c.id)
                .where(game_players.c.player_id == player_id, games.c.status.in_(list(statuses)))
                .order_by(games.c.updated_at.desc())
            )
            if guild_id is not None:
                query = query.where(games.c.guild_id == guild_id)
            ids = [r[0] for r in (await conn.execute(query)).all()]
            return [await self._load(conn, i) for i in ids]

    async def games_where(self, *, status: str, guild_id: str | None = None, limit: int = 1000) -> list[GameRow]:
        async with self.engine.connect() as conn:
            query = sa.select(games.c.id).where(games.c.status == status).order_by(games.c.id).limit(limit)
            if guild_id is not None:
                query = query.where(games.c.guild_id == guild_id)
            ids = [r[0] for r in (await conn.execute(query)).all()]
            return [await self._load(conn, i) for i in ids]

    # --- settings -------------------------------------------------------------------------------
    async def _settings(self, table: sa.Table, key: str) -> dict[str, Any]:
        """A player's or server's stored settings, read through a short-lived cache (see ``settings_ttl``)."""
        now = time.monotonic()
        cached = self._settings_cache.get((table.name, key))
        if cached is not None and cached[0] > now:
            text = cached[1]
        else:
            generation = self._settings_generation
            if self._sqlite_writer is not None:  # one hop to the writer's thread (several through aiosqlite)
                found = await self._sqlite_writer.fetchval(f"SELECT settings FROM {table.name} WHERE id = ?", (key,))
            elif self.dialect == "postgresql":  # one round trip, no transaction around it
                found = await self._pg_fetchval(f"SELECT settings FROM {table.name} WHERE id = $1", key)
            else:
                async with self.engine.connect() as conn:
                    found = (await conn.execute(sa.select(table.c.settings).where(table.c.id == key))).scalar()
            text = None if found is None else str(found)
            if generation == self._settings_generation and self.settings_ttl > 0:  # no write meanwhile
                if len(self._settings_cache) >= 100_000:
                    self._settings_cache.clear()
                self._settings_cache[(table.name, key)] = (now + self.settings_ttl, text)
        return {} if text is None else dict(json.loads(text))

    def _settings_changed(self, table: str | None = None, key: str | None = None) -> None:
        self._settings_generation += 1
        if table is None or key is None:
            self._settings_cache.clear()
        else:
            self._settings_cache.pop((table, key), None)

    async def player_settings(self, player_id: str) -> dict[str, Any]:
        return await self._settings(players, player_id)

    async def save_player(self, player_id: str, name: str, settings: dict[str, Any] | None = None) -> None:
        await self._upsert(
            players, player_id, {"name": name, **({} if settings is None else {"settings": _dump(settings)})}
        )

    async def player_name(self, player_id: str) -> str | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(players.c.name).where(players.c.id == player_id))).first()
        return None if row is None else str(row[0])

    async def guild_settings(self, guild_id: str) -> dict[str, Any]:
        return await self._settings(guilds, guild_id)

    async def save_guild_settings(self, guild_id: str, settings: dict[str, Any]) -> None:
        await self._upsert(guilds, guild_id, {"settings": _dump(settings)})

    async def _upsert(self, table: sa.Table, key: str, values: dict[str, Any]) -> None:
        self._settings_changed(table.name, key)
        try:
            await self._upsert_now(table, key, values)
        finally:
            self._settings_changed(table.name, key)

    async def _upsert_now(self, table: sa.Table, key: str, values: dict[str, Any]) -> None:
        async with self.engine.begin() as conn:
            if self.dialect == "sqlite":
                await _sqlite_write_lock(conn)
            elif self.dialect == "postgresql":
                await conn.execute(sa.text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": f"{table.name}:{key}"})
            exists = (await conn.execute(sa.select(table.c.id).where(table.c.id == key))).first()
            if exists:
                if values:
                    await conn.execute(table.update().where(table.c.id == key).values(**values))
            else:
                defaults = {"settings": "{}"} if "settings" in table.c else {}
                if table is players and "name" not in values:
                    values = {**values, "name": key}
                await conn.execute(table.insert().values(id=key, **{**defaults, **values}))

    async def run(self, fn: Callable[[AsyncConnection], Awaitable[Any]]) -> Any:
        """Run ``fn(conn)`` in one transaction (for tests and maintenance tools)."""
        self._settings_changed()
        try:
            async with self.engine.begin() as conn:
                return await fn(conn)
        finally:
            self._settings_changed()


def _postgres_error() -> type[Exception]:
    import asyncpg  # type: ignore[import-untyped]

    return asyncpg.PostgresError  # type: ignore[no-any-return]


class _SqliteWriter:
    """A SQLite connection of its own in a thread of its own, for the game update of :meth:`Store.update_game`.

    Through aiosqlite every statement, cursor and fetch is a separate hop to the connection's thread (several
    per statement); here the whole transaction is one hop. Its effect is the general path's: ``BEGIN
    IMMEDIATE``, the CAS ``UPDATE``, the log insert, the timer replacement, ``COMMIT`` (or ``ROLLBACK`` when the
    version did not match or anything failed). The other connections of the store see it like any other writer.
    Settings are read here too (one hop). Nothing may wait for this thread while holding a write transaction on
    another connection of the store (the thread may be waiting for that lock): ``also`` callbacks and
    :meth:`Store.run` functions use the connection they are given.
    """

    def __init__(self, path: str, synchronous: str) -> None:
        self._path = path
        self._synchronous = synchronous
        self._conn: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gammonbot-sqlite-writer")
        self._sql: dict[tuple[str, ...], str] = {}

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(self._path, timeout=30, isolation_level=None)  # transactions are explicit
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self._synchronous}")
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("PRAGMA foreign_keys=ON")
            self._conn = conn
        return self._conn

    async def update_game(
        self,
        game_id: int,
        expected_version: int,
        values: dict[str, Any],
        encoded: list[str],
        log_length: int | None,
        now: float,
        specs: list[tuple[str, float, str]] | None,
    ) -> bool:
        columns = tuple(values)
        sql = self._sql.get(columns)
        if sql is None:
            assignments = ", ".join(f"{c} = ?" for c in columns)
            sql = self._sql[columns] = f"UPDATE games SET {assignments} WHERE id = ? AND version = ?"
        params = (*values.values(), game_id, expected_version)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._thread, self._update, sql, params, game_id, encoded, log_length, now, specs, values["version"]
        )

    def _update(
        self,
        sql: str,
        params: tuple[Any, ...],
        game_id: int,
        encoded: list[str],
        log_length: int | None,
        now: float,
        specs: list[tuple[str, float, str]] | None,
        version: int,
    ) -> bool:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute(sql, params).rowcount != 1:
                conn.execute("ROLLBACK")
                return False
            if encoded:
                last = log_length
                if last is None:
                    last = conn.execute("SELECT max(seq) FROM actions WHERE game_id = ?", (game_id,)).fetchone()[0] or 0
                conn.executemany(
                    "INSERT INTO actions (game_id, seq, action, at) VALUES (?, ?, ?, ?)",
                    [(game_id, last + k, a, now) for k, a in enumerate(encoded, 1)],
                )
            if specs is not None:
                conn.execute("DELETE FROM timers WHERE game_id = ? AND fired_at IS NULL", (game_id,))
                if specs:
                    conn.executemany(
                        "INSERT INTO timers (game_id, kind, due_at, game_version, payload) VALUES (?, ?, ?, ?, ?)",
                        [(game_id, kind, due, version, payload) for kind, due, payload in specs],
                    )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return True

    async def fetchval(self, sql: str, params: tuple[Any, ...]) -> Any:
        """The first column of the first row of a query (None when there is none), read in the writer's thread."""

        def read() -> Any:
            row = self._connection().execute(sql, params).fetchone()
            return None if row is None else row[0]

        return await asyncio.get_running_loop().run_in_executor(self._thread, read)

    async def close(self) -> None:
        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        await asyncio.get_running_loop().run_in_executor(self._thread, shut)
        self._thread.shutdown(wait=True)


def _rename(data: Any, player_id: str, replacement: str) -> bool:
    """Replace the display name of ``player_id`` in every ``names`` mapping inside ``data``."""
    found = False
    if isinstance(data, dict):
        names = data.get("names")
        if isinstance(names, dict) and player_id in names:
            names[player_id] = replacement
            found = True
        for value in data.values():
            found = _rename(value, player_id, replacement) or found
    elif isinstance(data, list):
        for value in data:
            found = _rename(value, player_id, replacement) or found
    return found


async def _sqlite_write_lock(conn: AsyncConnection) -> None:
    """Take SQLite's write lock now, so a read-then-write transaction cannot interleave with another."""
    # A no-op write makes pysqlite open the transaction and SQLite take the RESERVED lock.
    await conn.execute(sa.text("CREATE TABLE IF NOT EXISTS _write_lock (id INTEGER)"))
    await conn.execute(sa.text("DELETE FROM _write_lock"))
