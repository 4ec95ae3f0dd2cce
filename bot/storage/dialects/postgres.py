"""PostgreSQL through asyncpg: row locks, ``SKIP LOCKED`` claims, and the game update as one statement."""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from .base import Dialect, GameUpdate

__all__ = ["PostgresDialect"]


def _postgres_error() -> type[Exception]:
    import asyncpg  # type: ignore[import-untyped]

    return asyncpg.PostgresError  # type: ignore[no-any-return]


class PostgresDialect(Dialect):
    """PostgreSQL: the per-action update is a single statement, a single round trip on a pooled connection."""

    name: ClassVar[str] = "postgresql"
    default_pool_size: ClassVar[int] = 10

    def __init__(self) -> None:
        super().__init__()
        #: The one-statement text of the game update, by the game columns it sets.
        self._update_sql: dict[tuple[str, ...], str] = {}

    def connect_args(self, url: sa.URL, schema: str | None) -> dict[str, Any]:
        # postgresql://host/db?schema=name (or Store.open(schema=...)): the tables live in that schema.
        return {"server_settings": {"search_path": schema}} if schema else {}

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
