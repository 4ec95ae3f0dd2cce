"""The back ends: SQLite and PostgreSQL, each one :class:`Dialect` holding all that differs."""

from __future__ import annotations

import sqlalchemy as sa

from .base import Dialect, GameUpdate, Plan, Step, Timeouts
from .postgres import PostgresDialect
from .sqlite import SqliteDialect

__all__ = ["Dialect", "GameUpdate", "Plan", "PostgresDialect", "SqliteDialect", "Step", "Timeouts", "dialect_for"]


def dialect_for(url: sa.URL, *, sqlite_synchronous: str = "FULL", timeouts: Timeouts | None = None) -> Dialect:
    """The dialect of a database URL (already normalised to its async driver)."""
    backend = url.get_backend_name()
    if backend == "sqlite":
        return SqliteDialect(sqlite_synchronous, timeouts)
    if backend == "postgresql":
        return PostgresDialect(timeouts)
    raise ValueError(f"unsupported database {backend!r}: use sqlite:/// or postgresql://")
