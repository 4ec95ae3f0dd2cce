"""SQLite (a file, or memory for quick experiments): WAL, one writer at a time, and a writer thread of its own.

Waits are bounded: a connection waits for another's write lock at most the statement timeout (SQLite's busy
timeout), a call waits for a free connection of the pool, and a game update or settings read for the writer
thread to take it up, at most the acquire timeout. A statement that then finds the database still locked fails
with "database is locked", and its transaction is rolled back.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sqlite3
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .base import Dialect, GameUpdate, Timeouts

__all__ = ["SqliteDialect"]

SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")

#: Seconds a migration's connection waits for another's write lock (another process migrating, say).
MAINTENANCE_BUSY_TIMEOUT = 30.0

#: Words of SQLite's errors for a lock that was not released in time (SQLITE_BUSY, SQLITE_LOCKED).
_LOCKED = ("database is locked", "database table is locked", "database schema is locked", "database is busy")

T = TypeVar("T")


@dataclass(frozen=True)
class _Step:
    """One statement of the compare-and-swap: ``count`` answers the rows changed, ``value`` the first column of
    the first row (None when there is none), ``many`` runs the statement once per parameter tuple."""

    kind: Literal["count", "value", "many"]
    sql: str
    params: Any


def _compare_and_swap(update: GameUpdate, sql: str) -> Generator[_Step, Any, bool]:
    """The game update, statement by statement (the one compare-and-swap of SQLite, whoever runs it).

    The ``UPDATE`` changes the game only if its version still matches; then the log is numbered on and the pending
    timers are replaced. Returns False (having changed nothing) when the version did not match.
    """
    changed = yield _Step("count", sql, (*update.values.values(), update.game_id, update.expected_version))
    if changed != 1:
        return False
    if update.actions:
        last = update.log_length
        if last is None:
            last = (yield _Step("value", "SELECT max(seq) FROM actions WHERE game_id = ?", (update.game_id,))) or 0
        yield _Step(
            "many",
            "INSERT INTO actions (game_id, seq, action, at) VALUES (?, ?, ?, ?)",
            [(update.game_id, last + k, a, update.now) for k, a in enumerate(update.actions, 1)],
        )
    if update.timers is not None:
        yield _Step("count", "DELETE FROM timers WHERE game_id = ? AND fired_at IS NULL", (update.game_id,))
        if update.timers:
            yield _Step(
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
        self.writer: _SqliteWriter | None = None
        self._update_sql: dict[tuple[str, ...], str] = {}

    def busy_timeout(self, bounded: bool = True) -> float:
        """Seconds a statement waits for another connection's write lock (SQLite's busy timeout)."""
        return self.timeouts.statement if bounded else MAINTENANCE_BUSY_TIMEOUT

    def connect_args(self, url: sa.URL, schema: str | None, *, bounded: bool = True) -> dict[str, Any]:
        return {"timeout": self.busy_timeout(bounded)}

    def driver_unreachable(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.OperationalError) and any(w in str(exc).lower() for w in _LOCKED)

    def pooled(self, url: sa.URL) -> bool:
        return not (url.database in (None, "", ":memory:") or "memory" in url.render_as_string())

    def configure(self, engine: AsyncEngine, *, bounded: bool = True) -> None:
        sync, busy = self.synchronous, self.busy_timeout(bounded)

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            _set_pragmas(cur, sync, busy)
            cur.close()

    async def start(self) -> None:
        url = self.engine.url
        database = url.database
        if database and database != ":memory:" and not database.startswith("file:") and not url.query:
            self.writer = _SqliteWriter(database, self.synchronous, self.timeouts)

    async def close(self) -> None:
        if self.writer is not None:
            await self.writer.close()
            self.writer = None

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
        return await self.writer.run(_compare_and_swap(update, self._sql(update)))

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

    async def settings_text(self, table: sa.Table, key: str) -> Any:
        if self.writer is None:
            return await super().settings_text(table, key)
        # One hop to the writer's thread (several through aiosqlite).
        return await self.writer.fetchval(f"SELECT settings FROM {table.name} WHERE id = ?", (key,))


def _set_pragmas(cur: Any, synchronous: str, busy_timeout: float) -> None:
    cur.execute(f"PRAGMA busy_timeout={max(1, round(busy_timeout * 1000))}")  # first: WAL may wait for a lock
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute(f"PRAGMA synchronous={synchronous}")
    cur.execute("PRAGMA foreign_keys=ON")


async def write_lock(conn: AsyncConnection) -> None:
    """Take SQLite's write lock now, so a read-then-write transaction cannot interleave with another."""
    # A no-op write makes pysqlite open the transaction and SQLite take the RESERVED lock.
    await conn.execute(sa.text("CREATE TABLE IF NOT EXISTS _write_lock (id INTEGER)"))
    await conn.execute(sa.text("DELETE FROM _write_lock"))


