"""SQLite (a file, or memory for quick experiments): WAL, one writer at a time, and a writer thread of its own.

Waits are bounded: a connection waits for another's write lock at most the statement timeout (SQLite's busy
timeout), a call waits for a free connection of the pool, and a game update, a timer write or a settings read for
its thread to take it up, at most the acquire timeout. A statement that then finds the database still locked fails
with "database is locked", and its transaction is rolled back.
"""

from __future__ import annotations

from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .base import Dialect, GameUpdate, Plan, Step, Timeouts
from .sqlite_writer import LOCKED, SqliteReader, SqliteWriter, locked, set_pragmas

__all__ = ["SqliteDialect"]

SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")

#: Seconds a migration's connection waits for another's write lock (another process migrating, say).
MAINTENANCE_BUSY_TIMEOUT = 30.0

#: The same words, for callers that imported them from here.
_LOCKED = LOCKED


def _compare_and_swap(update: GameUpdate, sql: str) -> Plan:
    """The game update, statement by statement (the one compare-and-swap of SQLite, whoever runs it).

    The ``UPDATE`` changes the game only if its version still matches; then the log is numbered on and the pending
    timers are replaced. Returns False (having changed nothing) when the version did not match.
    """
    changed = yield Step("count", sql, (*update.values.values(), update.game_id, update.expected_version))
    if changed != 1:
        return False
    if update.actions:
        last = update.log_length
        if last is None:
            last = (yield Step("value", "SELECT max(seq) FROM actions WHERE game_id = ?", (update.game_id,))) or 0
        yield Step(
            "many",
            "INSERT INTO actions (game_id, seq, action, at) VALUES (?, ?, ?, ?)",
            [(update.game_id, last + k, a, update.now) for k, a in enumerate(update.actions, 1)],
        )
    if update.timers is not None:
        yield Step("count", "DELETE FROM timers WHERE game_id = ? AND fired_at IS NULL", (update.game_id,))
        if update.timers:
            yield Step(
                "many",
                "INSERT INTO timers (game_id, kind, due_at, game_version, payload) VALUES (?, ?, ?, ?, ?)",
                [(update.game_id, kind, due, update.version, payload) for kind, due, payload in update.timers],
            )
    return True


