"""``/bg-admin config | forget``: a server's settings, and erasing a player's data there (Manage Server only).

An admin's power is over their own server: the service judges it from the request (``Request.admin`` is the
Manage Server permission in the server the command is used in), and changes nothing anywhere else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

from engine.i18n import LANGUAGE_NAMES, LANGUAGES, _, ngettext

from ...service import Refused
from ..context import requester, require_server
from ..errors import refusals, reply
from ..options import clock_choices, clock_preset, option_choices, show, variant_choices
from ..text import NO_PINGS
from ..tree import BgCog
from .stats import FORMER_PLAYER

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Admin", "setup", "LANGUAGE_CHOICES"]

#: The choices of ``/bg-admin config language``: ``auto`` (the server's preferred locale in Discord, English for a
#: locale the bot does not speak) or a shipped language, each by its own name.
LANGUAGE_CHOICES = [
    app_commands.Choice(name="auto", value="auto"),
    *(app_commands.Choice(name=LANGUAGE_NAMES[code], value=code) for code in LANGUAGES),
]


class Admin(BgCog):
    """Server settings and data removal: ``/bg-admin <command>``."""

    root = "bg-admin"

    @app_commands.command(name="config")
    @app_commands.guild_only()
    @app_commands.describe(
        default_variant="Rule set of a challenge that names none",
        allowed_variants="Comma-separated rule sets allowed here, or 'all'",
        default_length="Match length of a challenge that names none (0 = money play)",
        default_clock="Time control of a challenge that names none ('none': no clock)",
        challenge_expiry_days="Days before an unanswered challenge expires",
        vacation_days_per_year="Vacation days a player may take in any 365 days",
        archive_after_days="Days without a move before a match without a clock is archived",
        team_thread_fallback="Doubles without private threads: direct messages to both members (dm) or refuse",
        options="Default rules of challenges here, like: jacoby beavers holland koks=on ('none' clears them)",
        language="Language of the bot's messages in game threads and channels (auto: the server's language)",
    )
    @app_commands.choices(language=LANGUAGE_CHOICES)
    @refusals
    async def config(
        self,
        interaction: discord.Interaction[Any],
        default_variant: str | None = None,
        allowed_variants: str | None = None,
        default_length: app_commands.Range[int, 0, 99] | None = None,
        default_clock: str | None = None,
        challenge_expiry_days: app_commands.Range[int, 1, 365] | None = None,
        vacation_days_per_year: app_commands.Range[int, 0, 365] | None = None,
        archive_after_days: app_commands.Range[int, 1, 3650] | None = None,
        team_thread_fallback: Literal["dm", "refuse"] | None = None,
        options: str | None = None,
        language: app_commands.Choice[str] | None = None,
    ) -> None:
        """Server settings for backgammon (needs the Manage Server permission)."""
        asker = requester(interaction)
        if not asker.admin:
            raise Refused(_("Only members with the Manage Server permission can see or change the server's settings."))
        changes: dict[str, Any] = {}
        if default_variant is not None:
            changes["default_variant"] = default_variant
        if allowed_variants is not None:
            changes["allowed_variants"] = None if allowed_variants.strip().lower() in ("all", "") else allowed_variants
        if default_length is not None:
            changes["default_length"] = default_length
        if default_clock is not None:
            changes["default_time_control"] = clock_preset(self.service, default_clock)
        for key, value in (
            ("challenge_expiry_days", challenge_expiry_days),
            ("vacation_days_per_year", vacation_days_per_year),
            ("archive_after_days", archive_after_days),
            ("team_thread_fallback", team_thread_fallback),
        ):
            if value is not None:
                changes[key] = value
        if options is not None:
            changes["default_options"] = options
        if language is not None:
            changes["language"] = language.value
        current = await self.service.guild_settings(asker, **changes)
        shown = {**current, "default_options": self.service.options_text(current["default_options"])}
        text = ", ".join(f"{k} = {show(v, k)}" for k, v in shown.items())
        answer = _("Server settings: {settings}.").format(settings=text)
        if changes:
            answer = _("Saved.") + " " + answer
        if "default_options" in changes:
            answer += " " + _(
                "Default options apply where they can: those for money play (jacoby, beavers…) in money challenges, "
                "those for matches (holland…) in matches, a rule set's (koks…) in that rule set; a challenge's own "
                "options come first."
            )
        await reply(interaction, answer)

    @config.autocomplete("default_clock")
    async def _config_clock(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=_("No clock"), value="none"), *clock_choices(self.service, current)][:25]

    @config.autocomplete("options")
    async def _config_options(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return await option_choices(self.service, requester(interaction), current, server=True)

    @config.autocomplete("default_variant")
    async def _config_variant(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return variant_choices(self.service, current)

    @app_commands.command(name="forget")
    @app_commands.describe(player="Whose personal data to remove (their matches stay, under a neutral name)")
    @refusals
    async def forget(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        """Remove a player's personal data in this server on request (needs the Manage Server permission)."""
        require_server(interaction)
        asker = requester(interaction)
        if not asker.admin:
            raise Refused(_("Only members with the Manage Server permission can remove a player's data."))
        changed = await self.service.forget(asker, str(player.id))
        await reply(
            interaction,
            ngettext(
                "Removed the personal data of {player} in this server ({count} records changed). Their finished "
                "matches stay in their opponents' records, shown as “{former}”.",
                "Removed the personal data of {player} in this server ({count} records changed). Their finished "
                "matches stay in their opponents' records, shown as “{former}”.",
                changed,
            ).format(player=f"<@{player.id}>", count=changed, former=_(FORMER_PLAYER)),
            allowed_mentions=NO_PINGS,
        )


async def setup(bot: Bot) -> None:
    """Add ``/bg-admin``."""
    await bot.add_cog(Admin(bot))
