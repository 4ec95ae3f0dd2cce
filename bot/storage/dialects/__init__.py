"""The back ends: SQLite and PostgreSQL, each one :class:`Dialect` holding all that differs."""

from __future__ import annotations

import sqlalchemy as sa

from .base import Dialect, GameUpdate
from .postgres import PostgresDialect
from .sqlite import SqliteDialect

__all__ = ["Dialect", "GameUpdate", "PostgresDialect", "SqliteDialect", "dialect_for"]


def dialect_for(url: sa.URL, *, sqlite_synchronous: str = "FULL") -> Dialect:
    """The dialect of a database URL (already normalised to its async driver)."""
    backend = url.get_backend_name()
    if backend == "sqlite":
        return SqliteDialect(sqlite_synchronous)
    if backend == "postgresql":
        return PostgresDialect()
    raise ValueError(f"unsupported database {backend!r}: use sqlite:/// or postgresql://")
