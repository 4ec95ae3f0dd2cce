"""Prompts: the message carrying each live game's buttons, so that a restarted bot finds it again.

A prompt is transport data (a channel and a message id, the game version it was drawn at and whom it called to act),
written beside the game without moving its version. One row per game at most: the newest prompt replaces the last.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from .dialects import Plan, Step
from .parts import StoreBase
from .rows import GameStatus, game_id_of, id_in_range
from .schema import games, prompts

__all__ = ["PromptsMixin", "Prompt", "LiveGame"]

#: Server ids per query when the games of many servers are listed (well under every back end's bound-value limit).
GUILDS_PER_QUERY = 500


@dataclass(frozen=True)
class Prompt:
    """Where a game's newest prompt is, the game version it shows and whom it called to act."""

    game_id: int
    channel_id: str
    message_id: str
    game_version: int
    callers: tuple[str, ...]


@dataclass(frozen=True)
class LiveGame:
    """A game a restarted bot looks at: active, or holding a prompt (whatever its status)."""

    game_id: int
    guild_id: str
    status: GameStatus
    version: int
    prompt: Prompt | None


def _prompt(game_id: int, channel_id: object, message_id: object, version: object, callers: object) -> Prompt:
    who = tuple(c for c in str(callers or "").split(",") if c)
    return Prompt(game_id, str(channel_id), str(message_id), int(str(version)), who)


class PromptsMixin(StoreBase):
    """The prompts of :class:`~bot.storage.Store`."""

    async def set_prompt(
        self, game_id: int, channel_id: str, message_id: str, game_version: int, callers: Sequence[str]
    ) -> None:
        """Remember a game's newest prompt (replacing the one before)."""
        game_id = game_id_of(game_id)
        values = {
            "channel_id": str(channel_id),
            "message_id": str(message_id),
            "game_version": int(game_version),
            "callers": ",".join(callers),
            "posted_at": self.clock(),
        }

        def plan() -> Plan:
            if (yield Step("count", prompts.update().where(prompts.c.game_id == game_id).values(**values))) == 0:
                yield Step("count", prompts.insert().values(game_id=game_id, **values))

        for attempt in range(2):
            try:
                await self.backend.transaction(plan())  # one hop on a SQLite file
                return
            except IntegrityError:  # inserted meanwhile by another writer: update it (once more)
                if attempt:
                    raise

    async def drop_prompt(self, game_id: int, message_id: str | None = None) -> None:
        """Forget a game's prompt (only if it is still ``message_id``, when given)."""
        if not id_in_range(game_id):
            return
        query = prompts.delete().where(prompts.c.game_id == game_id)
        if message_id is not None:
            query = query.where(prompts.c.message_id == str(message_id))
        await self.backend.write(query)  # one hop on a SQLite file

    async def prompt_of(self, game_id: int) -> Prompt | None:
        """A game's newest prompt, or None."""
        if not id_in_range(game_id):
            return None
        query = sa.select(prompts.c.channel_id, prompts.c.message_id, prompts.c.game_version, prompts.c.callers)
        async with self.engine.connect() as conn:
            row = (await conn.execute(query.where(prompts.c.game_id == game_id))).first()
        return None if row is None else _prompt(game_id, *row)

    async def live_games(self, guild_ids: Sequence[str], *, after: int = 0, limit: int = 100) -> list[LiveGame]:
        """The games of these servers that are active or hold a prompt, by id from ``after`` on (``limit`` at most).

        Only the game's status and version and its prompt are read, never its state, so that a long list is cheap.
        """
        wanted = sorted({str(g) for g in guild_ids})
        found: list[LiveGame] = []
        columns = (
            games.c.id,
            games.c.guild_id,
            games.c.status,
            games.c.version,
            prompts.c.channel_id,
            prompts.c.message_id,
            prompts.c.game_version,
            prompts.c.callers,
        )
        async with self.engine.connect() as conn:
            for start in range(0, len(wanted), GUILDS_PER_QUERY):
                query = (
                    sa.select(*columns)
                    .select_from(games.outerjoin(prompts, prompts.c.game_id == games.c.id))
                    .where(
                        games.c.guild_id.in_(wanted[start : start + GUILDS_PER_QUERY]),
                        games.c.id > after,
                        sa.or_(games.c.status == GameStatus.ACTIVE, prompts.c.game_id.is_not(None)),
                    )
                    .order_by(games.c.id)
                    .limit(limit)
                )
                for r in (await conn.execute(query)).all():
                    prompt = (
                        None
                        if r.message_id is None
                        else _prompt(int(r.id), r.channel_id, r.message_id, r.game_version, r.callers)
                    )
                    found.append(LiveGame(int(r.id), str(r.guild_id), GameStatus(r.status), int(r.version), prompt))
        found.sort(key=lambda g: g.game_id)
        return found[:limit]
