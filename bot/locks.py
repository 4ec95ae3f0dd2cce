"""One asyncio lock per key (a game, a team), with idle locks forgotten once there are many."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["KeyedLocks"]

K = TypeVar("K", bound=Hashable)


class KeyedLocks(Generic[K]):
    """``locks(key)`` is the lock of ``key``: the same lock for as long as anyone holds or awaits it.

    When ``limit`` locks are known, the idle ones (not held, nobody waiting) are forgotten before a new one is
    made, so memory stays bounded however many keys pass through.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._locks: dict[K, asyncio.Lock] = {}

    def __call__(self, key: K) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            if len(self._locks) >= self.limit:
                for idle in [k for k, v in self._locks.items() if not v.locked() and not _waited(v)]:
                    del self._locks[idle]
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def __len__(self) -> int:
        return len(self._locks)


def _waited(lock: asyncio.Lock) -> bool:
    """Whether a task waits for ``lock`` (just released, its next holder not yet running)."""
    return bool(getattr(lock, "_waiters", None))
