"""What every part of :class:`~bot.storage.Store` shares: its engine, its dialect, its clock, the settings cache, and
the one place a :class:`~bot.storage.Scope` becomes SQL."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from .dialects import Dialect, dialect_for
from .rows import GameStatus, Scope
from .schema import game_players, games

__all__ = ["StoreBase", "visible", "waits_for"]


def visible(scope: Scope) -> list[sa.ColumnElement[bool]]:
    """The conditions on ``games`` that keep a query inside ``scope`` (none for the system)."""
    if scope.guild_id is not None:
        return [games.c.guild_id == scope.guild_id]
    if scope.player_id is not None:
        seated = sa.exists().where(game_players.c.game_id == games.c.id, game_players.c.player_id == scope.player_id)
        return [seated]
    return []


def waits_for(player_id: str, side: sa.ColumnElement[Any]) -> sa.ColumnElement[bool]:
    """Whether a game may wait for the player whose seat in it is on ``side`` (a condition on ``games``; its twin
    for a stored row is ``bot.service.results.may_wait_for``): a challenge to them (they sit on the challenged side,
    or are the one still to accept), or, in a running game, their turn or nobody's in particular (an opening roll,
    which each side throws)."""
    challenge = games.c.status == GameStatus.CHALLENGE
    return sa.or_(
        sa.and_(challenge, sa.or_(side == 1, games.c.turn_player == player_id)),
        sa.and_(~challenge, sa.or_(games.c.turn_player.is_(None), games.c.turn_player == player_id)),
    )


class StoreBase:
    """The state behind every part of the store."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        clock: Callable[[], float] = time.time,
        settings_ttl: float = 5.0,
        backend: Dialect | None = None,
    ) -> None:
        self.engine = engine
        self.clock = clock
        if backend is None:
            backend = dialect_for(engine.url)
            backend.bind(engine)
        #: Every difference between the back ends (locks, the fast game update, settings reads).
        self.backend = backend
        #: The back end's name: "sqlite" or "postgresql".
        self.dialect = backend.name
        #: Seconds a player's or server's settings, once read, are served from memory (every game action reads
        #: some). A change made through this store is seen at once; one made by another process within this
        #: many seconds. 0: always read the database.
        self.settings_ttl = settings_ttl
        self._settings_cache: dict[tuple[str, str], tuple[float, str | None]] = {}
        self._settings_generation = 0

    def _settings_changed(self, table: str | None = None, key: str | None = None) -> None:
        self._settings_generation += 1
        if table is None or key is None:
            self._settings_cache.clear()
        else:
            self._settings_cache.pop((table, key), None)
