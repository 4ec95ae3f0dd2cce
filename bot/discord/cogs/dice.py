"""``/bg-dice verify | stats``: verifiable dice, and how a player's dice have fallen.

A match's dice are committed to before its first roll; ``verify`` checks them on the record exactly as stored (the
service reads it without replaying it, so even an edited record is checked, and the changed roll named) and attaches
the record, which anyone can check again with ``gammonbot verify``.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from engine import i18n
from engine.i18n import _, ngettext

from ...service import Refused
from ..context import game_choices, game_number, requester
from ..errors import refusals, reply
from ..text import capital, clip, describe, safe
from ..tree import BgCog

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Dice", "dice_table", "setup"]


def dice_table(stats: Any) -> str:
    """A player's dice statistics (engine.fairdice.DiceStats) as a small fixed-width table in a code block."""
    e = i18n.decimal(stats.expected_face, 1)
    titles = (_("Number"), _("Seen"), _("Expected"))
    width = max(9, *(len(t) + 1 for t in titles))
    head = f"{titles[0]:<{width}}" + "".join(f"{k:>6}" for k in range(1, 7))
    seen = f"{titles[1]:<{width}}" + "".join(f"{n:>6}" for n in stats.faces)
    expected = f"{titles[2]:<{width}}" + "".join(f"{e:>6}" for _face in range(6))
    return "```\n" + "\n".join((head, seen, expected)) + "\n```"


class Dice(BgCog):
    """Dice verification and statistics: ``/bg-dice <command>``."""

    root = "bg-dice"

    @app_commands.command(name="verify")
    @app_commands.describe(game="Game number (default: this thread's game)")
    @refusals
    async def verify(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        """Check a match's dice against the commitment the bot published before the first roll."""
        asker = requester(interaction)
        game_id = await game_number(interaction, game)
        title = _("#{game} (checked on its record as stored)").format(game=game_id)
        try:
            view = await self.service.view(game_id, asker)
        except Refused:
            view = None  # no such game here (the service says so below), or a record that no longer replays
        if view is not None:
            if view.never_started:
                raise Refused(_("Game #{game} never started, so it has no dice to check.").format(game=view.id))
            title = describe(view)
        try:
            report, record, commitment = await self.service.checked_record(game_id, asker)
        except ValueError as exc:
            raise Refused(
                _("The stored record of game #{game} cannot be checked: {reason}").format(game=game_id, reason=exc)
            ) from None
        text = _("**{game}** — dice {verdict}").format(game=title, verdict=capital(report.message))
        if record is None:
            await reply(interaction, clip(text))
            return
        filename = f"game{game_id}-record.json"
        text += "\n" + _(
            "The match record is attached: anyone can check it with {command} (commitment {commitment})."
        ).format(command=f"`gammonbot verify {filename}`", commitment=f"`{commitment}`")
        await reply(interaction, clip(text), file=discord.File(io.BytesIO(record.encode()), filename=filename))

    @verify.autocomplete("game")
    async def _verify_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await game_choices(interaction, current, finished=True)

    @app_commands.command(name="stats")
    @app_commands.describe(player="Whose dice (default: yours)")
    @refusals
    async def stats(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        """A player's dice: how often each number and doublets came up, against what fair dice give."""
        who = player or interaction.user
        if interaction.guild_id is None and who.id != interaction.user.id:
            raise Refused(
                _("In direct messages you see your own dice only: use `/bg-dice stats` in a server for others'.")
            )
        here = interaction.guild_id is not None
        stats = await self.service.dice_stats(requester(interaction), str(who.id))
        name = safe(who.display_name)
        if not stats.rolls:
            if here:
                empty = _(
                    "{name} has no rolls in this server's matches yet (opening throws, one die each, are not counted)."
                )
            else:
                empty = _(
                    "{name} has no rolls in all your matches yet (opening throws, one die each, are not counted)."
                )
            await reply(interaction, empty.format(name=name))
            return
        verdict = (
            _("unusual for fair dice (they give a p-value this low one time in a hundred)")
            if stats.face_p_value < 0.01
            else _("in line with fair dice")
        )
        if here:
            head = ngettext(
                "**{name}'s dice** in this server's matches: {count} roll (opening throws, one die each, not counted).",
                "**{name}'s dice** in this server's matches: {count} rolls (opening throws, one die each, not "
                "counted).",
                stats.rolls,
            )
        else:
            head = ngettext(
                "**{name}'s dice** in all your matches: {count} roll (opening throws, one die each, not counted).",
                "**{name}'s dice** in all your matches: {count} rolls (opening throws, one die each, not counted).",
                stats.rolls,
            )
        text = (
            head.format(name=name, count=i18n.number(stats.rolls))
            + "\n"
            + dice_table(stats)
            + _("Doublets: **{count}** (expected {expected}).").format(
                count=i18n.number(stats.doublets), expected=i18n.decimal(stats.expected_doublets, 1)
            )
            + "\n"
            + _("Chi-square of the numbers {chi_square} with 5 degrees of freedom, p = {p_value}: {verdict}.").format(
                chi_square=i18n.decimal(stats.face_chi_square, 2),
                p_value=i18n.decimal(stats.face_p_value, 2),
                verdict=verdict,
            )
        )
        await reply(interaction, clip(text))


async def setup(bot: Bot) -> None:
    """Add ``/bg-dice``."""
    await bot.add_cog(Dice(bot))
