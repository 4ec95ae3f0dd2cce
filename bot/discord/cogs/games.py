"""``/bg play, move, resign, board, games, hint, watch, export, ids``: the commands about one game.

Each command finds its game through :func:`..context.find_game` (the ``game`` option, the thread it is used in, or
the asker's only running game) and asks the service; a refusal reaches the asker through the command tree's one
error handler. The first line of each command's docstring is its description in Discord's command picker.

Every command but ``/bg play`` is deferred before it runs (``@refusals``) and answers with ``reply``; ``/bg play``
answers with the public challenge itself, its first Discord call.
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

from engine import i18n
from engine.i18n import _, ngettext
from engine.match import Phase
from engine.plugins import UnknownVariant, registry

from ...service import GameStatus, Refused
from ..components import games_message
from ..context import MAX_CHOICES, find_game, game_choices, games_page, player_of, requester, require_server
from ..controls import challenge_controls
from ..errors import refusals, reply
from ..options import clock_choices, match_plays, option_choices, variant_choices
from ..text import callers, clip, describe, mention, pings, texts
from ..tree import BgCog

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Games", "setup"]

log = logging.getLogger("gammonbot.discord")


class Games(BgCog):
    """Challenges, moves, boards and the records of one game: ``/bg <command>``."""

    # --- challenges ---------------------------------------------------------------------------------------
    @app_commands.command(name="play")
    @app_commands.guild_only()
    @app_commands.describe(
        opponent="Who you challenge (leave empty for an open challenge anyone may accept)",
        variant="Rule set: Backgammon, Longgammon, Sprintgammon, Backgammon Doubles…",
        length="Match length in points; 0 for money play (default: the server's setting)",
        jacoby="Money play: gammons count only once the cube has been turned",
        beavers="Money play: a player who is doubled may take and redouble at once",
        crawford="Match play: the Crawford rule (no doubling in the game after someone reaches match point - 1)",
        teammate="Backgammon Doubles: your teammate",
        partner="Backgammon Doubles: your opponent's teammate",
        clock="Time control: a preset such as correspondence or tournament-clock (default: the server's)",
        bot="Play the computer instead: pick its strength (bgsage for backgammon, a heuristic player elsewhere)",
        consult="Backgammon Doubles: free (the acting member decides) or agree (the teammate approves each play)",
        acting="Backgammon Doubles: rotate (the acting member changes each game) or choose (teams pick each game)",
        options="More rules, like: jacoby beavers max_cube=16 holland games=5 koks=on (suggested as you type)",
    )
    @refusals(defer=False)
    async def play(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.Member | None = None,
        variant: str | None = None,
        length: app_commands.Range[int, 0, 99] | None = None,
        jacoby: bool | None = None,
        beavers: bool | None = None,
        crawford: bool | None = None,
        teammate: discord.Member | None = None,
        partner: discord.Member | None = None,
        clock: str | None = None,
        bot: str | None = None,
        consult: Literal["free", "agree"] = "free",
        acting: Literal["rotate", "choose"] | None = None,
        options: str | None = None,
    ) -> None:
        """Challenge someone (or anyone, or the bot) to a backgammon match or a money game."""
        require_server(interaction)
        if isinstance(interaction.channel, discord.Thread):
            raise Refused(_("Challenge from a text channel, not inside a thread: each match gets a thread of its own."))
        for person in (opponent, teammate, partner):
            if person is not None and person.bot:
                raise Refused(
                    _("{name} is a Discord bot; to play the computer, pick a `bot` strength.").format(
                        name=person.display_name
                    )
                )
        if bot is not None and (opponent is not None or partner is not None):
            raise Refused(_("Choose either an opponent or the bot, not both."))
        # The on/off options and the options string are read as one options string (one given twice is refused).
        words = [options or ""] + [
            f"{k}={'on' if v else 'off'}"
            for k, v in (("jacoby", jacoby), ("beavers", beavers), ("crawford", crawford))
            if v is not None
        ]
        team_choice = False
        me = requester(interaction)
        if acting is not None:
            settings = await self.service.guild_settings(me)
            try:
                cls = registry().find(variant or settings["default_variant"])
            except UnknownVariant as exc:
                raise Refused(str(exc)) from None
            if acting == "choose" and cls.team_size < 2:
                raise Refused(
                    _(
                        "`acting: choose` is for team rule sets (Backgammon Doubles): in {rule_set} each side is one "
                        "player."
                    ).format(rule_set=_(cls.display_name))
                )
            if cls.team_size > 1:
                team_choice = acting == "choose"
                words.append(f"team_choice={'on' if team_choice else 'off'}")
        out = await self.service.challenge(
            me,
            player_of(opponent) if opponent else None,
            variant=variant,
            length=length,
            options=" ".join(w for w in words if w),
            teammate=player_of(teammate) if teammate else None,
            opponent_teammate=player_of(partner) if partner else None,
            channel_id=str(interaction.channel_id),
            time_control=clock,
            bot=bot,
            consult=consult,
            entropy=str(interaction.id),
        )
        view = out.game
        if bot is not None and view.status == GameStatus.ACTIVE:
            # The bot accepted at once: the match starts now, in a thread of its own.
            sent = await self._post_challenge(interaction, content=clip(texts(out.events)))
            await self.table.start_match(interaction, view.id, sent)
            return
        with i18n.shared():  # the challenge is posted for everyone in the channel
            ui = challenge_controls(view)
            said = texts(out.events)
            if team_choice:
                said += "\n" + _("Before each game, each team chooses its acting member (in its private team thread).")
            asked = view.awaiting or view.invited  # a team challenge asks each player it names (the teammate too)
            who = " ".join(mention(p) for p in asked)
            if not who:
                call = _("Anyone may Accept below.")
            elif len(view.sides[0]) > 1 and len(asked) > 1:
                call = _("{players}: Accept (each of you) or Decline below.").format(players=who)
            else:
                call = _("{players}: Accept or Decline below.").format(players=who)
        try:
            sent = await self._post_challenge(
                interaction, content=clip(f"{said}\n{call}"), view=ui, allowed_mentions=pings(asked)
            )
        finally:
            ui.stop()
        if sent is not None:  # remembered, so an expiry can take the buttons off the challenge
            self.table.turn_messages[view.id] = (sent.channel.id, sent.id)

    async def _post_challenge(self, interaction: discord.Interaction[Any], **message: Any) -> discord.Message | None:
        """Answer ``/bg play`` with the challenge (public); if Discord rejects the answer (the interaction expired),
        post it in the channel as the bot's own message: the challenge exists, and needs its buttons."""
        try:
            await interaction.response.send_message(**message)
        except discord.HTTPException as exc:
            log.warning("interaction %s: could not answer /bg play (%s); posting the challenge", interaction.id, exc)
            channel = interaction.channel
            if not isinstance(channel, discord.abc.Messageable):
                return None
            return await channel.send(**message)
        try:
            return await interaction.original_response()
        except discord.HTTPException as exc:
            log.info("interaction %s: the challenge posted cannot be read back (%s)", interaction.id, exc)
            return None

    @play.autocomplete("bot")
    async def _play_bot(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        variant = getattr(interaction.namespace, "variant", None) or "backgammon"
        try:
            specs = self.service.bots_for(variant)
        except Refused:
            specs = self.service.bots_for("backgammon")
        key = current.strip().lower()
        return [
            app_commands.Choice(name=f"{_(s.display_name)} ({_(s.strength)})"[:100], value=s.name)
            for s in specs
            if not key or key in s.name or key in s.display_name.lower() or key in _(s.display_name).lower()
        ][:MAX_CHOICES]

    @play.autocomplete("clock")
    async def _play_clock(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        return clock_choices(self.service, current)

    @play.autocomplete("options")
    async def _play_options(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        ns = interaction.namespace
        length = getattr(ns, "length", None)
        return await option_choices(
            self.service, requester(interaction), current, variant=getattr(ns, "variant", None), length=length
        )

    @play.autocomplete("variant")
    async def _play_variant(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return variant_choices(self.service, current)

    # --- playing ------------------------------------------------------------------------------------------
    @app_commands.command(name="move")
    @app_commands.describe(
        play="Your play in notation, like 13/7 8/7 or bar/22 6/off (suggestions list the legal plays)",
        game="Game number (default: the game of this thread, or your only game)",
    )
    @refusals
    async def move(self, interaction: discord.Interaction[Any], play: str, game: int | None = None) -> None:
        """Play your roll by typing it, like 13/7 8/7 (suggestions show the legal plays)."""
        view = await find_game(interaction, game)
        me = requester(interaction)
        await self.table.command_action(interaction, view.id, lambda: self.service.move(view.id, me, play))

    @move.autocomplete("play")
    async def _move_play(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        try:
            view = await find_game(interaction, getattr(interaction.namespace, "game", None))
        except Refused:
            return []
        return [app_commands.Choice(name=p[:100], value=p[:100]) for p in match_plays(view.plays, current)]

    @app_commands.command(name="resign")
    @app_commands.describe(
        level="How much you give up: a result of the game's rule set (single, gammon, backgammon; Longgammon: mars)",
        game="Game number (default: this thread's game)",
    )
    @refusals
    async def resign(
        self, interaction: discord.Interaction[Any], level: str = "single", game: int | None = None
    ) -> None:
        """Offer to resign the current game (your opponent accepts or rejects)."""
        view = await find_game(interaction, game)
        me = requester(interaction)
        await self.table.command_action(interaction, view.id, lambda: self.service.resign(view.id, me, level))

    @resign.autocomplete("level")
    async def _resign_level(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """The results of the game's rule set, in its words (under its options: koks only where it is on)."""
        try:
            view = await find_game(interaction, getattr(interaction.namespace, "game", None))
            state = await self.service.state(view.id, requester(interaction))
        except Refused:
            return []
        key = current.strip().lower()
        return [
            app_commands.Choice(name=_("{result} ({level} × the cube)").format(result=_(name), level=level), value=name)
            for level, name in sorted(state.variant.results.items())
            if key in name.lower() or key in _(name).lower()
        ][:MAX_CHOICES]

    @app_commands.command(name="hint")
    @app_commands.describe(game="Game number (default: this thread's game, or your only game)")
    @refusals
    async def hint(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        """The best plays (or cube action) for your decision now, only for you; not in rated matches."""
        view = await find_game(interaction, game)
        advice = await self.service.hint(view.id, requester(interaction), 3)
        if advice.kind == "play":
            if view.dice:
                head = _("Best plays for your {dice}").format(dice=f"{view.dice[0]}-{view.dice[1]}")
            else:
                head = _("Best plays for your roll")
        elif advice.kind == "double":
            head = _("Your cube decision")
        else:
            head = _("Take or pass")
        body = "\n".join(advice.lines())
        await reply(interaction, clip(f"**{describe(view)}**\n{head}:\n```\n{body}\n```"), private=True)

    # --- looking --------------------------------------------------------------------------------------------
    @app_commands.command(name="board")
    @app_commands.describe(game="Game number (default: this thread's game, or your only game)")
    @refusals
    async def board(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        """Show a game's board (only to you), from your side of the table."""
        view = await find_game(interaction, game)
        if view.status == GameStatus.CHALLENGE:
            raise Refused(
                _("Game #{game} has not started: it is waiting for the challenge to be accepted.").format(game=view.id)
            )
        if view.status == GameStatus.DECLINED:
            raise Refused(
                _("Game #{game} was declined, so it has no board. Start a new one with `/bg play`.").format(
                    game=view.id
                )
            )
        if view.status == GameStatus.EXPIRED:
            raise Refused(
                _("Game #{game} was expired, so it has no board. Start a new one with `/bg play`.").format(game=view.id)
            )
        me = str(interaction.user.id)
        rendered = await self.service.board(view.id, requester(interaction))
        file = discord.File(io.BytesIO(rendered.png), filename=f"game{view.id}.png", description=rendered.alt_text)
        plays = ""
        if view.phase == Phase.MOVE and view.to_act == me:
            shown = ", ".join(view.plays[:10])
            if len(view.plays) > 10:
                plays = "\n" + _("Legal plays: {plays} … ({count} in all)").format(plays=shown, count=len(view.plays))
            else:
                plays = "\n" + _("Legal plays: {plays}").format(plays=shown)
        if view.status == GameStatus.ACTIVE and me in callers(view):
            # Your turn: your buttons come with your board (also a way back if a turn message went missing).
            ui, prompt = await self.table.controls(view)
            try:
                await reply(interaction, clip(f"**{describe(view)}**{plays}\n{prompt}"), file=file, view=ui)
            finally:
                ui.stop()
            return
        await reply(interaction, clip(f"**{describe(view)}**{plays}"), file=file)

    @app_commands.command(name="games")
    @app_commands.describe(page="Which page of the list (20 games a page; default: the first)")
    @refusals
    async def games(self, interaction: discord.Interaction[Any], page: app_commands.Range[int, 1] = 1) -> None:
        """List your challenges and games, those waiting for you first (20 a page)."""
        shown = await games_page(interaction, page)
        if not shown.total:
            await reply(interaction, _("You have no games. Start one with `/bg play`."))
            return
        content, embed, ui = games_message(shown)
        try:
            extra: dict[str, Any] = {"view": ui} if ui is not None else {}
            await reply(interaction, content, embed=embed, **extra)
        finally:
            if ui is not None:
                ui.stop()

    @app_commands.command(name="watch")
    @app_commands.describe(game="Game number (default: this thread's game)", off="Stop following it")
    @refusals
    async def watch(self, interaction: discord.Interaction[Any], game: int | None = None, off: bool = False) -> None:
        """Follow a match: be told of its turns as they are played (or stop, with off)."""
        require_server(interaction)
        view = await find_game(interaction, game, mine=False)
        me = requester(interaction)
        if not off and view.side_of(me.id) is not None:
            raise Refused(_("You are playing in game #{game}: you are told of its turns already.").format(game=view.id))
        if off and view.status not in (GameStatus.ACTIVE, GameStatus.CHALLENGE):
            raise Refused(_("Game #{game} is over: its turn updates have stopped for everyone.").format(game=view.id))
        view = await self.service.watch(view.id, me, on=not off)
        if off:
            text = _("You no longer follow **{game}**.").format(game=describe(view))
        else:
            text = _("You follow **{game}**: its turn updates will mention you.").format(game=describe(view))
            if view.thread_id:
                text += " " + _("Its thread: {thread}.").format(thread=f"<#{view.thread_id}>")
        await reply(interaction, text)

    # --- records ----------------------------------------------------------------------------------------------
    @app_commands.command(name="export")
    @app_commands.describe(game="Game number (default: this thread's game, or your only game)")
    @refusals
    async def export(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        """Download a match as a .mat file (GNU Backgammon, eXtreme Gammon and others read it)."""
        view = await find_game(interaction, game)
        text = await self.service.export(view.id, requester(interaction))
        file = discord.File(io.BytesIO(text.encode()), filename=f"game{view.id}.mat")
        await reply(interaction, f"**{describe(view)}**", file=file)

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
        view = await find_game(interaction, game, mine=False)
        if view.never_started:
            raise Refused(_("Game #{game} never started, so it has no positions.").format(game=view.id))
        position_id, match_id = await self.service.ids_at(view.id, requester(interaction), after)
        if after is None:
            head = _("**{game}**, now:").format(game=describe(view))
        else:
            head = ngettext("**{game}**, after {count} action:", "**{game}**, after {count} actions:", after).format(
                game=describe(view), count=after
            )
        ids = _("Position ID {position_id} · Match ID {match_id}").format(
            position_id=f"`{position_id}`", match_id=f"`{match_id}`"
        )
        await reply(interaction, f"{head}\n`{position_id}:{match_id}`\n{ids}")

    # --- game suggestions ---------------------------------------------------------------------------------------
    @move.autocomplete("game")
    @resign.autocomplete("game")
    @hint.autocomplete("game")
    @board.autocomplete("game")
    @export.autocomplete("game")
    async def _running_game(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await game_choices(interaction, current)

    @ids.autocomplete("game")
    async def _any_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await game_choices(interaction, current, finished=True)


async def setup(bot: Bot) -> None:
    """Add the game commands to ``/bg``."""
    await bot.add_cog(Games(bot))
