"""Cogs whose slash commands live in the games cog's ``/bg`` group rather than at the top level."""

from __future__ import annotations

from typing import Any

from discord import app_commands
from discord.ext import commands

__all__ = ["GROUP", "JoinsBgGroup"]

GROUP = "bg"


class JoinsBgGroup(commands.Cog):
    """Moves the cog's commands into ``/bg`` on load and takes them out again on unload.

    Load such a cog after ``bot.discord.cogs.games``; loading fails with a clear error if ``/bg`` is missing,
    a name clashes, or the group would pass Discord's limit of 25 subcommands.
    """

    bot: commands.Bot
    joined: list[app_commands.Command[Any, ..., Any]]

    async def cog_load(self) -> None:
        """Move this cog's slash commands into the games cog's ``/bg`` group instead of the top level."""
        group = self.bot.tree.get_command(GROUP)
        if not isinstance(group, app_commands.Group):
            raise RuntimeError(
                f"the /{GROUP} group is missing: load bot.discord.cogs.games before {type(self).__module__}"
            )
        mine = [c for c in self.__cog_app_commands__ if isinstance(c, app_commands.Command)]
        clashes = sorted(c.name for c in mine if group.get_command(c.name) is not None)
        if clashes:
            raise RuntimeError(f"/{GROUP} already has commands named {', '.join(clashes)}")
        if len(group.commands) + len(mine) > 25:
            raise RuntimeError(f"/{GROUP} would have {len(group.commands) + len(mine)} subcommands; Discord allows 25")
        for command in mine:
            group.add_command(command)
        self.joined = mine
        # They now live in /bg: the cog must not also add them to the tree as top-level commands.
        self.__cog_app_commands__ = []

    async def cog_unload(self) -> None:
        """Take this cog's commands out of the ``/bg`` group again."""
        group = self.bot.tree.get_command(GROUP)
        if isinstance(group, app_commands.Group):
            for command in self.joined:
                if group.get_command(command.name) is command:
                    group.remove_command(command.name)
        self.joined = []
