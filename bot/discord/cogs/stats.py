"""``/bg stats leaderboard | profile | history``: ratings, records and finished matches of this server.

Ratings belong to a server: everything here shows the server the command is used in (a profile asked for in a
direct message shows only the asker's own matches).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from ...service import not_installed
from ..context import requester, require_server
from ..errors import refusals, reply
from ..options import RuleSet
from ..text import lines_within, safe
from ..tree import BgCog

if TYPE_CHECKING:
    from ..app import GammonBot

__all__ = ["Stats", "setup", "leaderboard_table", "result_line", "streak_text", "FORMER_PLAYER"]

#: How the service names a player whose data was removed.
FORMER_PLAYER = "a former player"
MAX_EMBED = 4096


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
    sides = [safe(str(s)) for s in line.get("sides") or ["?", "?"]]
    score = line.get("score") or [0, 0]
    text = f"#{line['game_id']} {line['display_name']} {kind}: {sides[0]} {score[0]} – {score[1]} {sides[1]}"
    if line.get("winner") is not None:
        text += f", won by {safe(str(line['winner']))}"
    if "won" in line:
        text += " — **won**" if line["won"] else " — lost"
        if line.get("rating_change") is not None:
            text += f" ({line['rating_change']:+.2f})"
    if not line.get("rated"):
        text += " · unrated"
    if line.get("unavailable"):  # "rule set X is not installed": the match is kept
        text += f" · {line['unavailable']}"
    if line.get("thread_id"):
        text += f" · <#{line['thread_id']}>"
    if line.get("finished_at"):
        text += f" · <t:{int(line['finished_at'])}:d>"
    return text


class Stats(BgCog):
    """Leaderboards, profiles and match history: ``/bg stats <command>``."""

    stats = app_commands.Group(name="stats", description="Ratings, records and finished matches of this server")

    @stats.command(name="leaderboard")
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
        require_server(interaction)
        asker = requester(interaction)
        if variant is None:
            variant = str((await self.service.guild_settings(asker))["default_variant"])
        rows = await self.service.leaderboard(asker, variant, min_matches=min_matches)
        shown = next((cls.display_name for cls in self.service.variants() if cls.name == variant), variant)
        if not rows:
            least = f" with at least {min_matches} rated matches" if min_matches > 1 else ""
            await reply(
                interaction,
                f"No {shown} players here{least} yet: a finished match (not money play) puts both players on it.",
            )
            return
        embed = discord.Embed(title=f"{shown} leaderboard", description=leaderboard_table(rows)[:MAX_EMBED])
        if not_installed(variant):  # its ratings are kept while its plugin is away
            embed.title = f"{shown} leaderboard ({not_installed(variant)})"
        least = "1 rated match" if min_matches == 1 else f"{min_matches} rated matches"
        embed.set_footer(text=f"{self.service.ratings.display_name}; players with at least {least} in it.")
        await reply(interaction, embed=embed)

    @stats.command(name="profile")
    @app_commands.describe(player="Whose profile (default: yours)")
    @refusals
    async def profile(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        """A player's rating, record and streak in each rule set, and their recent matches."""
        who = player or interaction.user
        data = await self.service.profile(requester(interaction), str(who.id))
        name = str(data["name"]) if data["name"] != str(who.id) else who.display_name
        names = {cls.name: cls.display_name for cls in self.service.variants()}
        embed = discord.Embed(title=f"{name}'s backgammon")
        for variant, r in sorted(data["ratings"].items(), key=lambda kv: -kv[1]["rating"]):
            games = r["wins"] + r["losses"]
            embed.add_field(
                name=names.get(variant, variant) + (f" ({r['unavailable']})" if r.get("unavailable") else ""),
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
            embed.add_field(name="Recent matches", value=lines_within(recent, 1024), inline=False)
        if not data["ratings"] and not recent:
            embed.description = "No finished matches yet. `/bg play` starts one."
        await reply(interaction, embed=embed)

    @stats.command(name="history")
    @app_commands.describe(player="Only this player's matches (default: everyone's)")
    @refusals
    async def history(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        """Finished matches on this server, newest first, with links to their threads."""
        require_server(interaction)
        lines = await self.service.history(requester(interaction), player_id=str(player.id) if player else None)
        if not lines:
            whose = f"{safe(player.display_name)} has" if player else "This server has"
            await reply(interaction, f"{whose} no finished matches yet.")
            return
        title = f"{player.display_name}'s matches" if player else "Finished matches"
        embed = discord.Embed(title=title, description=lines_within([result_line(x) for x in lines], MAX_EMBED))
        await reply(interaction, embed=embed)


async def setup(bot: GammonBot) -> None:
    """Add ``/bg stats``."""
    await bot.add_cog(Stats(bot))
