"""Which languages an interaction speaks: the asker's, and the server's for what everyone in a game thread reads.

Every interaction (slash command, autocomplete, button, select) first calls :func:`speak`, from the check discord.py
runs before its handler (the command tree's ``interaction_check``, each game component's and each view's): the rest
of the interaction's task then translates into the asker's language (what their Discord client speaks,
``interaction.locale``, when the bot speaks it, else the server's language), and, inside ``with i18n.shared():``,
into the server's (``/bg-admin config language``; with ``auto``, a Community server's Discord language, else the
language most of its players' clients show, else English; in a direct message the asker's own). Each interaction
also tells the service the asker's locale in that server (:meth:`GameService.note_locale`): that is how the bot
knows what a server's members speak, since a server that is not a Community server always reports ``en-US``.
Replies to the asker (ephemeral answers,
refusals, follow-ups) are built outside ``shared()``; everything posted publicly in a game thread or channel (turn
prompts and their boards, event texts, results, match cards, challenges) is built inside it. Code that runs without
an interaction (the scheduler's timers, bringing games up to date after a restart) uses :func:`server_language` with
``i18n.use``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

import discord

from engine import i18n

__all__ = ["speak", "server_language", "discord_language", "public"]

P = ParamSpec("P")
T = TypeVar("T")

log = logging.getLogger("gammonbot.discord")


async def server_language(service: Any, guild_id: str | int | None, preferred: object = None) -> str:
    """The language of a server's public messages (the service's setting, else ``preferred``, else English).

    A lookup that fails (the database is unreachable for a moment) is logged and falls back to ``preferred``: a
    message in the wrong language is better than none."""
    if guild_id is None:
        return i18n.normalize(preferred) or i18n.DEFAULT
    try:
        return str(
            await service.server_language(str(guild_id), preferred=None if preferred is None else str(preferred))
        )
    except Exception as exc:
        log.warning("server %s: its language could not be read (%s); using %s", guild_id, exc, preferred)
        return i18n.normalize(preferred) or i18n.DEFAULT


def discord_language(guild: discord.Guild | None) -> str | None:
    """A server's own language in Discord, where it means something: a Community server's preferred locale (any
    other server reports ``en-US`` whatever its members speak)."""
    if guild is None or "COMMUNITY" not in guild.features:
        return None
    return str(guild.preferred_locale)


async def speak(interaction: discord.Interaction[Any]) -> None:
    """Set the asker's and the server's languages for the rest of this interaction's task (never raises). An asker
    whose client speaks a language the bot does not ship reads the server's language, not English."""
    user = interaction.locale
    if interaction.guild_id is None:
        i18n.set_request(user, user)  # a direct message: the asker's language is the only one
        return
    service = getattr(interaction.client, "service", None)
    preferred = discord_language(interaction.guild)
    shared = i18n.normalize(preferred) or i18n.DEFAULT
    if service is not None:
        guild_id = str(interaction.guild_id)
        service.server_locale(guild_id, preferred)
        await service.note_locale(guild_id, str(interaction.user.id), str(user))
        shared = await server_language(service, interaction.guild_id, preferred)
    i18n.set_request(i18n.normalize(user) or shared, shared)


def public(func: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, Coroutine[Any, Any, T]]:
    """Decorate a coroutine that builds and posts messages everyone in a game thread or channel reads: it runs in
    the server's language (``i18n.shared()``), whoever's interaction caused it."""

    @functools.wraps(func)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        with i18n.shared():
            return await func(*args, **kwargs)

    return wrapper
