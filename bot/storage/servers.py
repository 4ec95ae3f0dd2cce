"""Servers as a transport sees them: the locales their members' clients show, and the setup message offered once.

Both are transport data, kept beside the server's settings: a member's locale is what Discord sends with each of
their interactions (stored when it changes, so a server whose Discord language says nothing can still be spoken to
in its members' language); the setup message is claimed before it is posted, so that two processes serving one
database never both post it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from .dialects import Plan, Step
from .parts import StoreBase
from .schema import games, guilds, member_locales, server_setup

__all__ = ["ServersMixin", "GUILDS_PER_QUERY"]

#: Server ids per query (well under every back end's bound-value limit).
GUILDS_PER_QUERY = 500


class ServersMixin(StoreBase):
    """The members' locales and setup messages of :class:`~bot.storage.Store`."""

    async def note_locale(self, guild_id: str, player_id: str, locale: str) -> None:
        """Remember the locale a player's client shows in a server (replacing the one before)."""
        values = {"locale": str(locale)[:16], "seen_at": self.clock()}
        where = (member_locales.c.guild_id == guild_id, member_locales.c.player_id == player_id)

        def plan() -> Plan:
            if (yield Step("count", member_locales.update().where(*where).values(**values))) == 0:
                yield Step("count", member_locales.insert().values(guild_id=guild_id, player_id=player_id, **values))

        with contextlib.suppress(IntegrityError):  # inserted meanwhile by another process: it is known
            await self.backend.transaction(plan())

    async def locales_of(self, guild_id: str) -> dict[str, int]:
        """How many of a server's players last showed each locale."""
        query = (
            sa.select(member_locales.c.locale, sa.func.count())
            .where(member_locales.c.guild_id == guild_id)
            .group_by(member_locales.c.locale)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return {str(locale): int(n) for locale, n in rows}

    async def claim_setup(self, guild_id: str) -> bool:
        """Claim the one setup message of a server: True for the first claim ever (the caller posts it)."""
        try:
            await self.backend.write(server_setup.insert().values(guild_id=guild_id, offered_at=self.clock()))
        except IntegrityError:
            return False
        return True

    async def set_setup_message(self, guild_id: str, channel_id: str, message_id: str) -> None:
        """Where a server's setup message was posted."""
        await self.backend.write(
            server_setup.update()
            .where(server_setup.c.guild_id == guild_id)
            .values(channel_id=str(channel_id), message_id=str(message_id))
        )

    async def latest_channel(self, guild_id: str) -> str | None:
        """The channel of a server's latest game (where its players are), or None."""
        query = (
            sa.select(games.c.channel_id)
            .where(games.c.guild_id == guild_id, games.c.channel_id.is_not(None))
            .order_by(games.c.id.desc())
            .limit(1)
        )
        async with self.engine.connect() as conn:
            found = (await conn.execute(query)).scalar()
        return None if found is None else str(found)

    async def never_set_up(self, guild_ids: Sequence[str]) -> list[str]:
        """Of these servers, those never offered the setup message whose settings were never saved either."""
        wanted = sorted({str(g) for g in guild_ids})
        known: set[str] = set()
        async with self.engine.connect() as conn:
            for start in range(0, len(wanted), GUILDS_PER_QUERY):
                chunk = wanted[start : start + GUILDS_PER_QUERY]
                for column in (server_setup.c.guild_id, guilds.c.id):
                    rows = (await conn.execute(sa.select(column).where(column.in_(chunk)))).all()
                    known.update(str(r[0]) for r in rows)
        return [g for g in wanted if g not in known]
