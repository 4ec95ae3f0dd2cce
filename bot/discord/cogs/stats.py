"""``/bg-stats leaderboard | profile | history``: ratings, records and finished matches of this server.

Ratings belong to a server: everything here shows the server the command is used in (a profile asked for in a
direct message shows only the asker's own matches).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from engine import i18n
from engine.i18n import _, ngettext

from ...service import FORGOTTEN, not_installed
from ..context import requester, require_server
from ..errors import refusals, reply
from ..options import RuleSet
from ..text import lines_within, match_kind, rating, safe
from ..tree import BgCog

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Stats", "setup", "leaderboard_table", "result_line", "streak_text", "FORMER_PLAYER"]

#: How the service names a player whose data was removed (stored in English, shown in the reader's language).
FORMER_PLAYER = FORGOTTEN
MAX_EMBED = 4096


def streak_text(streak: int, *, short: bool = False) -> str:
    """A streak for players: ``won 3 in a row`` (``W3``), ``lost 1`` (``L1``), or a dash."""
    if streak == 0:
        return "–"
    count = abs(streak)
    if short:
        # Translators: a short winning streak in a table column, like W3 (won 3 in a row).
        won = _("W{count}")
        # Translators: a short losing streak in a table column, like L2 (lost 2 in a row).
        lost = _("L{count}")
        return (won if streak > 0 else lost).format(count=count)
    if count == 1:
        return _("won the last one") if streak > 0 else _("lost the last one")
    if streak > 0:
        return ngettext("won {count} in a row", "won {count} in a row", count).format(count=count)
    return ngettext("lost {count} in a row", "lost {count} in a row", count).format(count=count)


def _plain(name: str, width: int) -> str:
    """A name fit for a code block: no backticks, cut to ``width``."""
    name = name.replace("`", "'").replace("\n", " ")
    return name if len(name) <= width else name[: width - 1] + "…"


def leaderboard_table(rows: list[dict[str, Any]]) -> str:
    """The leaderboard rows of the service as a fixed-width table (inside a code block)."""
    player, rated, won, lost, streak = _("Player"), _("Rating"), _("Won"), _("Lost"), _("Streak")
    width = max([6, len(player), *(len(_plain(str(r["name"]), 20)) for r in rows)])
    wide = max(8, len(rated))
    w_won, w_lost = max(4, len(won)), max(4, len(lost))
    head = f"{'#':>3}  {player:<{width}}  {rated:>{wide}}  {won:>{w_won}}  {lost:>{w_lost}}  {streak}"
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['rank']:>3}  {_plain(str(r['name']), 20):<{width}}  {rating(r['rating']):>{wide}}  "
            f"{r['wins']:>{w_won}}  {r['losses']:>{w_lost}}  {streak_text(int(r['streak']), short=True)}"
        )
    return "```\n" + "\n".join(lines) + "\n```"


def _name(name: str) -> str:
    """A stored player name as shown: an erased player's neutral name in the reader's language."""
    return _(FORMER_PLAYER) if name == FORMER_PLAYER else name


def result_line(line: dict[str, Any]) -> str:
    """One finished match for players: number, rule set, length, score, winner, rating change, thread, date."""
    kind = match_kind(int(line["length"])) if line["length"] else _("money session")
    sides = [safe(_name(str(s))) for s in line.get("sides") or ["?", "?"]]
    score = line.get("score") or [0, 0]
    if line.get("winner") is not None and len(sides) == 2 and str(line["winner"]) == (line.get("sides") or ["", ""])[1]:
        sides, score = sides[::-1], list(score)[::-1]  # the winner's score first
    text = f"#{line['game_id']} {_(str(line['display_name']))} {kind}: {sides[0]} {score[0]} – {score[1]} {sides[1]}"
    if line.get("winner") is not None:
        text += _(", won by {player}").format(player=safe(_name(str(line["winner"]))))
    if "won" in line:
        text += " " + (_("— **won**") if line["won"] else _("— lost"))
        if line.get("rating_change") is not None:
            text += f" ({rating(float(line['rating_change']), sign=True)})"
    if not line.get("rated"):
        text += " · " + _("unrated")
    if line.get("unavailable"):  # "rule set X is not installed": the match is kept
        text += f" · {line['unavailable']}"
    if line.get("thread_id"):
        text += f" · <#{line['thread_id']}>"
    if line.get("finished_at"):
        text += f" · <t:{int(line['finished_at'])}:d>"
    return text


class Stats(BgCog):
    """Leaderboards, profiles and match history: ``/bg-stats <command>``."""

    root = "bg-stats"

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
        require_server(interaction)
        asker = requester(interaction)
        if variant is None:
            variant = str((await self.service.guild_settings(asker))["default_variant"])
        rows = await self.service.leaderboard(asker, variant, min_matches=min_matches)
        shown = next((_(cls.display_name) for cls in self.service.variants() if cls.name == variant), variant)
        if not rows:
            if min_matches > 1:
                empty = ngettext(
                    "No {rule_set} players here with at least {count} rated match yet: a finished match (not money "
                    "play) puts both players on it.",
                    "No {rule_set} players here with at least {count} rated matches yet: a finished match (not money "
                    "play) puts both players on it.",
                    min_matches,
                )
            else:
                empty = _("No {rule_set} players here yet: a finished match (not money play) puts both players on it.")
            await reply(interaction, empty.format(rule_set=shown, count=min_matches))
            return
        title = _("{rule_set} leaderboard").format(rule_set=shown)
        embed = discord.Embed(title=title, description=leaderboard_table(rows)[:MAX_EMBED])
        if not_installed(variant):  # its ratings are kept while its plugin is away
            embed.title = f"{title} ({not_installed(variant)})"
        footer = ngettext(
            "{system}; players with at least {count} rated match in it.",
            "{system}; players with at least {count} rated matches in it.",
            min_matches,
        ).format(system=_(self.service.ratings.display_name), count=min_matches)
        embed.set_footer(text=footer)
        await reply(interaction, embed=embed)

    @app_commands.command(name="profile")
    @app_commands.describe(player="Whose profile (default: yours)")
    @refusals
    async def profile(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        """A player's rating, record and streak in each rule set, and their recent matches."""
        who = player or interaction.user
        data = await self.service.profile(requester(interaction), str(who.id))
        name = str(data["name"]) if data["name"] != str(who.id) else who.display_name
        names = {cls.name: _(cls.display_name) for cls in self.service.variants()}
        embed = discord.Embed(title=_("{name}'s backgammon").format(name=name))
        for variant, r in sorted(data["ratings"].items(), key=lambda kv: -kv[1]["rating"]):
            games = r["wins"] + r["losses"]
            record = ngettext(
                "{won} won, {lost} lost ({count} rated)", "{won} won, {lost} lost ({count} rated)", games
            ).format(won=r["wins"], lost=r["losses"], count=games)
            experience = ngettext("Experience: {count} point", "Experience: {count} points", int(r["experience"]))
            embed.add_field(
                name=names.get(variant, variant) + (f" ({r['unavailable']})" if r.get("unavailable") else ""),
                value="\n".join(
                    (
                        _("Rating **{rating}**").format(rating=rating(r["rating"])),
                        record,
                        _("Streak: {streak}").format(streak=streak_text(int(r["streak"]))),
                        experience.format(count=i18n.number(int(r["experience"]))),
                    )
                ),
                inline=True,
            )
        recent = [result_line(line) for line in data["recent"]]
        if recent:
            embed.add_field(name=_("Recent matches"), value=lines_within(recent, 1024), inline=False)
        if not data["ratings"] and not recent:
            embed.description = _("No finished matches yet. `/bg play` starts one.")
        await reply(interaction, embed=embed)

    @app_commands.command(name="history")
    @app_commands.describe(player="Only this player's matches (default: everyone's)")
    @refusals
    async def history(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        """Finished matches on this server, newest first, with links to their threads."""
        require_server(interaction)
        lines = await self.service.history(requester(interaction), player_id=str(player.id) if player else None)
        if not lines:
            if player:
                empty = _("{name} has no finished matches yet.").format(name=safe(player.display_name))
            else:
                empty = _("This server has no finished matches yet.")
            await reply(interaction, empty)
            return
        title = _("{name}'s matches").format(name=player.display_name) if player else _("Finished matches")
        embed = discord.Embed(title=title, description=lines_within([result_line(x) for x in lines], MAX_EMBED))
        await reply(interaction, embed=embed)


async def setup(bot: Bot) -> None:
    """Add ``/bg-stats``."""
    await bot.add_cog(Stats(bot))
