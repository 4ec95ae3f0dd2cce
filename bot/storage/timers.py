"""Timers: set with a game's update or on their own, claimed by workers in any process, marked fired."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from .dialects import Plan, Step
from .parts import StoreBase
from .rows import TimerRow, TimerSpec, dump, game_id_of, id_in_range
from .schema import timers_table, vacations

__all__ = ["TimersMixin", "insert_timers", "timers_plan"]

#: Ids a statement lists at most (``IN (...)``); longer lists are read in several statements.
_IN_CHUNK = 500


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
    """Store timers for a game (or for none), set at its ``version``, in ``conn``'s transaction."""
    if specs:
        await conn.execute(timers_table.insert(), _timer_rows(game_id, version, specs))


def timers_plan(game_id: int | None, version: int | None, specs: Sequence[TimerSpec]) -> Plan:
    """:func:`insert_timers` as steps of a plan (see :meth:`Store.statements <bot.storage.Store.statements>`)."""
    for row in _timer_rows(game_id, version, specs):
        yield Step("count", timers_table.insert().values(**row))


def _timer_rows(game_id: int | None, version: int | None, specs: Sequence[TimerSpec]) -> list[dict[str, Any]]:
    return [
        {"game_id": game_id, "kind": t.kind, "due_at": t.due_at, "game_version": version, "payload": dump(t.payload)}
        for t in specs
    ]


class TimersMixin(StoreBase):
    """The timers of :class:`~bot.storage.Store`."""

    async def add_timers(
        self, game_id: int | None, specs: Sequence[TimerSpec], game_version: int | None = None
    ) -> None:
        """Store timers for a game (or for none), set at ``game_version``."""
        game = None if game_id is None else game_id_of(game_id)
        if specs:  # one transaction (on a SQLite file: one hop to its writer)
            await self.backend.transaction(timers_plan(game, game_version, specs))

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
        names = list(t.c.keys())
        rows = (await self.backend.write(stmt))[1]
        return sorted((_timer(dict(zip(names, r))) for r in rows), key=lambda r: (r.due_at, r.id))

    async def finish_timers(self, timer_ids: Sequence[int], worker: str, now: float) -> int:
        """Mark claimed timers fired; returns how many were still this worker's (the rest were taken over)."""
        ids = [i for i in timer_ids if id_in_range(i)]
        if not ids:
            return 0
        t = timers_table
        stmt = t.update().where(t.c.id.in_(ids), t.c.claimed_by == worker, t.c.fired_at.is_(None)).values(fired_at=now)
        return (await self.backend.write(stmt))[0]

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

    # --- what firing a batch of due timers reads, at once ---------------------------------------------------------
    async def vacations_of_players(
        self, wanted: Sequence[tuple[str, str]], since: float = 0.0
    ) -> dict[tuple[str, str], list[tuple[float, float]]]:
        """The vacations of each (player, server) pair that end after ``since``, in order, as
        :meth:`~bot.storage.Store.vacations_of` reads them one by one (an empty list for a pair without any): one
        short read (on a SQLite file, one hop to its reader thread, never waiting for a pooled connection)."""
        out: dict[tuple[str, str], list[tuple[float, float]]] = {pair: [] for pair in wanted}
        ids = sorted({p for p, _g in out})
        if not ids:
            return out
        v = vacations
        for k in range(0, len(ids), _IN_CHUNK):
            query = (
                sa.select(v.c.player_id, v.c.guild_id, v.c.start, v.c.end)
                .where(v.c.player_id.in_(ids[k : k + _IN_CHUNK]), v.c.end > since)
                .order_by(v.c.start)
            )
            for player_id, guild_id, start, end in await self.backend.read(query):
                found = out.get((player_id, guild_id))
                if found is not None:
                    found.append((float(start), float(end)))
        return out