class SqliteDialect(Dialect):
    """SQLite through aiosqlite, with the game update and settings reads on a writer thread of its own."""

    name: ClassVar[str] = "sqlite"
    default_pool_size: ClassVar[int] = 5

    def __init__(self, synchronous: str = "FULL", timeouts: Timeouts | None = None) -> None:
        super().__init__(timeouts)
        sync = synchronous.upper()
        if sync not in SYNCHRONOUS:
            raise ValueError(f"sqlite synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous!r}")
        self.synchronous = sync
        #: The writer thread of a SQLite file (None: in memory, or not started; updates take the general path).
        self.writer: SqliteWriter | None = None
        #: The reader thread of a SQLite file, for short reads of their own (None with the writer).
        self.reader: SqliteReader | None = None
        self._update_sql: dict[tuple[str, ...], str] = {}

    def busy_timeout(self, bounded: bool = True) -> float:
        """Seconds a statement waits for another connection's write lock (SQLite's busy timeout)."""
        return self.timeouts.statement if bounded else MAINTENANCE_BUSY_TIMEOUT

    def connect_args(self, url: sa.URL, schema: str | None, *, bounded: bool = True) -> dict[str, Any]:
        return {"timeout": self.busy_timeout(bounded)}

    def driver_unreachable(self, exc: BaseException) -> bool:
        return locked(exc)

    def pooled(self, url: sa.URL) -> bool:
        return not (url.database in (None, "", ":memory:") or "memory" in url.render_as_string())

    def configure(self, engine: AsyncEngine, *, bounded: bool = True) -> None:
        sync, busy = self.synchronous, self.busy_timeout(bounded)

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            set_pragmas(cur, sync, busy)
            cur.close()

    async def start(self) -> None:
        url = self.engine.url
        database = url.database
        if database and database != ":memory:" and not database.startswith("file:") and not url.query:
            self.writer = SqliteWriter(database, self.synchronous, self.timeouts)
            self.reader = SqliteReader(database, self.synchronous, self.timeouts)

    async def close(self) -> None:
        for thread in (self.writer, self.reader):
            if thread is not None:
                await thread.close()
        self.writer = self.reader = None

    async def lock(self, conn: AsyncConnection, key: str | int) -> None:
        # SQLite has one lock for writers: take it now, whatever the key.
        await write_lock(conn)

    async def select_for_update(
        self, conn: AsyncConnection, query: sa.Select[Any], *, of: sa.Table | None = None
    ) -> sa.CursorResult[Any]:
        await write_lock(conn)
        result: sa.CursorResult[Any] = await conn.execute(query)
        return result

    def _sql(self, update: GameUpdate) -> str:
        columns = tuple(update.values)
        sql = self._update_sql.get(columns)
        if sql is None:
            assignments = ", ".join(f"{c} = ?" for c in columns)
            sql = self._update_sql[columns] = f"UPDATE games SET {assignments} WHERE id = ? AND version = ?"
        return sql

    async def update_game(self, update: GameUpdate) -> bool:
        """On a file: one hop to the writer thread, which runs the whole transaction. In memory: the general path."""
        if self.writer is None:
            return await super().update_game(update)
        return bool(await self.writer.run(_compare_and_swap(update, self._sql(update))))

    async def update_game_and(self, update: GameUpdate, more: Plan) -> bool:
        """On a file: one hop to the writer thread, which runs the compare-and-swap and ``more`` in its transaction.
        In memory: the general path."""
        if self.writer is None:
            return await super().update_game_and(update, more)

        def plan() -> Plan:
            if not (yield from _compare_and_swap(update, self._sql(update))):
                return False
            yield from self._driver_steps(more)
            return True

        return bool(await self.writer.run(plan()))

    async def update_game_in(self, conn: AsyncConnection, update: GameUpdate) -> bool:
        plan = _compare_and_swap(update, self._sql(update))
        answer: Any = None
        try:
            while True:
                step = plan.send(answer)
                result = await conn.exec_driver_sql(step.sql, step.params)
                answer = result.scalar() if step.kind == "value" else result.rowcount
        except StopIteration as stop:
            return bool(stop.value)

    async def transaction(self, plan: Plan) -> Any:
        """On a file: one hop to the writer thread, which runs the whole plan in its transaction (committed with the
        writes waiting with it; it keeps its changes unless it raises). In memory: the general path."""
        if self.writer is None:
            return await super().transaction(plan)
        return await self.writer.run(self._driver_steps(plan), keep=_always)

    def _driver_steps(self, plan: Plan) -> Plan:
        """``plan`` as the writer thread runs it: statements compiled to SQLite's SQL (in the thread), ``lock`` steps
        left out (the writer's transaction holds SQLite's one write lock from its start)."""
        answer: Any = None
        try:
            while True:
                step = plan.send(answer)
                if step.kind == "lock":
                    answer = None
                    continue
                if not isinstance(step.sql, str):
                    step = Step("rows" if step.kind == "locked" else step.kind, *self._compiled(step.sql))
                answer = yield step
        except StopIteration as stop:
            return stop.value

    async def settings_text(self, table: sa.Table, key: str) -> Any:
        if self.writer is None:
            return await super().settings_text(table, key)
        # One hop to the writer's thread (several through aiosqlite).
        return await self.writer.fetchval(f"SELECT settings FROM {table.name} WHERE id = ?", (key,))

    async def read(self, query: sa.Select[Any]) -> list[tuple[Any, ...]]:
        """On a file: one hop to the reader thread. In memory: the general path."""
        if self.reader is None:
            return await super().read(query)
        sql, params = self._compiled(query)
        return await self.reader.fetchall(sql, params)

    def _compiled(self, statement: Any) -> tuple[str, tuple[Any, ...]]:
        """The statement's SQL for the driver, and its parameters in order."""
        compiled = statement.compile(dialect=self.engine.dialect, compile_kwargs={"render_postcompile": True})
        values = compiled.construct_params()
        return compiled.string, tuple(values[n] for n in compiled.positiontup or [])

    async def write(self, statement: sa.UpdateBase) -> tuple[int, list[tuple[Any, ...]]]:
        """On a file: one hop to the writer thread (committed with the writes waiting with it). In memory: the
        general path."""
        if self.writer is None:
            return await super().write(statement)
        sql, params = self._compiled(statement)
        result: tuple[int, list[tuple[Any, ...]]] = await self.writer.run(
            _statement(Step("rows", sql, params)), keep=_always
        )
        return result


async def write_lock(conn: AsyncConnection) -> None:
    """Take SQLite's write lock now, so a read-then-write transaction cannot interleave with another."""
    # A no-op write makes pysqlite open the transaction and SQLite take the RESERVED lock.
    await conn.execute(sa.text("CREATE TABLE IF NOT EXISTS _write_lock (id INTEGER)"))
    await conn.execute(sa.text("DELETE FROM _write_lock"))


def _statement(step: Step) -> Plan:
    """A plan of one statement: (rows changed, rows it returned)."""
    answer = yield step
    return answer


def _always(_result: Any) -> bool:
    return True
