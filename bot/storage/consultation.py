"""Team consultation (a teammate's proposals, held plays) and the dice secrets of matches."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from .parts import StoreBase
from .rows import game_id_of, id_in_range
from .schema import game_secrets, proposals

__all__ = ["ConsultationMixin"]


class ConsultationMixin(StoreBase):
    """Proposals and secrets of :class:`~bot.storage.Store`."""

    # --- team consultation ----------------------------------------------------------------------------------
    async def add_proposal(self, game_id: int, side: int, author: str, kind: str, text: str, turn: int) -> int:
        game_id = game_id_of(game_id)
        async with self.engine.begin() as conn:
            if kind == "held":  # one held play per team and turn: a newer one replaces it
                await conn.execute(
                    proposals.update()
                    .where(
                        proposals.c.game_id == game_id,
                        proposals.c.side == side,
                        proposals.c.kind == "held",
                        proposals.c.status == "open",
                    )
                    .values(status="stale")
                )
            result = await conn.execute(
                proposals.insert().values(
                    game_id=game_id,
                    side=side,
                    author=author,
                    kind=kind,
                    text=text,
                    turn=turn,
                    status="open",
                    created_at=self.clock(),
                )
            )
            return int(result.inserted_primary_key[0])  # type: ignore[index]

    async def open_proposals(self, game_id: int, side: int, turn: int) -> list[dict[str, Any]]:
        if not id_in_range(game_id):
            return []
        query = (
            sa.select(proposals)
            .where(
                proposals.c.game_id == game_id,
                proposals.c.side == side,
                proposals.c.turn == turn,
                proposals.c.status == "open",
            )
            .order_by(proposals.c.id)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [dict(r) for r in rows]

    async def proposal(self, proposal_id: int) -> dict[str, Any] | None:
        if not id_in_range(proposal_id):
            return None
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(proposals).where(proposals.c.id == proposal_id))).mappings().first()
        return None if row is None else dict(row)

    async def close_proposal(self, proposal_id: int, status: str) -> bool:
        """Mark an open proposal adopted/approved/rejected; False if it was no longer open."""
        if not id_in_range(proposal_id):
            return False
        query = proposals.update().where(proposals.c.id == proposal_id, proposals.c.status == "open")
        changed, _ = await self.backend.write(query.values(status=status))  # one hop on a SQLite file
        return changed == 1

    # --- dice secrets ---------------------------------------------------------------------------------------
    async def put_secret(self, game_id: int, seed_hex: str) -> None:
        game_id = game_id_of(game_id)
        await self.backend.write(game_secrets.insert().values(game_id=game_id, seed=seed_hex))  # one hop on SQLite

    async def secret(self, game_id: int) -> str | None:
        if not id_in_range(game_id):
            return None
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(game_secrets.c.seed).where(game_secrets.c.game_id == game_id))).first()
        return None if row is None else str(row[0])
