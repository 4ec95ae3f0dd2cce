"""``/bg-me settings | vacation | forget``: a player's own settings, absences and data.

Settings are the player's in every server; a vacation stops their clocks in the server it is declared in; ``forget``
erases the player's own data in every server (their matches stay, under a neutral name), after they confirm.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

from engine import i18n
from engine.i18n import _, ngettext

from ...service import GameStatus, Refused
from ..context import bot_of, game_rows, requester, require_server
from ..errors import answer_first, refusals, refuse, reply
from ..language import speak
from ..options import show
from ..text import NO_PINGS, clip, safe
from ..tree import BgCog
from .stats import FORMER_PLAYER

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Me", "ForgetMe", "setup"]

QUIET_HOURS = re.compile(r"([01]?\d|2[0-3])\s*-\s*([01]?\d|2[0-3])")
#: How long the confirmation button of ``/bg-me forget`` stays usable, in seconds.
CONFIRM_SECONDS = 300.0


async def forget_me(interaction: discord.Interaction[Any]) -> None:
    """Erase the user's own data everywhere and say so (only to them). Answered first: it touches many records."""
    await answer_first(interaction)
    changed = await bot_of(interaction).service.forget_me(requester(interaction))
    text = ngettext(
        "Done: your personal data is gone from every server ({count} records changed). Your finished matches stay in "
        "your opponents' records, shown as “{former}”.",
        "Done: your personal data is gone from every server ({count} records changed). Your finished matches stay in "
        "your opponents' records, shown as “{former}”.",
        changed,
    ).format(count=changed, former=_(FORMER_PLAYER))
    await reply(interaction, text)


class ForgetMe(discord.ui.View):
    """The confirmation of ``/bg-me forget``: one button, for the user who asked only."""

    def __init__(self, user_id: int) -> None:
        super().__init__(timeout=CONFIRM_SECONDS)
        self.user_id = user_id
        self.confirm.label = _("Erase my data everywhere")

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        await speak(interaction)
        if interaction.user.id != self.user_id:
            await refuse(interaction, _("Only the player who asked can confirm erasing their own data."))
            return False
        return True

    @discord.ui.button(label="Erase my data everywhere", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        self.stop()
        try:
            await forget_me(interaction)
        except Refused as exc:
            await refuse(interaction, str(exc))


class Me(BgCog):
    """Your own settings, vacations and data: ``/bg-me <command>``."""

    root = "bg-me"

    @app_commands.command(name="settings")
    @app_commands.describe(
        autoplay="Play a forced move (the only legal play) for you",
        auto_bearoff="In a pure race with everything home, bear off for you",
        home="Which side your home board is drawn on",
        theme="Board colours (a theme name from the server's configuration)",
        dm_reminders="Also send your turn pings and reminders as direct messages",
        quiet_hours="No direct messages in these UTC hours, like 22-7 (empty: none)",
        analysis="After each of your matches, post its analysis (errors by equity lost, biggest mistakes)",
    )
    @refusals
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        autoplay: bool | None = None,
        auto_bearoff: bool | None = None,
        home: Literal["right", "left"] | None = None,
        theme: str | None = None,
        dm_reminders: bool | None = None,
        quiet_hours: str | None = None,
        analysis: bool | None = None,
    ) -> None:
        """See or change your own settings (forced moves, bear-offs, board side, reminders)."""
        if quiet_hours is not None and quiet_hours.strip() and not QUIET_HOURS.fullmatch(quiet_hours.strip()):
            raise Refused(_("Write quiet hours as two UTC hours, like 22-7 (from 22:00 to 07:00), or leave it empty."))
        given = {
            "autoplay": autoplay,
            "auto_bearoff": auto_bearoff,
            "home": home,
            "theme": theme,
            "dm_reminders": dm_reminders,
            "quiet_hours": quiet_hours.strip() if quiet_hours is not None else None,
            "analysis": analysis,
        }
        changes = {k: v for k, v in given.items() if v is not None}
        current = await self.service.player_settings(requester(interaction), **changes)
        text = ", ".join(f"{k} = {show(v, k)}" for k, v in current.items())
        answer = _("Your settings: {settings}.").format(settings=text)
        await reply(interaction, _("Saved.") + " " + answer if changes else answer)

    @app_commands.command(name="vacation")
    @app_commands.describe(days="How many days you will be away (part days allowed, like 1.5)")
    @refusals
    async def vacation(
        self, interaction: discord.Interaction[Any], days: app_commands.Range[float, 0.1, 366.0]
    ) -> None:
        """Declare an absence: your match clocks in this server stop until you are back."""
        require_server(interaction)
        me = requester(interaction)
        ends = int(await self.service.vacation(me, days))
        running = [row for row in await game_rows(interaction, me, statuses=(GameStatus.ACTIVE,)) if row.thread_id]
        text = _("Enjoy your break. Your vacation ends {end} ({relative}); your clocks stand still until then.").format(
            end=f"<t:{ends}:F>", relative=f"<t:{ends}:R>"
        )
        if running:
            text += " " + _("Your opponents are told in {threads}.").format(
                threads=", ".join(f"<#{r.thread_id}>" for r in running)
            )
        await reply(interaction, clip(text))
        # Opponents see it: a line in each running match's thread (no ping), in the server's language.
        with i18n.shared():
            away = _("{name} is on vacation until {end}: their clock stands still until then.").format(
                name=safe(me.name), end=f"<t:{ends}:F>"
            )
        for row in running:
            await self.threads.tell_in(row.id, row.thread_id, away)

    @app_commands.command(name="forget")
    @app_commands.describe(confirm="True to erase at once, without the confirmation button")
    @refusals
    async def forget(self, interaction: discord.Interaction[Any], confirm: bool = False) -> None:
        """Erase your own data in every server (your matches stay, under a neutral name)."""
        if confirm:
            await forget_me(interaction)
            return
        await reply(
            interaction,
            _(
                "This erases your name, settings, vacations, watching and ratings in every server where you played. "
                "Your finished matches stay in your opponents' records, shown as “{former}”. It cannot be undone."
            ).format(former=_(FORMER_PLAYER)),
            view=ForgetMe(interaction.user.id),
            allowed_mentions=NO_PINGS,
        )


async def setup(bot: Bot) -> None:
    """Add ``/bg-me``."""
    await bot.add_cog(Me(bot))
