"""What a back end must provide: every difference between SQLite and PostgreSQL lives behind this class.

The store speaks SQLAlchemy Core for everything that reads the same on both. What does not (how to connect, how to
lock, how to claim timers across processes, and the per-action compare-and-swap of a game, sent as cheaply as each
back end allows) is a method here, implemented once per back end in ``sqlite.py`` and ``postgres.py``.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

__all__ = ["Dialect", "GameUpdate", "Plan", "Step", "Timeouts"]


@dataclass(frozen=True)
class Step:
    """One statement of a plan (a transaction written as a generator, run in one hop where the back end can).

    ``sql``: a SQLAlchemy statement (``params`` None), or the driver's own SQL text and parameters (only where the
    SQL is the back end's own). Each kind answers: ``count`` the rows changed; ``value`` the first column of the
    first row (None when there is none); ``rows`` (rows changed, the rows it returned); ``many`` runs driver SQL
    once per parameter tuple and answers the rows changed; ``lock`` serialises transactions on the key ``sql``
    until this one ends (:meth:`Dialect.lock`), answering None; ``locked`` is ``rows`` of a query whose rows stay
    locked until the transaction ends (:meth:`Dialect.select_for_update`, ``params`` the table to lock)."""

    kind: Literal["count", "value", "rows", "many", "lock", "locked"]
    sql: Any
    params: Any = None


#: A transaction's statements, one at a time (each sent the answer to the one before); it returns its result.
Plan = Generator[Step, Any, Any]


@dataclass(frozen=True)
class Timeouts:
    """How long a store call may wait for the database, in seconds (see :meth:`Store.open <bot.storage.Store.open>`).

    ``acquire``: for a connection (a free one of the pool, or a new one to open). ``statement``: for one statement,
    lock waits included.
    """

    acquire: float = 2.0
    statement: float = 2.0

    def __post_init__(self) -> None:
        for name in ("acquire", "statement"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ValueError(f"the {name} timeout must be a positive number of seconds, not {value!r}")


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, the driver's error it wraps, and what caused each (a few levels: wrappers wrap wrappers)."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo and len(seen) < 8:
        e = todo.pop(0)
        if e is None or any(e is s for s in seen):
            continue
        seen.append(e)
        yield e
        todo.extend([getattr(e, "orig", None) if isinstance(e, sa.exc.DBAPIError) else None, e.__cause__])


@dataclass(frozen=True)
class GameUpdate:
    """One compare-and-swap of a game, its columns already encoded.

    ``values``: the game columns to set (their names checked by the store), with ``version`` and ``updated_at``.
    ``actions``: JSON texts to append to the log, numbered on from ``log_length`` (or from the stored log when it
    is None). ``timers``: (kind, due_at, payload JSON) to replace the game's pending timers, or None to keep them.
    """

    game_id: int
    expected_version: int
    values: dict[str, Any]
    actions: list[str]
    log_length: int | None
    now: float
    timers: list[tuple[str, float, str]] | None

    @property
    def version(self) -> int:
        """The game's version once the update is applied."""
        return int(self.values["version"])


