"""The setup message: posted once in each server, where an admin will see it, when the bot joins (and in a server that
has never set the bot up, when the bot is next ready).

It offers the three settings a server most often wants first, each a select: the language of what the bot posts for
everyone (preselected: the server's language as the bot would choose it, from its Discord language or else what its
members' clients speak), the rule set of a challenge that names none, and its match length. Anyone may read it; only
members with the Manage Server permission may change anything (others are told so, privately); every other setting
is ``/bg-admin config``. The selects are persistent (``bg:setup:<what>``): they work after a restart.

Where it goes: the server's system channel, else its first text channel where the bot may speak (and, for a server
the bot was already in, the channel of its latest game first). A server where the bot may speak nowhere gets none:
that is logged, and offered again at the next join. Two processes never both post it (:meth:`Store.claim_setup`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from engine import i18n
from engine.i18n import _, ngettext

from ..service import Refused
from .components import Localized, guarded, picked
from .context import requester
from .delivery import missing_permissions
from .errors import answer_first, refuse, reply
from .language import discord_language
from .limits import MAX_SELECT_OPTIONS
from .text import NO_PINGS, clip

if TYPE_CHECKING:
    from .protocols import Bot

__all__ = ["SetupSelect", "setup_message", "Welcome", "LENGTHS"]

log = logging.getLogger("gammonbot.discord")

#: The match lengths offered (0: money play).
LENGTHS = (1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25, 0)
#: Servers offered the setup message between two pauses, and the pause (seconds), when many are offered at once.
BATCH = 25
PAUSE = 2.0


class SetupSelect(
    Localized,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"bg:setup:(?P<what>language|variant|length)",
):
    """One select of the setup message: the server's language, default rule set or default match length."""

    def __init__(self, what: str, options: list[discord.SelectOption] | None = None, placeholder: str = "") -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"bg:setup:{what}",
                placeholder=placeholder or None,
                options=options or [discord.SelectOption(label="-", value="-")],
            )
        )
        self.what = what

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SetupSelect:
        return cls(match["what"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = picked(interaction)
        await guarded(interaction, _choose(interaction, self.what, values[0] if values else ""))


async def _choose(interaction: discord.Interaction[Any], what: str, value: str) -> None:
    """An admin picked a setting from the setup message: saved, the message redrawn with it, the admin told."""
    await answer_first(interaction)
    asker = requester(interaction)
    if not asker.admin:
        await refuse(interaction, _("Only members with the Manage Server permission can set the bot up here."))
        return
    bot: Any = interaction.client
    key = {"language": "language", "variant": "default_variant", "length": "default_length"}[what]
    try:
        current = await bot.service.guild_settings(asker, **{key: int(value) if what == "length" else value})
    except (Refused, ValueError) as exc:
        await refuse(interaction, str(exc))
        return
    with i18n.shared():
        content, ui = await setup_message(bot, str(interaction.guild_id), interaction.guild)
    try:
        await interaction.edit_original_response(content=content, view=ui, allowed_mentions=NO_PINGS)
    except discord.HTTPException as exc:
        log.info("server %s: the setup message could not be redrawn (%s)", interaction.guild_id, exc)
    finally:
        ui.stop()
    shown = {
        "language": lambda: i18n.LANGUAGE_NAMES.get(str(current["language"]), str(current["language"])),
        "variant": lambda: str(current["default_variant"]),
        "length": lambda: str(current["default_length"]),
    }[what]()
    await reply(interaction, _("Saved: {setting} = {value}.").format(setting=key, value=shown))


async def setup_message(bot: Any, guild_id: str, guild: discord.Guild | None) -> tuple[str, discord.ui.View]:
    """The setup message as it stands (in the active language): its text and its three selects, each preselected
    with the server's current choice."""
    service = bot.service
    settings = await service.server_settings(guild_id)
    language = await service.server_language(guild_id, discord_language(guild))
    chosen = str(settings.get("language") or "auto")
    languages = [
        discord.SelectOption(
            label=i18n.LANGUAGE_NAMES[code], value=code, default=code == (chosen if chosen != "auto" else language)
        )
        for code in i18n.LANGUAGES
    ]
    variants = [
        discord.SelectOption(
            label=_(cls.display_name)[:100], value=cls.name, default=cls.name == settings.get("default_variant")
        )
        for cls in service.variants()
    ][:MAX_SELECT_OPTIONS]
    lengths = [
        discord.SelectOption(
            label=_("Money play")
            if n == 0
            else ngettext("{count}-point match", "{count}-point match", n).format(count=n),
            value=str(n),
            default=n == settings.get("default_length"),
        )
        for n in LENGTHS
    ]
    text = "\n".join(
        (
            _("**Thanks for adding gammonbot!** Players challenge each other with `/bg play`; `/bg help` shows how."),
            _(
                "An admin can set the bot up for this server here: the language of what it posts for everyone, and "
                "the rule set and length of a challenge that names none. Everything else is `/bg-admin config`."
            ),
        )
    )
    ui = discord.ui.View(timeout=None)
    ui.add_item(SetupSelect("language", languages, _("Language of the bot's posts")))
    ui.add_item(SetupSelect("variant", variants, _("Rule set of a challenge that names none")))
    ui.add_item(SetupSelect("length", lengths, _("Match length of a challenge that names none")))
    return clip(text), ui


class Welcome:
    """Offers the setup message in the servers that have never had it."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self._tasks: set[asyncio.Task[None]] = set()

    def joined(self, guild: discord.Guild) -> None:
        """The bot joined a server (or came back to one): offer it the setup message, in the background."""
        self._start([guild])

    def ready(self, guilds: list[discord.Guild]) -> None:
        """The bot is connected: offer the setup message to the servers it is in that have never set it up."""
        self._start(guilds)

    def _start(self, guilds: list[discord.Guild]) -> None:
        task = asyncio.create_task(self._offer_all(guilds))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def idle(self) -> None:
        """Wait until every offer under way is done (tests, shutting down)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _offer_all(self, guilds: list[discord.Guild]) -> None:
        try:
            by_id = {str(g.id): g for g in guilds}
            posted = 0
            for guild_id in await self.bot.service.store.never_set_up(list(by_id)):
                if await self.offer(by_id[guild_id]):
                    posted += 1
                    if posted % BATCH == 0:
                        await asyncio.sleep(PAUSE)
        except Exception:
            log.exception("the setup messages could not be offered")

    async def offer(self, guild: discord.Guild) -> bool:
        """Post the setup message in ``guild`` where an admin will see it; True if it was posted (by this call)."""
        channel = await self._where(guild)
        if channel is None:
            log.warning("server %s: nowhere to post the setup message (no channel where the bot may speak)", guild.id)
            return False
        service = self.bot.service
        guild_id = str(guild.id)
        if not await service.store.claim_setup(guild_id):
            return False
        service.server_locale(guild_id, discord_language(guild))
        with i18n.use(await service.server_language(guild_id, discord_language(guild))):
            content, ui = await setup_message(self.bot, guild_id, guild)
        try:
            sent = await channel.send(content, view=ui, allowed_mentions=NO_PINGS)
        except discord.HTTPException as exc:
            log.warning("server %s: the setup message could not be posted (%s)", guild.id, exc)
            return False
        finally:
            ui.stop()
        await service.store.set_setup_message(guild_id, str(channel.id), str(sent.id))
        log.info("server %s: setup message posted in channel %s", guild.id, channel.id)
        return True

    async def _where(self, guild: discord.Guild) -> discord.TextChannel | None:
        """The system channel, else the channel of the server's latest game, else the first text channel, where the
        bot may speak."""
        candidates: list[Any] = [guild.system_channel]
        latest = await self.bot.service.store.latest_channel(str(guild.id))
        if latest is not None:
            candidates.append(guild.get_channel(int(latest)))
        candidates += sorted(guild.text_channels, key=lambda c: (c.position, c.id))
        for channel in candidates:
            if isinstance(channel, discord.TextChannel) and not missing_permissions(
                channel, ("view_channel", "send_messages")
            ):
                return channel
        return None
