"""The ``/bg`` command tree: one top-level command, its subcommand groups, and the one error handler.

Players see a single command, ``/bg``. Each cog (``bot/discord/cogs/``) is a :class:`BgCog`: the slash commands
and groups it declares join ``/bg`` when it loads and leave it when it unloads, so cogs load in any order and a
feature is one file. Discord allows 25 subcommands or groups under ``/bg`` (and 25 in each group); a cog that
would pass that, or reuse a name, fails to load with a clear error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from .errors import answers_refusals, on_command_error
from .language import speak

if TYPE_CHECKING:
    from .app import GammonBot

__all__ = ["ROOT", "GammonTree", "BgCog", "root_group"]

#: The one top-level command.
ROOT = "bg"
#: Discord's limit on the subcommands and groups of one group.
MAX_CHILDREN = 25


class GammonTree(app_commands.CommandTree["GammonBot"]):
    """The command tree: every refusal and unexpected error of a command ends in :func:`on_command_error`.

    Before any command or suggestion runs, :meth:`interaction_check` sets the languages it speaks (the asker's, and
    the server's for what it posts publicly: :func:`.language.speak`)."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        await speak(interaction)
        return True

    async def on_error(self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError) -> None:
        await on_command_error(interaction, error)


def root_group(tree: app_commands.CommandTree[Any]) -> app_commands.Group:
    """The ``/bg`` group of a command tree (made and added the first time it is asked for)."""
    group = tree.get_command(ROOT)
    if isinstance(group, app_commands.Group):
        return group
    if group is not None:
        raise RuntimeError(f"/{ROOT} is a command, not a group")
    group = app_commands.Group(name=ROOT, description="Play backgammon: challenges, moves and boards")
    tree.add_command(group)
    return group


Child = app_commands.Command[Any, ..., Any] | app_commands.Group


class BgCog(commands.Cog):
    """A cog whose slash commands and groups live under ``/bg``.

    Subclasses declare commands with ``@app_commands.command`` (they become ``/bg <name>``) or a class attribute
    ``app_commands.Group(name=...)`` with ``@group.command`` (``/bg <group> <name>``), each decorated with
    :func:`~bot.discord.errors.refusals` (checked on load). ``self.service``, ``self.table`` and ``self.threads`` are
    the bot's.
    """

    def __init__(self, bot: GammonBot) -> None:
        self.bot = bot
        self.service = bot.service
        self.table = bot.table
        self.threads = bot.threads
        self.joined: list[Child] = []

    async def cog_load(self) -> None:
        """Move this cog's slash commands and groups into ``/bg`` instead of the top level."""
        group = root_group(self.bot.tree)
        mine: list[Child] = list(self.__cog_app_commands__)
        for child in mine:
            for command in child.walk_commands() if isinstance(child, app_commands.Group) else (child,):
                if isinstance(command, app_commands.Command) and not answers_refusals(command.callback):
                    raise RuntimeError(f"/{ROOT} {command.qualified_name}: decorate its callback with @refusals")
        clashes = sorted(c.name for c in mine if group.get_command(c.name) is not None)
        if clashes:
            raise RuntimeError(f"/{ROOT} already has commands named {', '.join(clashes)}")
        if len(group.commands) + len(mine) > MAX_CHILDREN:
            count = len(group.commands) + len(mine)
            raise RuntimeError(f"/{ROOT} would have {count} subcommands and groups; Discord allows {MAX_CHILDREN}")
        for command in mine:
            group.add_command(command)
        self.joined = mine
        # They now live in /bg: the cog must not also add them to the tree as top-level commands.
        self.__cog_app_commands__ = []

    async def cog_unload(self) -> None:
        """Take this cog's commands out of ``/bg`` again."""
        group = self.bot.tree.get_command(ROOT)
        if isinstance(group, app_commands.Group):
            for command in self.joined:
                if group.get_command(command.name) is command:
                    group.remove_command(command.name)
        self.joined = []