class Dialect:
    """A back end's ways. One instance per store, bound to its engine."""

    #: SQLAlchemy's name of the back end.
    name: ClassVar[str] = ""
    #: Connections a pool keeps by default.
    default_pool_size: ClassVar[int] = 5

    def __init__(self, timeouts: Timeouts | None = None) -> None:
        self._engine: AsyncEngine | None = None
        #: How long a call may wait for a connection and for a statement.
        self.timeouts = timeouts or Timeouts()
        #: How the bound engine was made (for :meth:`maintenance_engine`).
        self._made: tuple[sa.URL, str | None, bool] | None = None

    # --- connecting ---------------------------------------------------------------------------------------------
    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            raise RuntimeError(f"the {self.name} dialect is not bound to an engine yet")
        return self._engine

    def bind(self, engine: AsyncEngine) -> None:
        self._engine = engine

    def connect_args(self, url: sa.URL, schema: str | None, *, bounded: bool = True) -> dict[str, Any]:
        """The driver's connect arguments: with the statement timeouts when ``bounded``, else (migrations) without."""
        return {}

    def pooled(self, url: sa.URL) -> bool:
        """Whether the database is one that a pool of connections can share (not a private in-memory one)."""
        return True

    def create_engine(
        self, url: sa.URL, *, schema: str | None = None, echo: bool = False, pool_size: int | None = None
    ) -> AsyncEngine:
        """The engine for ``url``, configured and bound to this dialect.

        ``pool_size``: connections kept open, that many at most, so that a busy moment queues for a connection
        instead of opening and closing extra ones.
        """
        kwargs: dict[str, Any] = {"echo": echo}
        connect_args = self.connect_args(url, schema)
        if connect_args:
            kwargs["connect_args"] = connect_args
        if self.pooled(url):
            kwargs["pool_size"] = pool_size or self.default_pool_size
            kwargs["max_overflow"] = 0
            kwargs["pool_timeout"] = self.timeouts.acquire  # a full pool: wait this long, then TimeoutError
        engine = create_async_engine(url, **kwargs)
        self.configure(engine)
        event.listen(engine.sync_engine, "handle_error", self._on_error)
        self.bind(engine)
        self._made = (url, schema, echo)
        return engine

    def maintenance_engine(self) -> AsyncEngine:
        """An engine for migrations: one connection at a time, opened within the acquire timeout but without the
        statement timeouts (a migration may rewrite a large table, or wait while another process migrates). The
        caller disposes of it. The bound engine itself when there is no other way to the same database (SQLite in
        memory, or an engine made elsewhere)."""
        if self._made is None or not self.pooled(self._made[0]):
            return self.engine
        url, schema, echo = self._made
        kwargs: dict[str, Any] = {"echo": echo, "poolclass": NullPool}
        connect_args = self.connect_args(url, schema, bounded=False)
        if connect_args:
            kwargs["connect_args"] = connect_args
        engine = create_async_engine(url, **kwargs)
        self.configure(engine, bounded=False)
        return engine

    def configure(self, engine: AsyncEngine, *, bounded: bool = True) -> None:
        """Set each new connection up (SQLite: its pragmas)."""

    # --- failures -----------------------------------------------------------------------------------------------
    def unreachable(self, exc: BaseException) -> bool:
        """Whether ``exc`` means the database could not be reached in time (the store then raises ``Unavailable``):
        a pool or statement timeout, a connection that could not be opened or was lost. Not a refusal on the
        merits (a constraint, a syntax error), which the caller must see as it is."""
        for e in causes(exc):
            if isinstance(e, (sa.exc.TimeoutError, TimeoutError, OSError)):
                return True  # (builtin TimeoutError is asyncio's, and an OSError, like a refused connection)
            if isinstance(e, sa.exc.DBAPIError) and e.connection_invalidated:
                return True
            if self.driver_unreachable(e):
                return True
        return False

    def driver_unreachable(self, exc: BaseException) -> bool:
        """Whether the driver's own error ``exc`` says the database could not be reached in time."""
        return False

    def timed_out(self, exc: BaseException) -> bool:
        """Whether ``exc`` is the driver giving up on an answer it waited for (a stalled link): that connection is
        then in an unknown state, and is closed rather than reused (the others may be fine)."""
        return isinstance(exc, TimeoutError)

    def lost(self, exc: BaseException) -> bool:
        """Whether ``exc`` says the connection was lost (the server ended it, the link dropped) although the
        SQLAlchemy dialect may not see it so: it is closed rather than reused, and so are the pool's others."""
        return False

    def _on_error(self, context: sa.engine.ExceptionContext) -> None:
        """A statement failed: a connection that stopped answering is discarded (alone: the others may be fine),
        and so is one found lost (with the rest of the pool, as for any disconnection SQLAlchemy detects)."""
        error = context.original_exception
        if context.is_disconnect:
            return
        if self.timed_out(error):
            context.is_disconnect = True
            context.invalidate_pool_on_disconnect = False
            self.abandon(context.connection)
        elif self.lost(error):
            context.is_disconnect = True
            self.abandon(context.connection)

    def abandon(self, conn: sa.Connection | None) -> None:
        """Close a connection that stopped answering at once, without the goodbye that would wait for it."""

    async def start(self) -> None:
        """Open the fast paths, once the schema is current."""

    async def close(self) -> None:
        """Close what :meth:`start` opened (the engine itself is the store's to dispose of)."""

    # --- locking ------------------------------------------------------------------------------------------------
    async def lock(self, conn: AsyncConnection, key: str | int) -> None:
        """Serialise transactions on ``key`` until this one ends (a read-then-write that must not interleave)."""
        raise NotImplementedError

    async def select_for_update(
        self, conn: AsyncConnection, query: sa.Select[Any], *, of: sa.Table | None = None
    ) -> sa.CursorResult[Any]:
        """Run ``query`` with the rows it reads (of table ``of``, when it joins several) locked until the transaction
        ends."""
        raise NotImplementedError

    def claimable(self, query: sa.Select[Any]) -> sa.Select[Any]:
        """``query`` (rows to claim) made safe for several workers at once: none claims a row another holds."""
        return query

    # --- the game update ----------------------------------------------------------------------------------------
    async def update_game(self, update: GameUpdate) -> bool:
        """The compare-and-swap in a transaction of its own, sent as cheaply as the back end allows; False if the
        version did not match (then nothing changed)."""
        async with self.engine.connect() as conn:
            done = False
            try:
                done = await self.update_game_in(conn, update)
            finally:
                await (conn.commit() if done else conn.rollback())
            return done

    async def update_game_in(self, conn: AsyncConnection, update: GameUpdate) -> bool:
        """The same compare-and-swap inside ``conn``'s transaction (which may do more before it commits); False if
        the version did not match (then this changed nothing)."""
        raise NotImplementedError

    async def update_game_and(self, update: GameUpdate, more: Plan) -> bool:
        """The compare-and-swap and, if it matched, ``more``'s statements, in one transaction sent as cheaply as the
        back end allows; False if the version did not match (then nothing changed, and ``more`` did not run)."""
        async with self.engine.begin() as conn:
            if not await self.update_game_in(conn, update):
                return False
            await self.drive(conn, more)
            return True

    async def read(self, query: sa.Select[Any]) -> list[tuple[Any, ...]]:
        """A short read on its own (no transaction around it), sent as cheaply as the back end allows: its rows."""
        async with self.engine.connect() as conn:
            return [tuple(r) for r in await conn.execute(query)]

    async def write(self, statement: sa.UpdateBase) -> tuple[int, list[tuple[Any, ...]]]:
        """One write statement in a transaction of its own, sent as cheaply as the back end allows: (rows changed,
        the rows it returned)."""
        async with self.engine.begin() as conn:
            result = await conn.execute(statement)
            found = [tuple(r) for r in result.all()] if result.returns_rows else []
            return int(result.rowcount), found

    async def transaction(self, plan: Plan) -> Any:
        """A plan in a transaction of its own, sent as cheaply as the back end allows (a SQLite file: one hop to its
        writer thread); its result. It commits unless the plan raises."""
        async with self.engine.begin() as conn:
            return await self.drive(conn, plan)

    async def drive(self, conn: AsyncConnection, plan: Plan) -> Any:
        """A plan's statements inside ``conn``'s transaction; its result."""
        answer: Any = None
        try:
            while True:
                answer = await self._step(conn, plan.send(answer))
        except StopIteration as stop:
            return stop.value

    async def _step(self, conn: AsyncConnection, step: Step) -> Any:
        if step.kind == "lock":
            await self.lock(conn, step.sql)
            return None
        if step.kind == "locked":
            result: Any = await self.select_for_update(conn, step.sql, of=step.params)
        elif isinstance(step.sql, str):
            result = await conn.exec_driver_sql(step.sql, step.params)
        else:
            result = await conn.execute(step.sql)
        if step.kind == "value":
            return result.scalar()
        if step.kind in ("rows", "locked"):
            return int(result.rowcount), [tuple(r) for r in result.all()] if result.returns_rows else []
        return int(result.rowcount)

    # --- settings -----------------------------------------------------------------------------------------------
    async def settings_text(self, table: sa.Table, key: str) -> Any:
        """The ``settings`` column of row ``key`` of ``table`` (None when there is no such row), read in one hop."""
        async with self.engine.connect() as conn:
            return (await conn.execute(sa.select(table.c.settings).where(table.c.id == key))).scalar()
