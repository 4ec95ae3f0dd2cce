"""Community commands under ``/bg``: leaderboards, profiles, history, GNU Backgammon IDs, watching, vacations,
time controls and forgetting a player.

The ``/bg`` group belongs to the games cog (a ``GroupCog``). This cog is a plain cog whose slash commands are
moved into that group when the cog loads (and taken out again when it unloads), so players see one command,
``/bg``, with every subcommand under it. Load it after ``bot.discord.cogs.games``.

Every command calls the game service; refusals come back as an ephemeral message naming the rule or the fix.
The first line of each command's docstring is its description in Discord's command picker.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from ...service import GameService, GameView, Refused
from ..table import Table, describe, player_of
from .joining import GROUP, JoinsBgGroup

__all__ = [
    "Community",
    "RuleSet",
    "setup",
    "leaderboard_table",
    "result_line",
    "streak_text",
    "GROUP",
    "FORMER_PLAYER",
]

#: The top-level command group these commands join (defined by the games cog).
#: How the service names a player whose data was removed.
FORMER_PLAYER = "a former player"
log = logging.getLogger("gammonbot.discord")
THREAD_GAME = re.compile(r"^#(\d+)\b")
MAX_EMBED = 4096
MAX_CHOICES = 25
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def refusals(func: F) -> F:
    """Answer a :class:`Refused` raised by a command with an ephemeral message naming the rule or the fix."""

    @functools.wraps(func)
    async def wrapper(self: Community, interaction: discord.Interaction[Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return await func(self, interaction, *args, **kwargs)
        except Refused as exc:
            text = str(exc)
            await Table.refuse(interaction, text[:1].upper() + text[1:])
            return None

    return wrapper  # type: ignore[return-value]


def _service(interaction: discord.Interaction[Any]) -> GameService:
    return interaction.client.service  # type: ignore[attr-defined,no-any-return]


class RuleSet(app_commands.Transformer):
    """A rule set typed or picked from the suggestions (name, display name or alias) -> its registered name.

    Unknown text passes through unchanged, so that the service refuses it with the list of rule sets (a
    transformer error would only earn the player a generic apology).
    """

    async def transform(self, interaction: discord.Interaction[Any], value: str) -> str:
        key = value.strip().lower()
        for cls in _service(interaction).variants():
            if key in (cls.name, cls.display_name.lower(), *(a.lower() for a in cls.aliases)):
                return cls.name
        return value.strip()

    async def autocomplete(  # type: ignore[override]
        self, interaction: discord.Interaction[Any], value: str
    ) -> list[app_commands.Choice[str]]:
        key = value.strip().lower()
        out = []
        for cls in _service(interaction).variants():
            words = [cls.name, cls.display_name.lower(), *cls.aliases]
            if not key or any(key in w.lower() for w in words):
                out.append(app_commands.Choice(name=cls.display_name[:100], value=cls.name))
        return out[:MAX_CHOICES]


# --- text ---------------------------------------------------------------------------------------------------


def streak_text(streak: int, *, short: bool = False) -> str:
    """A streak for players: ``won 3 in a row`` (``W3``), ``lost 1`` (``L1``), or a dash."""
    if streak == 0:
        return "–"
    if short:
        return f"{'W' if streak > 0 else 'L'}{abs(streak)}"
    verb = "won" if streak > 0 else "lost"
    return f"{verb} {abs(streak)} in a row" if abs(streak) > 1 else f"{verb} the last one"


def _plain(name: str, width: int) -> str:
    """A name fit for a code block: no backticks, cut to ``width``."""
    name = name.replace("`", "'").replace("\n", " ")
    return name if len(name) <= width else name[: width - 1] + "…"


def leaderboard_table(rows: list[dict[str, Any]]) -> str:
    """The leaderboard rows of the service as a fixed-width table (inside a code block)."""
    width = max([6, *(len(_plain(str(r["name"]), 20)) for r in rows)])
    head = f"{'#':>3}  {'Player':<{width}}  {'Rating':>8}  {'Won':>4}  {'Lost':>4}  Streak"
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['rank']:>3}  {_plain(str(r['name']), 20):<{width}}  {r['rating']:>8.2f}  "
            f"{r['wins']:>4}  {r['losses']:>4}  {streak_text(int(r['streak']), short=True)}"
        )
    return "```\n" + "\n".join(lines) + "\n```"


def result_line(line: dict[str, Any]) -> str:
    """One finished match for players: number, rule set, length, score, winner, rating change, thread, date."""
    kind = f"{line['length']}-point match" if line["length"] else "money session"
    sides = line.get("sides") or ["?", "?"]
    score = line.get("score") or [0, 0]
    text = f"#{line['game_id']} {line['display_name']} {kind}: {sides[0]} {score[0]} – {score[1]} {sides[1]}"
    if line.get("winner") is not None:
        text += f", won by {line['winner']}"
    if "won" in line:
        text += " — **won**" if line["won"] else " — lost"
        if line.get("rating_change") is not None:
            text += f" ({line['rating_change']:+.2f})"
    if not line.get("rated"):
        text += " · unrated"
    if line.get("thread_id"):
        text += f" · <#{line['thread_id']}>"
    if line.get("finished_at"):
        text += f" · <t:{int(line['finished_at'])}:d>"
    return text


def _lines_within(lines: list[str], limit: int) -> str:
    """As many whole lines as fit in ``limit`` characters, saying how many were left out."""
    out: list[str] = []
    used = 0
    for k, line in enumerate(lines):
        more = f"…and {len(lines) - k} more."
        if used + len(line) + 1 > limit - len(more) - 1:
            out.append(more)
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def _is_admin(user: discord.abc.User) -> bool:
    """Whether a member holds Manage Server (or Administrator) in their server."""
    if not isinstance(user, discord.Member):
        return False
    perms = user.guild_permissions
    return perms.manage_guild or perms.administrator


# --- the cog --------------------------------------------------------------------------------------------------


class Community(JoinsBgGroup):
    """Ratings, leaderboards, profiles, history, IDs, watching, vacations and time controls, under ``/bg``."""

    def __init__(self, bot: commands.Bot, service: GameService) -> None:
        self.bot = bot
        self.service = service
        #: The commands this cog put into the ``/bg`` group (taken out again on unload).
        self.joined: list[app_commands.Command[Any, ..., Any]] = []

    # --- finding things ----------------------------------------------------------------------------
    @staticmethod
    def _guild(interaction: discord.Interaction[Any], what: str) -> str:
        if interaction.guild_id is None:
            raise Refused(f"Use `/bg {what}` in a server: it is about that server's players and matches.")
        return str(interaction.guild_id)

    async def _game(self, interaction: discord.Interaction[Any], game: int | None, what: str) -> GameView:
        """The game a command names, or the game of the thread it was used in; only games of this server."""
        if game is None:
            channel = interaction.channel
            found = THREAD_GAME.match(channel.name or "") if isinstance(channel, discord.Thread) else None
            if found is None:
                raise Refused(f"Say which game with the `game` option, or use `/bg {what}` inside the match's thread.")
            game = int(found[1])
        if game < 1:
            raise Refused("Game numbers start at 1: `/bg games` and `/bg history` show them.")
        view = await self.service.view(game)
        here = str(interaction.guild_id) if interaction.guild_id is not None else None
        me = str(interaction.user.id)
        if (here is not None and view.guild_id != here) or (here is None and view.side_of(me) is None):
            raise Refused(f"Game #{game} is not a game of this server: `/bg history` lists this server's matches.")
        return view

    async def _game_choices(
        self, interaction: discord.Interaction[Any], current: str, *, finished: bool
    ) -> list[app_commands.Choice[int]]:
        me = str(interaction.user.id)
        here = str(interaction.guild_id) if interaction.guild_id is not None else None
        out: list[app_commands.Choice[int]] = []
        key = current.strip().lstrip("#").lower()
        for v in await self.service.my_games(me, here):
            if v.status == "active":
                label = describe(v)
                if not key or key in label.lower():
                    out.append(app_commands.Choice(name=label[:100], value=v.id))
        if finished:
            for line in await self.service.history(guild_id=here, player_id=me, limit=MAX_CHOICES):
                label = result_line({**line, "thread_id": None, "finished_at": None}).replace("**", "")
                if not key or key in label.lower():
                    out.append(app_commands.Choice(name=label[:100], value=int(line["game_id"])))
        return out[:MAX_CHOICES]

    def _display_names(self) -> dict[str, str]:
        return {cls.name: cls.display_name for cls in self.service.variants()}

    # --- rankings ----------------------------------------------------------------------------------
    @app_commands.command(name="leaderboard")
    @app_commands.describe(
        variant="Rule set (default: this server's rule set)",
        min_matches="Only players with at least this many rated matches in it (default 1)",
    )
    @refusals
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        variant: app_commands.Transform[str, RuleSet] | None = None,
        min_matches: app_commands.Range[int, 1, 10000] = 1,
    ) -> None:
        """This server's best players in a rule set, by rating."""
        guild = self._guild(interaction, "leaderboard")
        if variant is None:
            variant = str((await self.service.guild_settings(guild))["default_variant"])
        rows = await self.service.leaderboard(guild, variant, min_matches=min_matches)
        shown = variant
        for cls in self.service.variants():
            if cls.name == variant:
                shown = cls.display_name
        if not rows:
            least = f" with at least {min_matches} rated matches" if min_matches > 1 else ""
            await interaction.response.send_message(
                f"No {shown} players here{least} yet: a finished match (not money play) puts both players on it.",
                ephemeral=True,
            )
            return
        embed = discord.Embed(title=f"{shown} leaderboard", description=leaderboard_table(rows)[:MAX_EMBED])
        least = "1 rated match" if min_matches == 1 else f"{min_matches} rated matches"
        embed.set_footer(text=f"{self.service.ratings.display_name}; players with at least {least} in it.")
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name="profile")
    @app_commands.describe(player="Whose profile (default: yours)")
    @refusals
    async def profile(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        """A player's rating, record and streak in each rule set, and their recent matches."""
        who = player or interaction.user
        data = await self.service.profile(str(who.id))
        name = str(data["name"]) if data["name"] != str(who.id) else who.display_name
        names = self._display_names()
        embed = discord.Embed(title=f"{name}'s backgammon")
        for variant, r in sorted(data["ratings"].items(), key=lambda kv: -kv[1]["rating"]):
            games = r["wins"] + r["losses"]
            embed.add_field(
                name=names.get(variant, variant),
                value=(
                    f"Rating **{r['rating']:.2f}**\n"
                    f"{r['wins']} won, {r['losses']} lost ({games} rated)\n"
                    f"Streak: {streak_text(int(r['streak']))}\n"
                    f"Experience: {r['experience']} points"
                ),
                inline=True,
            )
        recent = [result_line(line) for line in data["recent"]]
        if recent:
            embed.add_field(name="Recent matches", value=_lines_within(recent, 1024), inline=False)
        if not data["ratings"] and not recent:
            embed.description = "No finished matches yet. `/bg play` starts one."
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name="history")
    @app_commands.describe(player="Only this player's matches (default: everyone's)")
    @refusals
    async def history(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        """Finished matches on this server, newest first, with links to their threads."""
        guild = self._guild(interaction, "history")
        lines = await self.service.history(guild_id=guild, player_id=str(player.id) if player else None)
        if not lines:
            whose = f"{player.display_name} has" if player else "This server has"
            await interaction.response.send_message(f"{whose} no finished matches yet.", ephemeral=True)
            return
        title = f"{player.display_name}'s matches" if player else "Finished matches"
        embed = discord.Embed(title=title, description=_lines_within([result_line(x) for x in lines], MAX_EMBED))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    # --- analysis ----------------------------------------------------------------------------------
    @app_commands.command(name="ids")
    @app_commands.describe(
        game="Game number (default: this thread's game)",
        after="The position after this many actions of the match record (default: the position now)",
    )
    @refusals
    async def ids(
        self,
        interaction: discord.Interaction[Any],
        game: int | None = None,
        after: app_commands.Range[int, 0, 100000] | None = None,
    ) -> None:
        """GNU Backgammon Position ID and Match ID of a position, to paste into GNU Backgammon or XG."""
        view = await self._game(interaction, game, "ids")
        if view.status in ("challenge", "declined", "expired"):
            raise Refused(f"Game #{view.id} never started, so it has no positions.")
        position_id, match_id = await self.service.ids_at(view.id, after)
        when = "now" if after is None else f"after {after} actions"
        await interaction.response.send_message(
            f"**{describe(view)}**, {when}:\n`{position_id}:{match_id}`\n"
            f"Position ID `{position_id}` · Match ID `{match_id}`",
            ephemeral=True,
        )

    @ids.autocomplete("game")
    async def _ids_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current, finished=True)

    # --- spectating --------------------------------------------------------------------------------
    @app_commands.command(name="watch")
    @app_commands.describe(
        game="Game number (default: this thread's game)",
        off="Stop following it",
    )
    @refusals
    async def watch(self, interaction: discord.Interaction[Any], game: int | None = None, off: bool = False) -> None:
        """Follow a match: be told of its turns as they are played (or stop, with off)."""
        self._guild(interaction, "watch")
        view = await self._game(interaction, game, "watch")
        me = player_of(interaction.user)
        if not off and view.side_of(me.id) is not None:
            raise Refused(f"You are playing in game #{view.id}: you are told of its turns already.")
        if off and view.status not in ("active", "challenge"):
            raise Refused(f"Game #{view.id} is over: its turn updates have stopped for everyone.")
        view = await self.service.watch(view.id, me, on=not off)
        where = f" Its thread: <#{view.thread_id}>." if view.thread_id else ""
        if off:
            text = f"You no longer follow **{describe(view)}**."
        else:
            text = f"You follow **{describe(view)}**: its turn updates will mention you.{where}"
        await interaction.response.send_message(text, ephemeral=True)

    # --- clocks ------------------------------------------------------------------------------------
    @app_commands.command(name="vacation")
    @app_commands.describe(days="How many days you will be away (part days allowed, like 1.5)")
    @refusals
    async def vacation(
        self, interaction: discord.Interaction[Any], days: app_commands.Range[float, 0.1, 366.0]
    ) -> None:
        """Declare an absence: your match clocks stop until you are back."""
        guild = self._guild(interaction, "vacation")
        me = player_of(interaction.user)
        ends = int(await self.service.vacation(me, guild, days))
        running = [v for v in await self.service.my_games(me.id, guild) if v.status == "active" and v.thread_id]
        told = f" Your opponents are told in {', '.join(f'<#{v.thread_id}>' for v in running)}." if running else ""
        await interaction.response.send_message(
            f"Enjoy your break. Your vacation ends <t:{ends}:F> (<t:{ends}:R>); "
            f"your clocks stand still until then.{told}",
            ephemeral=True,
        )
        # Opponents see it: a line in each running match's thread (no ping).
        for view in running:
            await self._tell_thread(
                view, f"{me.name} is on vacation until <t:{ends}:F>: their clock stands still until then."
            )

    async def _tell_thread(self, view: GameView, text: str) -> None:
        """Post a line in a match's thread; a thread that is gone or closed to the bot is skipped (and logged)."""
        try:
            thread_id = int(view.thread_id or 0)
            channel = self.bot.get_channel(thread_id) or await self.bot.fetch_channel(thread_id)
            if isinstance(channel, discord.abc.Messageable):
                await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            log.warning("could not post in the thread of game #%s", view.id, exc_info=True)

    @app_commands.command(name="clocks")
    @refusals
    async def clocks(self, interaction: discord.Interaction[Any]) -> None:
        """List the time controls a match can be played with."""
        default = None
        if interaction.guild_id is not None:
            default = (await self.service.guild_settings(str(interaction.guild_id)))["default_time_control"]
        lines = []
        for tc in self.service.time_controls():
            mark = " — **this server's default**" if tc.name == default else ""
            summary = f"\n  {tc.summary}" if tc.summary else ""
            lines.append(f"**{tc.display_name}** `{tc.name}`: {tc.describe()}{mark}{summary}")
        if not lines:
            await interaction.response.send_message("No time controls are registered.", ephemeral=True)
            return
        if default is None:
            lines.append("Matches here have no clock unless the challenge names one.")
        await interaction.response.send_message(_lines_within(lines, 2000), ephemeral=True)

    # --- administration ----------------------------------------------------------------------------
    @app_commands.command(name="forget")
    @app_commands.describe(player="Whose personal data to remove (their matches stay, under a neutral name)")
    @refusals
    async def forget(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        """Remove a player's personal data on request (needs the Manage Server permission)."""
        guild = self._guild(interaction, "forget")
        if not _is_admin(interaction.user):
            raise Refused("Only members with the Manage Server permission can remove a player's data.")
        changed = await self.service.forget(guild, str(player.id), admin=True)
        await interaction.response.send_message(
            f"Removed the personal data of <@{player.id}> ({changed} records changed). "
            f"Their finished matches stay in their opponents' records, shown as “{FORMER_PLAYER}”.",
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: commands.Bot) -> None:
    """Add the community commands to ``/bg`` (the bot must carry ``service``; load the games cog first)."""
    await bot.add_cog(Community(bot, bot.service))  # type: ignore[attr-defined]
