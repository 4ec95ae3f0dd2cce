"""``/bg forfeit``: give up a whole match (or money session), after a confirmation.

A resignation gives up one game at a level the opponent accepts; a forfeit gives up the match at once: the opponent
wins it. Who may forfeit, and what it costs, is the engine's rule (a :class:`engine.match.Forfeit` action); this cog
only asks "are you sure?" first, because a forfeit cannot be taken back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from engine.i18n import _

from ...service import Refused
from ..context import bot_of, find_game, game_choices, requester
from ..errors import refusals, refuse, reply
from ..language import speak
from ..text import NO_PINGS, sides_text
from ..tree import BgCog

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Forfeits", "ConfirmForfeit", "setup"]

#: How long the confirmation button stays usable, in seconds.
CONFIRM_SECONDS = 300.0


async def forfeit(interaction: discord.Interaction[Any], game_id: int) -> None:
    """Forfeit the match for the asker; the match thread shows it like any other action."""
    bot = bot_of(interaction)
    me = requester(interaction)
    await bot.table.command_action(interaction, game_id, lambda: bot.service.forfeit(game_id, me))


class ConfirmForfeit(discord.ui.View):
    """The confirmation of ``/bg forfeit``: one button, for the player who asked only."""

    def __init__(self, user_id: int, game_id: int) -> None:
        super().__init__(timeout=CONFIRM_SECONDS)
        self.user_id = user_id
        self.game_id = game_id
        self.confirm.label = _("Forfeit the match")

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        await speak(interaction)
        if interaction.user.id != self.user_id:
            await refuse(interaction, _("Only the player who asked can confirm their forfeit."))
            return False
        return True

    @discord.ui.button(label="Forfeit the match", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        self.stop()
        try:
            await forfeit(interaction, self.game_id)
        except Refused as exc:
            await refuse(interaction, str(exc))


class Forfeits(BgCog):
    """``/bg forfeit``: give up a whole match."""

    @app_commands.command(name="forfeit")
    @app_commands.describe(
        game="Game number (default: this thread's game, or your only game)",
        confirm="True to forfeit at once, without the confirmation button",
    )
    @refusals
    async def forfeit(
        self, interaction: discord.Interaction[Any], game: int | None = None, confirm: bool = False
    ) -> None:
        """Give up the whole match (or end a money session). Cannot be undone."""
        view = await find_game(interaction, game)
        if confirm:
            await forfeit(interaction, view.id)
            return
        if view.length:
            question = _(
                "Forfeit game #{game} ({players})? Your opponent wins the whole match, not just this game (to give up "
                "one game, use **Resign…** or `/bg resign`). It cannot be undone."
            )
        else:
            question = _(
                "Forfeit game #{game} ({players})? This ends the money session: a game under way is lost at the "
                "cube's value, between games nothing is charged, and the score stands (to give up one game, use "
                "**Resign…** or `/bg resign`). It cannot be undone."
            )
        await reply(
            interaction,
            question.format(game=view.id, players=sides_text(view)),
            view=ConfirmForfeit(interaction.user.id, view.id),
            allowed_mentions=NO_PINGS,
        )

    @forfeit.autocomplete("game")
    async def _forfeit_game(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await game_choices(interaction, current)


async def setup(bot: Bot) -> None:
    """Add ``/bg forfeit``."""
    await bot.add_cog(Forfeits(bot))
