"""Timers: set with a game's update or on their own, claimed by workers in any process, marked fired."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from .parts import StoreBase
from .rows import TimerRow, TimerSpec, dump, game_id_of, id_in_range
from .schema import timers_table

__all__ = ["TimersMixin", "insert_timers"]


def _timer(r: Any) -> TimerRow:
    return TimerRow(
        r["id"],
        r["game_id"],
        r["kind"],
        r["due_at"],
        r["game_version"],
        json.loads(r["payload"]),
        r["claimed_by"],
        r["fired_at"],
    )


async def insert_timers(
    conn: AsyncConnection, game_id: int | None, version: int | None, specs: Sequence[TimerSpec]
) -> None:
    """Store timers for a game (or for none), set at its ``version``."""
    if specs:
        await conn.execute(
            timers_table.insert(),
            [
                {
                    "game_id": game_id,
                    "kind": t.kind,
                    "due_at": t.due_at,
                    "game_version": version,
                    "payload": dump(t.payload),
                }
                for t in specs
            ],
        )


class TimersMixin(StoreBase):
    """The timers of :class:`~bot.storage.Store`."""

    async def add_timers(
        self, game_id: int | None, specs: Sequence[TimerSpec], game_version: int | None = None
    ) -> None:
        game = None if game_id is None else game_id_of(game_id)
        async with self.engine.begin() as conn:
            await insert_timers(conn, game, game_version, specs)

    async def pending_timers(self, game_id: int | None = None) -> list[TimerRow]:
        if game_id is not None and not id_in_range(game_id):
            return []
        async with self.engine.connect() as conn:
            query = sa.select(timers_table).where(timers_table.c.fired_at.is_(None)).order_by(timers_table.c.due_at)
            if game_id is not None:
                query = query.where(timers_table.c.game_id == game_id)
            return [_timer(r) for r in (await conn.execute(query)).mappings().all()]

    async def next_due(self) -> float | None:
        """When the earliest pending timer is due (None when nothing is pending)."""
        async with self.engine.connect() as conn:
            due = (
                await conn.execute(
                    sa.select(sa.func.min(timers_table.c.due_at)).where(timers_table.c.fired_at.is_(None))
                )
            ).scalar()
        return None if due is None else float(due)

    async def claim_due_timers(
        self, now: float, worker: str, *, limit: int = 100, lease: float = 60.0
    ) -> list[TimerRow]:
        """Claim up to ``limit`` due timers for ``worker`` (a lease: unfinished claims return after ``lease`` s).

        PostgreSQL: ``FOR UPDATE SKIP LOCKED``, so workers in several processes never claim the same timer.
        SQLite: the single statement runs under the database's one writer lock, with the same effect.
        """
        t = timers_table
        due = (
            sa.select(t.c.id)
            .where(
                t.c.fired_at.is_(None),
                t.c.due_at <= now,
                sa.or_(t.c.claimed_until.is_(None), t.c.claimed_until < now),
            )
            .order_by(t.c.due_at)
            .limit(limit)
        )
        stmt = (
            t.update()
            .where(t.c.id.in_(self.backend.claimable(due).scalar_subquery()))
            .values(claimed_by=worker, claimed_until=now + lease)
            .returning(*t.c)
        )
        async with self.engine.begin() as conn:
            rows = (await conn.execute(stmt)).mappings().all()
        return sorted((_timer(r) for r in rows), key=lambda r: (r.due_at, r.id))

    async def finish_timers(self, timer_ids: Sequence[int], worker: str, now: float) -> int:
        """Mark claimed timers fired; returns how many were still this worker's (the rest were taken over)."""
        ids = [i for i in timer_ids if id_in_range(i)]
        if not ids:
            return 0
        t = timers_table
        async with self.engine.begin() as conn:
            result = await conn.execute(
                t.update().where(t.c.id.in_(ids), t.c.claimed_by == worker, t.c.fired_at.is_(None)).values(fired_at=now)
            )
        return int(result.rowcount)

    async def timers_taken_over(self, timer_ids: Sequence[int], worker: str) -> int:
        """How many of these timers another worker holds now (a timer whose firing changed its game is gone:
        the change replaced the game's timers, so it is not counted)."""
        ids = [i for i in timer_ids if id_in_range(i)]
        if not ids:
            return 0
        t = timers_table
        async with self.engine.connect() as conn:
            query = sa.select(sa.func.count()).where(t.c.id.in_(ids), t.c.claimed_by != worker)
            return int((await conn.execute(query)).scalar() or 0)
