"""SQLite's writer thread (with group commit) and reader thread: one hop each for the store's hot paths.

Through aiosqlite every statement, cursor and fetch is a separate hop to the connection's thread (several per
statement), and a write transaction holds SQLite's one write lock across all of them, so while the event loop is
busy elsewhere every other writer waits (and SQLite's busy handler, which sleeps 25 to 100 ms between its later
tries, makes it wait longer still). Here a whole transaction is one hop to a thread of its own.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from .base import Plan, Step, Timeouts

__all__ = ["Plan", "SqliteReader", "SqliteWriter", "Step", "set_pragmas"]

T = TypeVar("T")

#: Words of SQLite's errors for a lock that was not released in time (SQLITE_BUSY, SQLITE_LOCKED).
LOCKED = ("database is locked", "database table is locked", "database schema is locked", "database is busy")

#: The longest pause between two tries of the writer for the write lock another connection holds (seconds).
_LOCK_POLL = 0.002
#: How long SQLite's own busy handler waits on the writer's connection before the writer tries again itself (its
#: first pauses are 1, 2 and 5 ms; its later ones 25 to 100 ms).
_BUSY_SLICE = 0.005


def set_pragmas(cur: Any, synchronous: str, busy_timeout: float) -> None:
    cur.execute(f"PRAGMA busy_timeout={max(1, round(busy_timeout * 1000))}")  # first: WAL may wait for a lock
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute(f"PRAGMA synchronous={synchronous}")
    cur.execute("PRAGMA foreign_keys=ON")


def locked(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and any(w in str(exc).lower() for w in LOCKED)


def drive(conn: sqlite3.Connection, plan: Plan) -> Any:
    """Run a plan's statements on a plain sqlite3 connection (inside the caller's transaction); its result."""
    answer: Any = None
    try:
        while True:
            step = plan.send(answer)
            if step.kind == "many":
                answer = conn.executemany(step.sql, step.params).rowcount
            elif step.kind == "value":
                row = conn.execute(step.sql, step.params).fetchone()
                answer = None if row is None else row[0]
            elif step.kind == "rows":
                cursor = conn.execute(step.sql, step.params)
                found = cursor.fetchall()
                answer = (cursor.rowcount, found)
            else:
                answer = conn.execute(step.sql, step.params).rowcount
    except StopIteration as stop:
        return stop.value


class _Thread:
    """A thread of its own with a SQLite connection of its own."""

    def __init__(self, path: str, synchronous: str, timeouts: Timeouts, name: str, busy_timeout: float) -> None:
        self._path = path
        self._synchronous = synchronous
        self._timeouts = timeouts
        self._busy = busy_timeout
        self._conn: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(self._path, timeout=self._busy, isolation_level=None)  # transactions are explicit
            set_pragmas(conn, self._synchronous, self._busy)
            self._conn = conn
        return self._conn

    def _late(self) -> TimeoutError:
        return TimeoutError(f"the SQLite thread did not take the work up within {self._timeouts.acquire:g} s")

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the thread; TimeoutError if the thread has not taken it up within the acquire timeout
        (it is then withdrawn: it never runs). Once taken up, it runs to its end (bounded by the busy timeout),
        even if the caller is cancelled meanwhile."""
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
                raise self._late() from None
            raise
        finally:
            timer.cancel()

    async def close(self) -> None:
        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        await asyncio.get_running_loop().run_in_executor(self._thread, shut)
        self._thread.shutdown(wait=True)


