"""The slash commands: a few top-level commands (``/bg``, ``/bg-team``, ``/bg-admin``…), the cogs that fill them, and
the one error handler.

Discord refuses a command whose names, descriptions and choices pass 8,000 characters (:mod:`.limits`), so the bot's
commands are several top-level commands by what players do, each well under that, rather than one ``/bg``. They are
listed once, in :data:`ROOTS`: a name players can guess (each starts with ``bg`` so that typing ``/bg`` shows them
all together), what it is for, and whether Discord shows it only to members with the Manage Server permission
(``/bg-admin``: Discord hides it from everyone else, and the service still checks the permission).

Each cog (``bot/discord/cogs/``) is a :class:`BgCog`: its slash commands join the top-level command it names
(``root``, or per command ``joins``) when it loads and leave it when it unloads, so cogs load in any order and a
feature is one file. Discord allows 25 subcommands or groups in a command (and 25 in each group); a cog that would
pass that, or reuse a name, fails to load with a clear error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from .errors import answers_refusals, on_command_error
from .language import speak
from .limits import MAX_OPTIONS

if TYPE_CHECKING:
    from .protocols import Bot

__all__ = ["ROOTS", "Root", "GammonTree", "BgCog", "root_group", "command_of"]


@dataclass(frozen=True)
class Root:
    """A top-level command: its name, its description (the first line players read), and whether only members
    with the Manage Server permission see it."""

    name: str
    description: str
    admin: bool = False


#: Every top-level command, in the order players read them in ``/bg help`` and the README.
ROOTS: Mapping[str, Root] = {
    root.name: root
    for root in (
        Root("bg", "Play backgammon: challenges, moves and boards"),
        Root("bg-team", "Backgammon Doubles: consult your teammate in private"),
        Root("bg-tour", "Tournaments: knockouts, leagues and Swiss events"),
        Root("bg-stats", "Ratings, records and finished matches of this server"),
        Root("bg-dice", "Verifiable dice: check a match's rolls, count a player's"),
        Root("bg-info", "The rule sets, their rules and the time controls"),
        Root("bg-me", "Your own settings, vacations and data"),
        Root("bg-admin", "Server settings, tournaments and data removal (Manage Server)", admin=True),
    )
}

#: What members need to see an admin command (Discord hides it from the others; a server may change that in its
#: Integrations settings, so the service checks the permission itself too).
ADMIN_PERMISSIONS = discord.Permissions(manage_guild=True)


class GammonTree(app_commands.CommandTree[discord.Client]):
    """The command tree: every refusal and unexpected error of a command ends in :func:`on_command_error`.

    Before any command or suggestion runs, :meth:`interaction_check` sets the languages it speaks (the asker's, and
    the server's for what it posts publicly: :func:`.language.speak`)."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        await speak(interaction)
        return True

    async def on_error(self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError) -> None:
        await on_command_error(interaction, error)


def root_group(tree: app_commands.CommandTree[Any], name: str = "bg") -> app_commands.Group:
    """The top-level command ``name`` of a command tree (one of :data:`ROOTS`; made and added the first time it is
    asked for)."""
    root = ROOTS.get(name)
    if root is None:
        raise RuntimeError(f"/{name} is not one of the bot's top-level commands ({', '.join(ROOTS)})")
    group = tree.get_command(name)
    if isinstance(group, app_commands.Group):
        return group
    if group is not None:
        raise RuntimeError(f"/{name} is a command, not a group")
    group = app_commands.Group(
        name=name,
        description=root.description,
        guild_only=root.admin,
        default_permissions=ADMIN_PERMISSIONS if root.admin else None,
    )
    tree.add_command(group)
    return group


def command_of(tree: app_commands.CommandTree[Any], path: str) -> app_commands.Command[Any, ..., Any] | None:
    """The command typed as ``path`` (``"bg-team propose"``), or None."""
    first, *rest = path.split()
    found: Any = tree.get_command(first)
    for word in rest:
        found = found.get_command(word) if isinstance(found, app_commands.Group) else None
    return found if isinstance(found, app_commands.Command) else None


Child = app_commands.Command[Any, ..., Any] | app_commands.Group


class BgCog(commands.Cog):
    """A cog whose slash commands join one of the bot's top-level commands.

    Subclasses declare commands with ``@app_commands.command`` (they become ``/<root> <name>``) or a class attribute
    ``app_commands.Group(name=...)`` with ``@group.command`` (``/<root> <group> <name>``), each decorated with
    :func:`~bot.discord.errors.refusals` (checked on load). ``root`` names the top-level command they join (one of
    :data:`ROOTS`); ``joins`` sends a command or group, by name, to another one. ``self.service``, ``self.table`` and
    ``self.threads`` are the bot's.
    """

    #: The top-level command this cog's commands join.
    root: ClassVar[str] = "bg"
    #: Commands or groups of this cog (by name) that join another top-level command than :attr:`root`.
    joins: ClassVar[Mapping[str, str]] = {}

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.service = bot.service
        self.table = bot.table
        self.threads = bot.threads
        self.joined: list[tuple[str, Child]] = []

    def _destination(self, child: Child) -> str:
        return self.joins.get(child.name, self.root)

    async def cog_load(self) -> None:
        """Move this cog's slash commands and groups into their top-level commands instead of the top level."""
        tree = self.bot.tree
        mine: list[Child] = list(self.__cog_app_commands__)
        for child in mine:
            for command in child.walk_commands() if isinstance(child, app_commands.Group) else (child,):
                if isinstance(command, app_commands.Command) and not answers_refusals(command.callback):
                    where = f"/{self._destination(child)} {command.qualified_name}"
                    raise RuntimeError(f"{where}: decorate its callback with @refusals")
        by_root: dict[str, list[Child]] = {}
        for child in mine:
            by_root.setdefault(self._destination(child), []).append(child)
        for name, children in by_root.items():
            group = root_group(tree, name)
            clashes = sorted(c.name for c in children if group.get_command(c.name) is not None)
            if clashes:
                raise RuntimeError(f"/{name} already has commands named {', '.join(clashes)}")
            if len(group.commands) + len(children) > MAX_OPTIONS:
                count = len(group.commands) + len(children)
                raise RuntimeError(f"/{name} would have {count} subcommands and groups; Discord allows {MAX_OPTIONS}")
        for name, children in by_root.items():
            group = root_group(tree, name)
            for command in children:
                group.add_command(command)
                self.joined.append((name, command))
        # They now live in the top-level commands: the cog must not also add them to the tree on their own.
        self.__cog_app_commands__ = []

    async def cog_unload(self) -> None:
        """Take this cog's commands out of their top-level commands again (and a top-level command left empty out of
        the tree: Discord would show it with nothing in it)."""
        tree = self.bot.tree
        for name, command in self.joined:
            group = tree.get_command(name)
            if isinstance(group, app_commands.Group):
                if group.get_command(command.name) is command:
                    group.remove_command(command.name)
                if not group.commands:
                    tree.remove_command(name)
        self.joined = []
