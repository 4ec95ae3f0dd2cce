"""PostgreSQL through asyncpg: row locks, ``SKIP LOCKED`` claims, and the game update as one statement.

Waits are bounded on both sides. Each connection is opened with the server's ``statement_timeout`` set (so the
server itself cancels a statement that runs, or waits for a lock, longer than the statement timeout, and the
connection stays usable), and with the driver's ``command_timeout`` half a second longer (so a stalled link, whose
server cannot answer at all, is given up on too; that connection is then closed, never reused). Opening a
connection is bounded by the acquire timeout, as is waiting for a free one of the pool.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from .base import Dialect, GameUpdate, Timeouts

__all__ = ["PostgresDialect"]

#: How much longer than the server's statement timeout the driver waits for an answer before giving up on the link.
CLIENT_GRACE = 0.5

#: A statement the server cancelled (the statement timeout): the connection itself is fine.
QUERY_CANCELED = "57014"

#: SQLSTATEs (or their two-character classes) meaning the database could not be reached in time: a lost connection
#: (08: connection exceptions; 57, but for a cancelled statement: the server shutting down or ending the session),
#: a statement cancelled by the statement timeout, too many connections, a lock not available in time.
_LOST_CLASSES = ("08", "57")
_UNREACHABLE_STATES = (QUERY_CANCELED, "53300", "55P03")

#: What the driver says of a connection it found lost, or whose protocol the server's farewell left mid-message
#: (a connection the store uses alone is never in use by another operation unless that happened).
_LOST_WORDS = ("connection is closed", "connection was closed", "another operation")


def _postgres_error() -> type[Exception]:
    import asyncpg  # type: ignore[import-untyped]

    return asyncpg.PostgresError  # type: ignore[no-any-return]


class PostgresDialect(Dialect):
    """PostgreSQL: the per-action update is a single statement, a single round trip on a pooled connection."""

    name: ClassVar[str] = "postgresql"
    default_pool_size: ClassVar[int] = 10

    def __init__(self, timeouts: Timeouts | None = None) -> None:
        super().__init__(timeouts)
        #: The one-statement text of the game update, by the game columns it sets.
        self._update_sql: dict[tuple[str, ...], str] = {}

    def connect_args(self, url: sa.URL, schema: str | None, *, bounded: bool = True) -> dict[str, Any]:
        # Sent with the connection's start-up message: no round trip of their own.
        settings: dict[str, str] = {}
        if schema:  # postgresql://host/db?schema=name (or Store.open(schema=...)): the tables live in that schema
            settings["search_path"] = schema
        args: dict[str, Any] = {"timeout": self.timeouts.acquire}  # opening a connection
        if bounded:
            settings["statement_timeout"] = str(max(1, round(self.timeouts.statement * 1000)))  # milliseconds
            args["command_timeout"] = self.timeouts.statement + CLIENT_GRACE
        if settings:
            args["server_settings"] = settings
        return args

    def driver_unreachable(self, exc: BaseException) -> bool:
        return self.lost(exc) or _sqlstate(exc) in _UNREACHABLE_STATES

    def lost(self, exc: BaseException) -> bool:
        state = _sqlstate(exc)
        if state is not None:
            return state[:2] in _LOST_CLASSES and state != QUERY_CANCELED
        # The driver's own errors (not its DataError: an argument it cannot encode is the caller's mistake).
        return type(exc).__name__ in ("InterfaceError", "InternalClientError") and any(
            w in str(exc) for w in _LOST_WORDS
        )

    def abandon(self, conn: sa.Connection | None) -> None:
        with contextlib.suppress(Exception):
            if conn is not None and not conn.invalidated:
                pg = conn.connection.driver_connection
                if pg is not None:
                    pg.terminate()

    async def lock(self, conn: AsyncConnection, key: str | int) -> None:
        if isinstance(key, int):
            await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})
        else:
            await conn.execute(sa.text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": key})

    async def select_for_update(
        self, conn: AsyncConnection, query: sa.Select[Any], *, of: sa.Table | None = None
    ) -> sa.CursorResult[Any]:
        result: sa.CursorResult[Any] = await conn.execute(query.with_for_update(of=of))
        return result

    def claimable(self, query: sa.Select[Any]) -> sa.Select[Any]:
        return query.with_for_update(skip_locked=True)

    def _statement(self, update: GameUpdate) -> tuple[str, list[Any]]:
        """The whole game update as one statement, and its arguments (the one compare-and-swap of PostgreSQL).

        The CAS ``UPDATE`` returns the game's id only when the version matched; the log insert, the timer delete
        and the timer insert each read from it, so they do nothing when it did not. Every part sees the same
        snapshot, so the delete only removes timers that were pending before this statement. It answers 1 when the
        update applied, 0 when it did not.
        """
        columns = tuple(update.values)
        sql = self._update_sql.get(columns)
        if sql is None:
            n = len(columns) + 2
            assignments = ", ".join(f"{c} = ${k}" for k, c in enumerate(columns, 3))
            sql = self._update_sql[columns] = (
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
        timer_rows = update.timers or []
        args = [
            update.game_id,
            update.expected_version,
            *update.values.values(),
            update.log_length,
            update.now,
            update.actions,
            update.timers is not None,
            update.version,
            [t[0] for t in timer_rows],
            [t[1] for t in timer_rows],
            [t[2] for t in timer_rows],
        ]
        return sql, args

    async def update_game(self, update: GameUpdate) -> bool:
        """One statement on its own (its own implicit transaction): one round trip."""
        sql, args = self._statement(update)
        return bool(await self.fetchval(sql, *args))

    async def update_game_in(self, conn: AsyncConnection, update: GameUpdate) -> bool:
        sql, args = self._statement(update)
        return bool((await conn.exec_driver_sql(sql, tuple(args))).scalar())

    async def settings_text(self, table: sa.Table, key: str) -> Any:
        # One round trip, no transaction around it.
        return await self.fetchval(f"SELECT settings FROM {table.name} WHERE id = $1", key)

    async def fetchval(self, sql: str, *args: Any) -> Any:
        """One statement on a pooled connection's asyncpg driver: its own implicit transaction, one round trip
        (the driver keeps it prepared). SQLAlchemy would add a BEGIN and a ROLLBACK or COMMIT round trip."""
        async with self.engine.connect() as conn:
            raw = await conn.get_raw_connection()
            pg = raw.driver_connection
            assert pg is not None
            try:
                return await pg.fetchval(sql, *args)
            except _postgres_error() as exc:
                # The statement failed and rolled back (the statement timeout: the server cancelled it); the
                # connection is fine unless the server ended the session (class 57: shut down, terminated; class 08:
                # connection exceptions).
                if self.lost(exc):
                    with contextlib.suppress(Exception):
                        await conn.invalidate()
                raise
            except BaseException as exc:
                # Cancelled, cut off, found lost or given up on (a stalled link) mid-statement: the connection's
                # state is unknown, so it is never reused; one that stopped answering is closed without waiting.
                if self.timed_out(exc) or self.lost(exc):
                    with contextlib.suppress(Exception):
                        pg.terminate()
                with contextlib.suppress(Exception):
                    await conn.invalidate()
                raise


def _sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a server's error (asyncpg's, or SQLAlchemy's adaptation of it), if it is one."""
    state = getattr(exc, "sqlstate", None)
    return state if isinstance(state, str) else None
