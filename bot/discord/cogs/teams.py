"""``/bg-team propose | proposals | adopt | approve``: consultation in Backgammon Doubles.

Consultation is private to the team: proposals, plays held for approval, approvals and rejections are posted only
in the team's room (see :mod:`..threads`), never in the match thread. What a teammate may propose now is the
engine's answer (:func:`engine.controls.allowed_actions`), not a rule kept here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from engine.controls import ProposalKind, allowed_actions
from engine.i18n import _

from ...service import SYSTEM, EventKind, Refused
from ..context import MAX_CHOICES, find_game, game_choices, requester
from ..errors import refusals, reply
from ..options import match_plays
from ..text import NO_PINGS, clip, safe
from ..tree import BgCog

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Teams", "setup"]


class Teams(BgCog):
    """Backgammon Doubles consultation: ``/bg-team <command>``."""

    root = "bg-team"

    @app_commands.command(name="propose")
    @app_commands.describe(
        text="A play like 13/7 8/7, or double, roll, take, pass, beaver, accept, reject",
        game="Game number (default: this thread's game, or your only game)",
    )
    @refusals
    async def propose(self, interaction: discord.Interaction[Any], text: str, game: int | None = None) -> None:
        """Backgammon Doubles: suggest a play or cube decision to your team (only your teammate sees it)."""
        view = await find_game(interaction, game)
        out = await self.service.propose(view.id, requester(interaction), text)
        where = await self.threads.tell_teams(out)
        pid = next((e.data.get("proposal") for e in out.events if e.kind == EventKind.PROPOSAL), None)
        if pid is not None:
            done = _("Proposed to your team (proposal #{number}).").format(number=pid)
        else:
            done = _("Proposed to your team.")
        await reply(interaction, clip(f"{done} {where}".strip()))

    @propose.autocomplete("text")
    async def _propose_text(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            view = await find_game(interaction, getattr(interaction.namespace, "game", None))
            side = view.side_of(str(interaction.user.id))
            if side is None or view.to_act is None or view.side_of(view.to_act) != side:
                return []
            allowed = allowed_actions(await self.service.state(view.id, SYSTEM), side)
        except Refused:
            return []
        if ProposalKind.PLAY in allowed.proposal_kinds:
            options = match_plays(view.plays, current)
        else:
            key = current.strip().lower()
            options = [str(k) for k in allowed.proposal_kinds if str(k).startswith(key)]
        return [app_commands.Choice(name=o[:100], value=o[:100]) for o in options[:MAX_CHOICES]]

    @app_commands.command(name="proposals")
    @app_commands.describe(game="Game number (default: this thread's game, or your only game)")
    @refusals
    async def proposals(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        """Backgammon Doubles: your team's proposals for the decision at hand (only your team sees them)."""
        view = await find_game(interaction, game)
        rows = await self.service.proposals(view.id, requester(interaction))
        if not rows:
            await reply(
                interaction,
                _("Your team has no open proposals in game #{game}. Suggest one with `/bg-team propose`.").format(
                    game=view.id
                ),
            )
            return
        lines = [_("**Your team's proposals in game #{game}:**").format(game=view.id)]
        lines += [f"#{r['id']} **{safe(str(r['text']))}** — {safe(str(r['name']))}" for r in rows]
        side = view.side_of(str(interaction.user.id))
        acting = view.acting[side] if view.acting is not None and side is not None else None
        lines.append(
            _("{name}, the acting member, plays one with `/bg-team adopt proposal:<number>`.").format(
                name=safe(view.name(acting))
            )
        )
        await reply(interaction, clip("\n".join(lines)), allowed_mentions=NO_PINGS, private=True)

    @app_commands.command(name="adopt")
    @app_commands.describe(
        proposal="The proposal's number (suggestions list your team's proposals)",
        game="Game number (default: this thread's game, or your only game)",
    )
    @refusals
    async def adopt(
        self, interaction: discord.Interaction[Any], proposal: app_commands.Range[int, 1], game: int | None = None
    ) -> None:
        """Backgammon Doubles: as the acting member, play a proposal of your teammate."""
        view = await find_game(interaction, game)
        me = requester(interaction)
        await self.table.command_action(
            interaction, view.id, lambda: self.threads.private_first(self.service.adopt(view.id, me, proposal))
        )

    @adopt.autocomplete("proposal")
    async def _adopt_proposal(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        try:
            view = await find_game(interaction, getattr(interaction.namespace, "game", None))
            rows = await self.service.proposals(view.id, requester(interaction))
        except Refused:
            return []
        key = current.strip().lstrip("#").lower()
        out = []
        for r in rows:
            label = f"#{r['id']} {r['text']} — {r['name']}"
            if not key or key in label.lower():
                out.append(app_commands.Choice(name=label[:100], value=int(r["id"])))
        return out[:MAX_CHOICES]

    @app_commands.command(name="approve")
    @app_commands.describe(
        agree="True (default) to let your teammate's play stand; False to send them back to choose again",
        game="Game number (default: this thread's game, or your only game)",
    )
    @refusals
    async def approve(self, interaction: discord.Interaction[Any], agree: bool = True, game: int | None = None) -> None:
        """Backgammon Doubles, "both must agree": approve (or reject) the play your acting teammate chose."""
        view = await find_game(interaction, game)
        me = requester(interaction)
        if agree:
            await self.table.command_action(
                interaction, view.id, lambda: self.threads.private_first(self.service.approve(view.id, me, True))
            )
            return
        out = await self.service.approve(view.id, me, False)
        where = await self.threads.tell_teams(out)
        disagree = _("You do not agree: your teammate chooses again.")
        await reply(interaction, clip(f"{disagree} {where}".strip()))

    @propose.autocomplete("game")
    @proposals.autocomplete("game")
    @adopt.autocomplete("game")
    @approve.autocomplete("game")
    async def _game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await game_choices(interaction, current)


async def setup(bot: Bot) -> None:
    """Add ``/bg-team`` (Backgammon Doubles consultation)."""
    await bot.add_cog(Teams(bot))
