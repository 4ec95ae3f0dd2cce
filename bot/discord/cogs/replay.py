"""``/bg replay``: a game of a match played again as an animated picture, one frame per play.

The service draws it (in a worker thread) from the match record, as the asker sees the board (their side at the
bottom, their theme); like every lookup, a match of another server (or, in a direct message, one the asker does not
play in) is "no such game".
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from engine.i18n import _, ngettext

from ...service import Refused
from ..context import find_game, game_choices, requester
from ..errors import refusals, reply
from ..text import clip, describe
from ..tree import BgCog

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Replay", "setup"]


class Replay(BgCog):
    """``/bg replay``."""

    @app_commands.command(name="replay")
    @app_commands.describe(
        game="Match number (default: this thread's match)",
        number="Which game of the match: 1 for its first (default: its last game)",
    )
    @refusals
    async def replay(
        self,
        interaction: discord.Interaction[Any],
        game: int | None = None,
        number: app_commands.Range[int, 1, 100000] | None = None,
    ) -> None:
        """Watch a game of a match again: an animated picture, one frame per play."""
        view = await find_game(interaction, game, mine=False)
        if view.never_started:
            raise Refused(_("Game #{game} never started, so there is nothing to replay.").format(game=view.id))
        which = number or view.game
        movie = await self.service.replay(view.id, requester(interaction), which)
        plays = movie.frames - 1
        text = ngettext(
            "**{match}** · game {number}: {count} play, one picture each.",
            "**{match}** · game {number}: {count} plays, one picture each.",
            plays,
        ).format(match=describe(view), number=which, count=plays)
        file = discord.File(
            io.BytesIO(movie.gif), filename=f"game{view.id}-{which}-replay.gif", description=movie.alt_text[:1024]
        )
        await reply(interaction, clip(text), file=file)

    @replay.autocomplete("game")
    async def _replay_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await game_choices(interaction, current, finished=True)


async def setup(bot: Bot) -> None:
    """Add ``/bg replay``."""
    await bot.add_cog(Replay(bot))