class SqliteReader(_Thread):
    """Short reads of their own in one hop each (players' vacations and names, read for every timed action and for
    each batch of due timers), on a thread and connection of their own: never waiting for a pooled connection that
    long reads or writes waiting for the write lock hold (in WAL mode a read never waits for a writer)."""

    def __init__(self, path: str, synchronous: str, timeouts: Timeouts) -> None:
        super().__init__(path, synchronous, timeouts, "gammonbot-sqlite-reader", timeouts.statement)

    async def fetchall(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Every row of a query."""

        def read() -> list[tuple[Any, ...]]:
            return list(self._connection().execute(sql, params).fetchall())

        return await self._call(read)


@dataclass(eq=False)
class _Job:
    """A plan waiting for the writer thread: ``waiting``, then ``taken`` (it runs to its end) or ``withdrawn`` (it
    never runs). ``keep`` says from its result whether its changes stand (a compare-and-swap that lost keeps none)."""

    plan: Plan
    keep: Callable[[Any], bool]
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop
    state: Literal["waiting", "taken", "withdrawn"] = "waiting"


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if not future.done():
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)


class SqliteWriter(_Thread):
    """The store's writes on a SQLite file (the game update, with a finished match's result and ratings; the
    scheduler's claims and marks, timers; new games, settings and the other short writes: every plan of
    :meth:`Dialect.transaction <bot.storage.dialects.base.Dialect.transaction>`), each one hop to this thread, whose
    connection runs the whole transaction: ``BEGIN IMMEDIATE``, the statements, then ``COMMIT`` (or ``ROLLBACK``);
    and settings reads, one hop too. The other connections of the store see it like any
    other writer. Nothing may wait for this thread while holding a write transaction on another connection of the
    store (the thread may be waiting for that lock): ``also`` callbacks and :meth:`Store.run` functions use the
    connection they are given.

    Group commit: the plans waiting when the thread takes work up (up to :attr:`GROUP`) run in one transaction, each
    inside a savepoint of its own, so one that fails (or loses its compare-and-swap) is rolled back alone and the
    others commit together: one sync to the disk for all of them (about 5 ms each on a disk with
    ``synchronous=FULL``, the bulk of a write's time). Each caller is answered once the transaction committed.

    A call waits for the thread to take its work up at most the acquire timeout (then it is withdrawn, never run,
    and the call fails with TimeoutError). The thread waits for another connection's write lock at most the
    statement timeout, trying again every few milliseconds (SQLite's own busy handler sleeps up to 100 ms between
    tries, long after the lock was released); then "database is locked", and nothing was written.
    """

    #: The most plans committed in one transaction.
    GROUP = 64

    def __init__(self, path: str, synchronous: str, timeouts: Timeouts) -> None:
        super().__init__(path, synchronous, timeouts, "gammonbot-sqlite-writer", timeouts.statement)
        #: Plans waiting for the thread, oldest first (taken up, or withdrawn, under the lock).
        self._jobs: collections.deque[_Job] = collections.deque()
        self._jobs_lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        fresh = self._conn is None
        conn = super()._connection()
        if fresh:  # set up (WAL) with the full busy timeout; from now on SQLite's busy handler only waits a little,
            # and _begin tries again itself
            conn.execute(f"PRAGMA busy_timeout={round(_BUSY_SLICE * 1000)}")
        return conn

    async def fetchval(self, sql: str, params: tuple[Any, ...]) -> Any:
        """The first column of the first row of a query (None when there is none), read in the writer's thread
        (one hop; players' and servers' settings)."""

        def read() -> Any:
            row = self._connection().execute(sql, params).fetchone()
            return None if row is None else row[0]

        return await self._call(read)

    def _withdraw(self, job: _Job) -> bool:
        """Withdraw a job the thread has not taken up yet (True), or leave one it has (False)."""
        with self._jobs_lock:
            if job.state != "waiting":
                return False
            job.state = "withdrawn"
            return True

    async def run(self, plan: Plan, keep: Callable[[Any], bool] = bool) -> Any:
        """Run a plan in the writer's thread, committed with whatever others wait with it; its result. Its changes
        stand when ``keep(result)`` is true (default: when the result is)."""
        loop = asyncio.get_running_loop()
        job = _Job(plan, keep, loop.create_future(), loop)
        with self._jobs_lock:
            self._jobs.append(job)
        try:
            self._thread.submit(self._drain)
        except RuntimeError:  # the store is closed
            self._withdraw(job)
            raise

        def expire() -> None:
            if self._withdraw(job):
                _settle(job.future, None, self._late())

        timer = loop.call_later(self._timeouts.acquire, expire)
        try:
            return await job.future
        except asyncio.CancelledError:
            self._withdraw(job)  # cancelled before the thread took it up: it never runs; after: it runs to its end
            raise
        finally:
            timer.cancel()

    def _drain(self) -> None:
        """In the writer's thread: take the waiting plans up and commit them together."""
        with self._jobs_lock:
            jobs: list[_Job] = []
            while self._jobs and len(jobs) < self.GROUP:
                job = self._jobs.popleft()
                if job.state == "waiting":
                    job.state = "taken"
                    jobs.append(job)
        if not jobs:
            return  # an earlier drain took them
        outcomes = self._commit(jobs)
        for job, (result, error) in zip(jobs, outcomes):
            with contextlib.suppress(RuntimeError):  # the caller's loop is closed: nobody waits for the answer
                job.loop.call_soon_threadsafe(_settle, job.future, result, error)

    def _begin(self, conn: sqlite3.Connection) -> None:
        """``BEGIN IMMEDIATE``, trying again every few milliseconds while another connection holds the write lock,
        for at most the statement timeout."""
        deadline = time.monotonic() + self._timeouts.statement
        pause = 0.0002
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not locked(exc) or time.monotonic() >= deadline:
                    raise
            time.sleep(pause)
            pause = min(2 * pause, _LOCK_POLL)

    def _commit(self, jobs: list[_Job]) -> list[tuple[Any, BaseException | None]]:
        """Run each job's plan in a savepoint of one transaction; (result, None) or (None, error) for each."""
        conn = self._connection()
        outcomes: list[tuple[Any, BaseException | None]] = []
        try:
            self._begin(conn)
            for job in jobs:
                conn.execute("SAVEPOINT plan")
                try:
                    result = drive(conn, job.plan)
                except Exception as exc:
                    if not conn.in_transaction:
                        raise  # SQLite ended the whole transaction: nothing of it stands
                    conn.execute("ROLLBACK TO plan")
                    conn.execute("RELEASE plan")
                    outcomes.append((None, exc))
                    continue
                if not job.keep(result):
                    conn.execute("ROLLBACK TO plan")
                conn.execute("RELEASE plan")
                outcomes.append((result, None))
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if not isinstance(exc, Exception):
                raise
            return [(None, exc)] * len(jobs)
        return outcomes
