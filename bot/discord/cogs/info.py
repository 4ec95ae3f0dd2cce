"""``/bg-info variants | rules | clocks``: what can be played, and how."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from engine.i18n import _

from ..context import find_game, game_choices, requester, thread_game
from ..errors import refusals, reply
from ..options import variant_choices
from ..text import clip, lines_within, sides_text, status_word
from ..tree import BgCog

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Info", "setup"]


class Info(BgCog):
    """Rule sets, their rules and the time controls: ``/bg-info <command>``."""

    root = "bg-info"

    @app_commands.command(name="variants")
    @refusals(defer=False)  # nothing to look up: answered at once
    async def variants(self, interaction: discord.Interaction[Any]) -> None:
        """List the rule sets you can play."""
        lines = []
        for cls in self.service.variants():
            line = f"**{_(cls.display_name)}** `{cls.name}`"
            if cls.aliases:
                line += " " + _("(also: {aliases})").format(aliases=", ".join(cls.aliases))
            if cls.team_size > 1:
                line += " " + _("— teams of two")
            lines.append(line)
        await reply(interaction, "\n".join(lines))

    @app_commands.command(name="rules")
    @app_commands.describe(
        variant="The rule set to explain",
        game="A game whose terms to show: length, cube rules, options (default: this thread's game)",
    )
    @refusals
    async def rules(
        self, interaction: discord.Interaction[Any], variant: str | None = None, game: int | None = None
    ) -> None:
        """Read the rules of a rule set, or the terms of a game."""
        view = None
        if game is not None or variant is None:
            view = await find_game(interaction, game) if game is not None else await thread_game(interaction)
        if view is None:
            await reply(interaction, clip(self.service.rules(variant or "backgammon")))
            return
        terms = await self.service.match_terms(view.id, requester(interaction))
        head = _("**Game #{game}**: {players} ({status})").format(
            game=view.id, players=sides_text(view), status=status_word(view.status)
        )
        summary = self.service.rules(view.variant)
        await reply(interaction, clip("\n".join([head, *(f"- {line}" for line in terms), "", summary])))

    @rules.autocomplete("game")
    async def _rules_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await game_choices(interaction, current, finished=True)

    @rules.autocomplete("variant")
    async def _rules_variant(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return variant_choices(self.service, current)

    @app_commands.command(name="clocks")
    @refusals
    async def clocks(self, interaction: discord.Interaction[Any]) -> None:
        """List the time controls a match can be played with."""
        default = None
        if interaction.guild_id is not None:
            default = (await self.service.guild_settings(requester(interaction)))["default_time_control"]
        lines = []
        for tc in self.service.time_controls():
            mark = " " + _("— **this server's default**") if tc.name == default else ""
            summary = f"\n  {_(tc.summary)}" if tc.summary else ""
            lines.append(f"**{_(tc.display_name)}** `{tc.name}`: {tc.describe()}{mark}{summary}")
        if not lines:
            await reply(interaction, _("No time controls are registered."))
            return
        if default is None:
            lines.append(_("Matches here have no clock unless the challenge names one."))
        await reply(interaction, lines_within(lines, 2000))


async def setup(bot: Bot) -> None:
    """Add ``/bg-info``."""
    await bot.add_cog(Info(bot))
