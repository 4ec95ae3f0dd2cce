"""What a back end must provide: every difference between SQLite and PostgreSQL lives behind this class.

The store speaks SQLAlchemy Core for everything that reads the same on both. What does not (how to connect, how to
lock, how to claim timers across processes, and the per-action compare-and-swap of a game, sent as cheaply as each
back end allows) is a method here, implemented once per back end in ``sqlite.py`` and ``postgres.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

__all__ = ["Dialect", "GameUpdate"]


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

    def __init__(self) -> None:
        self._engine: AsyncEngine | None = None

    # --- connecting ---------------------------------------------------------------------------------------------
    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            raise RuntimeError(f"the {self.name} dialect is not bound to an engine yet")
        return self._engine

    def bind(self, engine: AsyncEngine) -> None:
        self._engine = engine

    def connect_args(self, url: sa.URL, schema: str | None) -> dict[str, Any]:
        """The driver's connect arguments."""
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
        engine = create_async_engine(url, **kwargs)
        self.configure(engine)
        self.bind(engine)
        return engine

    def configure(self, engine: AsyncEngine) -> None:
        """Set each new connection up (SQLite: its pragmas)."""

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

    # --- settings -----------------------------------------------------------------------------------------------
    async def settings_text(self, table: sa.Table, key: str) -> Any:
        """The ``settings`` column of row ``key`` of ``table`` (None when there is no such row), read in one hop."""
        async with self.engine.connect() as conn:
            return (await conn.execute(sa.select(table.c.settings).where(table.c.id == key))).scalar()