class _SqliteWriter:
    """A SQLite connection of its own in a thread of its own, for the game update of :meth:`Store.update_game`.

    Through aiosqlite every statement, cursor and fetch is a separate hop to the connection's thread (several
    per statement); here the whole transaction is one hop. Its effect is the general path's: ``BEGIN
    IMMEDIATE``, the CAS ``UPDATE``, the log insert, the timer replacement, ``COMMIT`` (or ``ROLLBACK`` when the
    version did not match or anything failed). The other connections of the store see it like any other writer.
    Settings are read here too (one hop). Nothing may wait for this thread while holding a write transaction on
    another connection of the store (the thread may be waiting for that lock): ``also`` callbacks and
    :meth:`Store.run` functions use the connection they are given.

    A call waits for the thread to take its work up at most the acquire timeout (then it is withdrawn, never run,
    and the call fails with TimeoutError), and the work waits for another connection's write lock at most the
    statement timeout (SQLite's busy timeout; then "database is locked", and nothing was written).
    """

    def __init__(self, path: str, synchronous: str, timeouts: Timeouts) -> None:
        self._path = path
        self._synchronous = synchronous
        self._timeouts = timeouts
        self._conn: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gammonbot-sqlite-writer")

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            busy = self._timeouts.statement
            conn = sqlite3.connect(self._path, timeout=busy, isolation_level=None)  # transactions are explicit
            _set_pragmas(conn, self._synchronous, busy)
            self._conn = conn
        return self._conn

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the writer's thread; TimeoutError if the thread has not taken it up within the acquire
        timeout (it is then withdrawn: it never runs). Once taken up, it runs to its end (bounded by the busy
        timeout), even if the caller is cancelled meanwhile."""
        loop = asyncio.get_running_loop()
        job = self._thread.submit(fn, *args)
        withdrawn = False

        def expire() -> None:
            nonlocal withdrawn
            withdrawn = job.cancel()  # only while it waits in the queue

        timer = loop.call_later(self._timeouts.acquire, expire)
        try:
            return await asyncio.wrap_future(job, loop=loop)
        except (asyncio.CancelledError, concurrent.futures.CancelledError):
            task = asyncio.current_task()
            if withdrawn and (task is None or not task.cancelling()):
                raise TimeoutError(
                    f"the SQLite writer thread did not take the work up within {self._timeouts.acquire:g} s"
                ) from None
            raise
        finally:
            timer.cancel()

    async def run(self, plan: Generator[_Step, Any, bool]) -> bool:
        """Run a compare-and-swap in one transaction in the writer's thread."""
        return await self._call(self._run, plan)

    def _run(self, plan: Generator[_Step, Any, bool]) -> bool:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            answer: Any = None
            try:
                while True:
                    step = plan.send(answer)
                    if step.kind == "many":
                        answer = conn.executemany(step.sql, step.params).rowcount
                    elif step.kind == "value":
                        row = conn.execute(step.sql, step.params).fetchone()
                        answer = None if row is None else row[0]
                    else:
                        answer = conn.execute(step.sql, step.params).rowcount
            except StopIteration as stop:
                done = bool(stop.value)
            conn.execute("COMMIT" if done else "ROLLBACK")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return done

    async def fetchval(self, sql: str, params: tuple[Any, ...]) -> Any:
        """The first column of the first row of a query (None when there is none), read in the writer's thread."""

        def read() -> Any:
            row = self._connection().execute(sql, params).fetchone()
            return None if row is None else row[0]

        return await self._call(read)

    async def close(self) -> None:
        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        await asyncio.get_running_loop().run_in_executor(self._thread, shut)
        self._thread.shutdown(wait=True)
