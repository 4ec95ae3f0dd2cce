"""Answering interactions: first, within Discord's three seconds, and the one refusal reply.

**Answer first.** Discord drops an interaction that is not answered (or deferred) within three seconds, and then
rejects every reply to it. So the first Discord call made for an interaction is always its answer: nothing (no
thread opened, no message posted or edited, no member fetched) comes before it. Every command is decorated with
:func:`refusals` (``BgCog`` refuses to load a command that is not), which by default defers the interaction
(privately, "thinking…") before the command runs a line: the command then answers with :func:`reply`, whatever
it does first. A command whose answer must be public (a challenge) says ``@refusals(defer=False)``, and its first
Discord call must then be its answer. Components answer first through :func:`answer_first` (a deferral).

If the answer itself fails (the interaction expired: Discord was slow, or we were), the work still goes on: a
play is still made and the game's next message is still posted in its thread, only the reply to the asker is lost.

**Refusals.** A command needs no ``try``: a :class:`~bot.service.Refused` raised anywhere in it is told to the asker
alone, in the service's words, as an ephemeral message. A refusal is an answer, not an error: it never reaches the
command tree's error handler (:func:`on_command_error`), which apologises for anything else and logs it. Game
components answer through :func:`refuse` too.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

import discord
from discord import app_commands

from engine.i18n import N_, _

from ..service import Refused
from .context import named_refusal
from .delivery import late_reply, token_refused
from .text import NO_PINGS, capital, clip

__all__ = [
    "SORRY",
    "answer_first",
    "reply",
    "refuse",
    "refusals",
    "answers_refusals",
    "defers",
    "refusal_of",
    "on_command_error",
]

log = logging.getLogger("gammonbot.discord")

#: The apology for an unexpected error (translated where it is shown: ``_(SORRY)``).
SORRY = N_(
    "Something went wrong on our side while answering this. Your game is safe: `/bg board` shows where it "
    "stands, with your buttons when it is your turn."
)


async def answer_first(interaction: discord.Interaction[Any], *, ephemeral: bool = True) -> bool:
    """Defer the interaction now, before any other Discord call made for it (nothing, if it is answered already).

    A slash command is deferred "thinking…" (privately, unless ``ephemeral=False``): its answer follows with
    :func:`reply`. A component press is deferred silently: the pressed message may then be edited, or a reply
    follow. Returns False when Discord refused the deferral (the interaction expired): the caller goes on with its
    work (a play is still made and shown in its thread); only the replies to the asker are lost.
    """
    if interaction.response.is_done():
        return True
    try:
        if interaction.type is discord.InteractionType.component:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)
    except discord.HTTPException as exc:
        log.warning("interaction %s could not be deferred (%s); carrying on without answering", interaction.id, exc)
        return False
    return True


async def reply(
    interaction: discord.Interaction[Any], content: str | None = None, *, private: bool = False, **kwargs: Any
) -> None:
    """Answer the asker: the interaction's response if it has none yet, else a follow-up (the first after a
    deferral fills in its "thinking…" message). Ephemeral unless ``ephemeral=False``; other keywords (``file``,
    ``embed``, ``view``, ``allowed_mentions``…) go to Discord as they are.

    An answer ready after the interaction's 15 minutes (a long record checked, a long match drawn, a loaded bot) can
    no longer be given through it: it is posted in the channel the command was used in, mentioning the asker, or,
    when ``private`` (only the asker may read it: a team's proposals, a hint), sent to them by direct message
    (:func:`.delivery.late_reply`)."""
    kwargs.setdefault("ephemeral", True)
    if content is not None:
        kwargs["content"] = content
    if not interaction.response.is_done():
        await interaction.response.send_message(**kwargs)
        return
    try:
        await interaction.followup.send(**kwargs)
    except discord.HTTPException as exc:
        if not token_refused(exc):
            raise
        log.info("interaction %s: Discord no longer takes its answer (%s); answering late", interaction.id, exc)
        await late_reply(interaction, kwargs, private=private)


async def refuse(interaction: discord.Interaction[Any], text: str) -> None:
    """Tell the asker alone why not (an ephemeral message, starting with a capital), answered or followed up.

    An interaction Discord no longer knows (it expired) cannot be told anything: that is logged, not raised. A
    refusal about the game the command found names it when the asker has several (:func:`.context.named_refusal`)."""
    text = await named_refusal(interaction, text)
    try:
        await reply(interaction, clip(capital(text)), allowed_mentions=NO_PINGS, private=True)
    except discord.NotFound as exc:
        log.info("interaction %s: refusal not delivered (%s): %s", interaction.id, exc, text)


F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


@overload
def refusals(func: F, /) -> F: ...


@overload
def refusals(*, defer: bool = True) -> Callable[[F], F]: ...


def refusals(func: F | None = None, /, *, defer: bool = True) -> F | Callable[[F], F]:
    """Decorate a command's callback (``async def cmd(self, interaction, ...)``): answer first, and answer refusals.

    ``@refusals`` defers the interaction (privately, "thinking…") before the callback runs, so nothing the callback
    does (the service's work, a thread opened, a board drawn) can make it miss Discord's three seconds; it answers
    with :func:`reply`. ``@refusals(defer=False)``: the callback answers itself, and its first Discord call must be
    that answer (for an answer that must be public, like a challenge). Either way, a :class:`Refused` it raises is
    answered with :func:`refuse`.
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        async def wrapper(self: Any, interaction: discord.Interaction[Any], *args: Any, **kwargs: Any) -> Any:
            try:
                if defer:
                    await answer_first(interaction)
                return await func(self, interaction, *args, **kwargs)
            except Refused as exc:
                await refuse(interaction, str(exc))
                return None

        # discord.py reads the options from the signature, resolving its annotations in the callback's own module:
        # hand it them already resolved, from the command's module.
        wrapper.__signature__ = inspect.signature(func, eval_str=True)  # type: ignore[attr-defined]
        wrapper.__gammonbot_refusals__ = True  # type: ignore[attr-defined]
        wrapper.__gammonbot_defers__ = defer  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate if func is None else decorate(func)


def answers_refusals(callback: Callable[..., Any]) -> bool:
    """Whether a command's callback was decorated with :func:`refusals`."""
    return bool(getattr(callback, "__gammonbot_refusals__", False))


def defers(callback: Callable[..., Any]) -> bool:
    """Whether :func:`refusals` defers a command's interaction before its callback runs."""
    return bool(getattr(callback, "__gammonbot_defers__", False))


def refusal_of(error: BaseException) -> Refused | None:
    """The service's refusal behind a command error (discord.py wraps it), or None."""
    seen: BaseException | None = error
    for _level in range(8):  # discord.py wraps at most a few levels deep
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
        await refuse(interaction, str(refused) if refused is not None else _(SORRY))
