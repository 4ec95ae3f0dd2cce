"""The one refusal reply: how a request the service refused (or an error of ours) is answered in Discord.

A command needs no ``try``: it is decorated with :func:`refusals` (``BgCog`` refuses to load a command that is not),
and a :class:`~bot.service.Refused` raised anywhere in it is told to the asker alone, in the service's words, as an
ephemeral message. A refusal is an answer, not an error: it never reaches the command tree's error handler
(:func:`on_command_error`), which apologises for anything else and logs it. Game components answer through
:func:`refuse` too.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord
from discord import app_commands

from ..service import Refused
from .text import NO_PINGS, capital, clip

__all__ = ["SORRY", "refuse", "refusals", "answers_refusals", "refusal_of", "on_command_error"]

log = logging.getLogger("gammonbot.discord")

SORRY = (
    "Something went wrong on our side while answering this. Your game is safe: `/bg board` shows where it "
    "stands, with your buttons when it is your turn."
)


async def refuse(interaction: discord.Interaction[Any], text: str) -> None:
    """Tell the asker alone why not (an ephemeral message, starting with a capital), answered or followed up."""
    text = clip(capital(text))
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_PINGS)
    else:
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_PINGS)


F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def refusals(func: F) -> F:
    """Decorate a command's callback (``async def cmd(self, interaction, ...)``): a :class:`Refused` it raises is
    answered with :func:`refuse`."""

    @functools.wraps(func)
    async def wrapper(self: Any, interaction: discord.Interaction[Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return await func(self, interaction, *args, **kwargs)
        except Refused as exc:
            await refuse(interaction, str(exc))
            return None

    # discord.py reads the options from the signature, resolving its annotations in the callback's own module:
    # hand it them already resolved, from the command's module.
    wrapper.__signature__ = inspect.signature(func, eval_str=True)  # type: ignore[attr-defined]
    wrapper.__gammonbot_refusals__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def answers_refusals(callback: Callable[..., Any]) -> bool:
    """Whether a command's callback was decorated with :func:`refusals`."""
    return bool(getattr(callback, "__gammonbot_refusals__", False))


def refusal_of(error: BaseException) -> Refused | None:
    """The service's refusal behind a command error (discord.py wraps it), or None."""
    seen: BaseException | None = error
    for _ in range(8):  # discord.py wraps at most a few levels deep
        if seen is None or isinstance(seen, Refused):
            return seen
        seen = getattr(seen, "original", None) or seen.__cause__
    return None


async def on_command_error(interaction: discord.Interaction[Any], error: app_commands.AppCommandError) -> None:
    """A slash command failed: a refusal is told to the asker; anything else is logged and apologised for."""
    refused = refusal_of(error)
    if refused is None:
        command = interaction.command.qualified_name if interaction.command else "?"
        log.error("command %s failed", command, exc_info=error)
    with contextlib.suppress(discord.HTTPException):
        await refuse(interaction, str(refused) if refused is not None else SORRY)
