"""The ``/bg`` slash commands: challenges, moves, boards, games, rules, exports and settings.

Every command calls the game service; refusals come back as an ephemeral message naming the rule or the
fix. The first line of each command's docstring is its description in Discord's command picker.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from ...service import GameService, GameView, Refused
from ..components import ActionButton
from ..table import Table, callers, describe, mention, player_of

__all__ = ["Games", "setup", "match_plays"]

THREAD_GAME = re.compile(r"^#(\d+)\b")
QUIET_HOURS = re.compile(r"([01]?\d|2[0-3])\s*-\s*([01]?\d|2[0-3])")
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def refusals(func: F) -> F:
    """Answer a :class:`Refused` raised by a command with an ephemeral message naming the rule or the fix."""

    @functools.wraps(func)
    async def wrapper(self: Games, interaction: discord.Interaction[Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return await func(self, interaction, *args, **kwargs)
        except Refused as exc:
            await self.table.refuse(interaction, str(exc))
            return None

    return wrapper  # type: ignore[return-value]


def match_plays(plays: tuple[str, ...], typed: str, limit: int = 25) -> list[str]:
    """The legal plays matching what is typed so far: prefix matches first, then plays containing it."""
    words = typed.strip().lower().split()
    if not words:
        return list(plays[:limit])
    key = " ".join(words)
    starts = [p for p in plays if p.lower().startswith(key)]
    contains = [p for p in plays if p not in starts and all(w in p.lower() for w in words)]
    return (starts + contains)[:limit]


class Games(commands.GroupCog, group_name="bg", group_description="Play backgammon: challenges, moves and boards"):
    """Backgammon commands, all under ``/bg``."""

    def __init__(self, bot: commands.Bot, service: GameService, table: Table) -> None:
        self.bot = bot
        self.service = service
        self.table = table
        super().__init__()

    # --- finding the game a command is about --------------------------------------------------------
    async def _game(self, interaction: discord.Interaction[Any], game: int | None) -> GameView:
        if game is not None:
            return await self.service.view(game)
        me = str(interaction.user.id)
        channel = interaction.channel
        if isinstance(channel, discord.Thread):
            found = THREAD_GAME.match(channel.name or "")
            if found:
                try:
                    view = await self.service.view(int(found[1]))
                except Refused:
                    view = None
                if view is not None and view.thread_id == str(channel.id):
                    return view
        mine = await self.service.my_games(me, str(interaction.guild_id) if interaction.guild_id else None)
        running = [v for v in mine if v.status == "active"]
        if not running:
            raise Refused("You have no game running. Start one with `/bg play`, or give the game number.")
        if len(running) == 1:
            return running[0]
        waiting = [v for v in running if me in callers(v)]
        if len(waiting) == 1:
            return waiting[0]
        numbers = ", ".join(f"#{v.id}" for v in running[:10])
        raise Refused(f"You have {len(running)} games running ({numbers}): say which with the `game` option.")

    async def _game_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        views = await self.service.my_games(str(interaction.user.id))
        out = []
        for v in views:
            label = describe(v)
            if current and current.strip("#") not in label:
                continue
            out.append(app_commands.Choice(name=label[:100], value=v.id))
        return out[:25]

    async def _variant_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        key = current.strip().lower()
        out = []
        for cls in self.service.variants():
            words = [cls.name, cls.display_name.lower(), *cls.aliases]
            if not key or any(key in w.lower() for w in words):
                out.append(app_commands.Choice(name=cls.display_name[:100], value=cls.name))
        return out[:25]

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
    )
    @refusals
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
    ) -> None:
        """Challenge someone (or anyone, or the bot) to a backgammon match or a money game."""
        if isinstance(interaction.channel, discord.Thread):
            raise Refused("Challenge from a text channel, not inside a thread: each match gets a thread of its own.")
        for person in (opponent, teammate, partner):
            if person is not None and person.bot:
                raise Refused(f"{person.display_name} is a Discord bot; to play the computer, pick a `bot` strength.")
        if bot is not None and (opponent is not None or partner is not None):
            raise Refused("Choose either an opponent or the bot, not both.")
        options: dict[str, Any] = {
            k: v for k, v in (("jacoby", jacoby), ("beavers", beavers), ("crawford", crawford)) if v is not None
        }
        if acting is not None:
            settings = await self.service.guild_settings(str(interaction.guild_id))
            cls = self.service._variant_class(variant or settings["default_variant"])
            if acting == "choose" and cls.team_size < 2:
                raise Refused(
                    f"`acting: choose` is for team rule sets (Backgammon Doubles): in {cls.display_name} "
                    "each side is one player."
                )
            if cls.team_size > 1:
                options["team_choice"] = acting == "choose"
        me = player_of(interaction.user)
        out = await self.service.challenge(
            str(interaction.guild_id),
            me,
            player_of(opponent) if opponent else None,
            variant=variant,
            length=length,
            options=options,
            teammate=player_of(teammate) if teammate else None,
            opponent_teammate=player_of(partner) if partner else None,
            channel_id=str(interaction.channel_id),
            time_control=clock,
            bot=bot,
            consult=consult,
            entropy=str(interaction.id),
        )
        view = out.game
        if bot is not None:
            # The bot accepted at once: the match starts now, in a thread of its own.
            await interaction.response.send_message(_clip_text("\n".join(e.text for e in out.events)))
            await self.table.start_match(interaction, view.id)
            return
        ui = discord.ui.View(timeout=None)
        ui.add_item(ActionButton("accept", view.id))
        ui.add_item(ActionButton("decline", view.id))
        texts = "\n".join(e.text for e in out.events)
        if options.get("team_choice"):
            texts += "\nBefore each game, each team chooses its acting member (in its private team thread)."
        who = " ".join(mention(p) for p in view.invited)
        call = f"{who}: Accept or Decline below." if who else "Anyone may Accept below."
        await interaction.response.send_message(f"{texts}\n{call}", view=ui)
        ui.stop()
        # Remembered, so an expiry can take the buttons off the challenge.
        sent = await interaction.original_response()
        self.table.turn_messages[view.id] = (sent.channel.id, sent.id)

    async def _clock_choices(self, current: str) -> list[app_commands.Choice[str]]:
        key = current.strip().lower()
        out = []
        for tc in self.service.time_controls():
            words = [tc.name, tc.display_name.lower(), *tc.aliases]
            if not key or any(key in w.lower() for w in words):
                out.append(app_commands.Choice(name=f"{tc.display_name}: {tc.summary}"[:100], value=tc.name))
        return out[:25]

    @play.autocomplete("bot")
    async def _play_bot(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        variant = getattr(interaction.namespace, "variant", None) or "backgammon"
        try:
            specs = self.service.bots_for(variant)
        except Refused:
            specs = self.service.bots_for("backgammon")
        key = current.strip().lower()
        return [
            app_commands.Choice(name=f"{s.display_name} ({s.strength})"[:100], value=s.name)
            for s in specs
            if not key or key in s.name or key in s.display_name.lower()
        ][:25]

    @play.autocomplete("clock")
    async def _play_clock(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        return await self._clock_choices(current)

    @play.autocomplete("variant")
    async def _play_variant(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._variant_choices(interaction, current)

    # --- playing ------------------------------------------------------------------------------------------
    @app_commands.command(name="move")
    @app_commands.describe(
        play="Your play in notation, like 13/7 8/7 or bar/22 6/off (suggestions list the legal plays)",
        game="Game number (default: the game of this thread, or your only game)",
    )
    @refusals
    async def move(self, interaction: discord.Interaction[Any], play: str, game: int | None = None) -> None:
        """Play your roll by typing it, like 13/7 8/7 (suggestions show the legal plays)."""
        view = await self._game(interaction, game)
        me = player_of(interaction.user)
        await self.table.command_action(interaction, view.id, lambda: self.service.move(view.id, me, play))

    @move.autocomplete("play")
    async def _move_play(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        game = getattr(interaction.namespace, "game", None)
        try:
            view = await self._game(interaction, game)
        except Refused:
            return []
        return [app_commands.Choice(name=p[:100], value=p[:100]) for p in match_plays(view.plays, current)]

    @move.autocomplete("game")
    async def _move_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    @app_commands.command(name="resign")
    @app_commands.describe(level="How much you give up", game="Game number (default: this thread's game)")
    @refusals
    async def resign(
        self,
        interaction: discord.Interaction[Any],
        level: Literal["single", "gammon", "backgammon"] = "single",
        game: int | None = None,
    ) -> None:
        """Offer to resign the current game (your opponent accepts or rejects)."""
        view = await self._game(interaction, game)
        me = player_of(interaction.user)
        await self.table.command_action(interaction, view.id, lambda: self.service.resign(view.id, me, level))

    @resign.autocomplete("game")
    async def _resign_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    # --- looking --------------------------------------------------------------------------------------------
    @app_commands.command(name="board")
    @app_commands.describe(game="Game number (default: this thread's game, or your only game)")
    @refusals
    async def board(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        """Show a game's board (only to you), from your side of the table."""
        view = await self._game(interaction, game)
        if view.status == "challenge":
            raise Refused(f"Game #{view.id} has not started: it is waiting for the challenge to be accepted.")
        if view.status in ("declined", "expired"):
            raise Refused(f"Game #{view.id} was {view.status}, so it has no board. Start a new one with `/bg play`.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        me = str(interaction.user.id)
        rendered = await self.service.board(view.id, me if view.side_of(me) is not None else None)
        file = discord.File(io.BytesIO(rendered.png), filename=f"game{view.id}.png", description=rendered.alt_text)
        plays = ""
        if view.phase == "move" and view.to_act == me:
            shown = ", ".join(view.plays[:10])
            plays = f"\nLegal plays: {shown}" + (f" … ({len(view.plays)} in all)" if len(view.plays) > 10 else "")
        if view.status == "active" and me in callers(view):
            # Your turn: your buttons come with your board (also a way back if a turn message went missing).
            ui, prompt = await self.table.controls(view)
            await interaction.followup.send(
                f"**{describe(view)}**{plays}\n{prompt}", file=file, view=ui, ephemeral=True
            )
            ui.stop()
            return
        await interaction.followup.send(f"**{describe(view)}**{plays}", file=file, ephemeral=True)

    @board.autocomplete("game")
    async def _board_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    @app_commands.command(name="games")
    @refusals
    async def games(self, interaction: discord.Interaction[Any]) -> None:
        """List your challenges and games, those waiting for you first."""
        me = str(interaction.user.id)
        views = await self.service.my_games(me, str(interaction.guild_id) if interaction.guild_id else None)
        if not views:
            await interaction.response.send_message("You have no games. Start one with `/bg play`.", ephemeral=True)
            return
        lines = []
        for v in views[:20]:
            waiting = " — **your turn**" if me in callers(v) else ""
            where = f" in <#{v.thread_id}>" if v.thread_id else ""
            lines.append(f"{describe(v)}{where}{waiting}")
        more = f"\n…and {len(views) - 20} more." if len(views) > 20 else ""
        await interaction.response.send_message("\n".join(lines) + more, ephemeral=True)

    @app_commands.command(name="variants")
    @refusals
    async def variants(self, interaction: discord.Interaction[Any]) -> None:
        """List the rule sets you can play."""
        lines = []
        for cls in self.service.variants():
            aliases = f" (also: {', '.join(cls.aliases)})" if cls.aliases else ""
            team = " — teams of two" if cls.team_size > 1 else ""
            lines.append(f"**{cls.display_name}** `{cls.name}`{aliases}{team}")
        await interaction.response.send_message("\n".join(lines), ephemeral=True)

    @app_commands.command(name="rules")
    @app_commands.describe(variant="The rule set to explain")
    @refusals
    async def rules(self, interaction: discord.Interaction[Any], variant: str = "backgammon") -> None:
        """Read the rules of a rule set."""
        text = self.service.rules(variant)
        await interaction.response.send_message(text[:2000], ephemeral=True)

    @rules.autocomplete("variant")
    async def _rules_variant(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._variant_choices(interaction, current)

    @app_commands.command(name="export")
    @app_commands.describe(game="Game number (default: this thread's game, or your only game)")
    @refusals
    async def export(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        """Download a match as a .mat file (GNU Backgammon, eXtreme Gammon and others read it)."""
        view = await self._game(interaction, game)
        text = await self.service.export(view.id)
        file = discord.File(io.BytesIO(text.encode()), filename=f"game{view.id}.mat")
        await interaction.response.send_message(f"**{describe(view)}**", file=file, ephemeral=True)

    @export.autocomplete("game")
    async def _export_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    # --- settings ---------------------------------------------------------------------------------------
    @app_commands.command(name="settings")
    @app_commands.describe(
        autoplay="Play a forced move (the only legal play) for you",
        auto_bearoff="In a pure race with everything home, bear off for you",
        home="Which side your home board is drawn on",
        theme="Board colours (a theme name from the server's configuration)",
        dm_reminders="Also send your turn pings and reminders as direct messages",
        quiet_hours="No direct messages in these UTC hours, like 22-7 (empty: none)",
    )
    @refusals
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        autoplay: bool | None = None,
        auto_bearoff: bool | None = None,
        home: Literal["right", "left"] | None = None,
        theme: str | None = None,
        dm_reminders: bool | None = None,
        quiet_hours: str | None = None,
    ) -> None:
        """See or change your own settings (forced moves, bear-offs, board side, reminders)."""
        if quiet_hours is not None and quiet_hours.strip() and not QUIET_HOURS.fullmatch(quiet_hours.strip()):
            raise Refused("Write quiet hours as two UTC hours, like 22-7 (from 22:00 to 07:00), or leave it empty.")
        given = {
            "autoplay": autoplay,
            "auto_bearoff": auto_bearoff,
            "home": home,
            "theme": theme,
            "dm_reminders": dm_reminders,
            "quiet_hours": quiet_hours.strip() if quiet_hours is not None else None,
        }
        changes = {k: v for k, v in given.items() if v is not None}
        current = await self.service.player_settings(player_of(interaction.user), **changes)
        head = "Saved. " if changes else ""
        text = ", ".join(f"{k} = {_show(v, k)}" for k, v in current.items())
        await interaction.response.send_message(f"{head}Your settings: {text}.", ephemeral=True)

    @app_commands.command(name="config")
    @app_commands.guild_only()
    @app_commands.describe(
        default_variant="Rule set of a challenge that names none",
        allowed_variants="Comma-separated rule sets allowed here, or 'all'",
        default_length="Match length of a challenge that names none (0 = money play)",
        default_clock="Time control of a challenge that names none ('none': no clock)",
        challenge_expiry_days="Days before an unanswered challenge expires",
        vacation_days_per_year="Vacation days a player may take in any 365 days",
        archive_after_days="Days without a move before a match without a clock is archived",
        team_thread_fallback="Doubles without private threads: direct messages to both members (dm) or refuse",
    )
    @refusals
    async def config(
        self,
        interaction: discord.Interaction[Any],
        default_variant: str | None = None,
        allowed_variants: str | None = None,
        default_length: app_commands.Range[int, 0, 99] | None = None,
        default_clock: str | None = None,
        challenge_expiry_days: app_commands.Range[int, 1, 365] | None = None,
        vacation_days_per_year: app_commands.Range[int, 0, 365] | None = None,
        archive_after_days: app_commands.Range[int, 1, 3650] | None = None,
        team_thread_fallback: Literal["dm", "refuse"] | None = None,
    ) -> None:
        """Server settings for backgammon (needs the Manage Server permission)."""
        perms = interaction.permissions
        if not (perms.manage_guild or perms.administrator):
            raise Refused("Only members with the Manage Server permission can see or change the server's settings.")
        changes: dict[str, Any] = {}
        if default_variant is not None:
            changes["default_variant"] = default_variant
        if allowed_variants is not None:
            changes["allowed_variants"] = None if allowed_variants.strip().lower() in ("all", "") else allowed_variants
        if default_length is not None:
            changes["default_length"] = default_length
        if default_clock is not None:
            changes["default_time_control"] = self._preset(default_clock)
        for key, value in (
            ("challenge_expiry_days", challenge_expiry_days),
            ("vacation_days_per_year", vacation_days_per_year),
            ("archive_after_days", archive_after_days),
            ("team_thread_fallback", team_thread_fallback),
        ):
            if value is not None:
                changes[key] = value
        current = await self.service.guild_settings(str(interaction.guild_id), admin=True, **changes)
        head = "Saved. " if changes else ""
        text = ", ".join(f"{k} = {_show(v, k)}" for k, v in current.items())
        await interaction.response.send_message(f"{head}Server settings: {text}.", ephemeral=True)

    def _preset(self, name: str) -> str | None:
        key = name.strip().lower()
        if key in ("", "none", "off", "no clock"):
            return None
        for tc in self.service.time_controls():
            if key in (tc.name, tc.display_name.lower(), *tc.aliases):
                return tc.name
        names = ", ".join(tc.name for tc in self.service.time_controls())
        raise Refused(f"There is no time control {name!r}; presets: {names} (or none).")

    @config.autocomplete("default_clock")
    async def _config_clock(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name="No clock", value="none"), *await self._clock_choices(current)][:25]

    @config.autocomplete("default_variant")
    async def _config_variant(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._variant_choices(interaction, current)


def _show(value: Any, key: str = "") -> str:
    if value is None:
        return "all" if key == "allowed_variants" else "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items()) or "none"
    return str(value)


def _clip_text(text: str) -> str:
    return text if len(text) <= 2000 else text[:1997] + "..."


async def setup(bot: commands.Bot) -> None:
    """Add the ``/bg`` commands to the bot (it must carry ``service`` and ``table``)."""
    await bot.add_cog(Games(bot, bot.service, bot.table))  # type: ignore[attr-defined]
