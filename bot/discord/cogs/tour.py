"""``/bg-tour …`` and ``/bg-admin tour …``: tournaments. Admins create one (its sign-up message has Join and Leave
buttons) and start it; players join and leave, and see its terms and standings (``/bg-tour``); admins pause and
resume it, disqualify or replace a player, extend a deadline and decide a match (``/bg-admin tour``, which Discord
shows only to members with the Manage Server permission). The service runs it (bot/service/tournaments.py); what
it does is shown by :class:`~bot.discord.tour_posts.TourBoard`, whoever did it.

Every command but ``create`` is deferred (privately) before it runs and answers the asker alone; ``create`` answers
with the public sign-up message itself. The tournament is picked from the server's, suggested as one types, or
left out when the server has one taking sign-ups or under way.
"""

from __future__ import annotations

import contextlib
import io
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

from engine import i18n
from engine.i18n import _, ngettext
from engine.tournament import open_matches

from ...service import Refused
from ...service.tour_parts import called, status_words, summary_words
from ..components import signup_controls
from ..context import MAX_CHOICES, player_of, requester, require_server
from ..errors import answer_first, refusals, refuse, reply
from ..options import clock_choices, clock_preset, option_choices, variant_choices
from ..text import NO_PINGS, clip, safe, versus
from ..tour_posts import TourBoard, cut, signup_text
from ..tree import BgCog

if TYPE_CHECKING:
    from ..protocols import Bot

__all__ = ["Tournaments", "setup"]

TOURNAMENT = "The tournament (default: this server's one taking sign-ups or under way)"


class Tournaments(BgCog):
    """``/bg-tour …`` and ``/bg-admin tour …``: tournaments that run themselves."""

    root = "bg-tour"
    #: Running a tournament is for admins: ``/bg-admin tour …``, which Discord shows only to them.
    joins = {"tour": "bg-admin"}
    manage = app_commands.Group(name="tour", description="Run a tournament: create it, start it, decide its matches")

    def __init__(self, bot: Bot) -> None:
        super().__init__(bot)
        self.board = TourBoard(bot)

    async def cog_load(self) -> None:
        await super().cog_load()
        self.service.on_tournament(self.board.on_news)

    async def cog_unload(self) -> None:
        self.service.off_tournament(self.board.on_news)
        await super().cog_unload()

    # --- the sign-up buttons --------------------------------------------------------------------------------------
    async def on_button(self, interaction: discord.Interaction[Any], action: str, tournament_id: int) -> None:
        """Join or Leave was pressed under a sign-up message: answered first, then privately (in the presser's
        language)."""
        await answer_first(interaction)
        me = requester(interaction)
        try:
            if interaction.user.bot:
                raise Refused(_("a Discord bot cannot join a tournament"))
            if action == "join":
                news = await self.service.tour_join(me, tournament_id)
                said = _("You joined {tournament}. Your matches get threads of their own here once it starts.").format(
                    tournament=news.view.name
                )
            else:
                news = await self.service.tour_leave(me, tournament_id)
                said = _("You left {tournament}.").format(tournament=news.view.name)
        except Refused as exc:
            await refuse(interaction, str(exc))
            return
        await reply(interaction, safe(said), allowed_mentions=NO_PINGS)

    async def on_team_button(
        self, interaction: discord.Interaction[Any], accept: bool, tournament_id: int, captain: str
    ) -> None:
        """Accept or Decline was pressed under a team's invitation: only the teammate asked may answer (the service
        says so to anyone else); the answer is the presser's alone, and the invitation loses its buttons."""
        await answer_first(interaction)
        me = requester(interaction)
        try:
            news = await self.service.tour_team_answer(me, tournament_id, captain=captain, accept=accept)
        except Refused as exc:
            await refuse(interaction, str(exc))
            return
        name = news.view.name
        if accept:
            said = _("You joined {tournament} with {captain}.").format(
                tournament=name, captain=news.view.player_name(captain)
            )
        else:
            said = _("You said no: {captain}'s team is not entered.").format(captain=news.view.player_name(captain))
        message = interaction.message
        if message is not None:
            with i18n.shared(), contextlib.suppress(discord.HTTPException):
                answered = _("Accepted.") if accept else _("Declined.")
                await message.edit(content=clip(f"{message.content}\n{answered}"), view=None, allowed_mentions=NO_PINGS)
        await reply(interaction, safe(said), allowed_mentions=NO_PINGS)

    # --- creating -------------------------------------------------------------------------------------------------
    @manage.command(name="create")
    @app_commands.guild_only()
    @app_commands.describe(
        name="The tournament's name",
        format="knockout, swiss or league (round robin)",
        variant="Rule set of its matches (default: the server's)",
        length="Match length in points (default: the server's)",
        options="More rules for its matches, like: jacoby beavers max_cube=16",
        clock="Time control of its matches (default: the server's)",
        round_hours="Hours each round lasts (0: no deadline)",
        deadline_rule="Who wins a match unfinished at its deadline: recent (acted last), pips (fewer pips), admin",
        seeding="How players are seeded: rating, signup (order of sign-up) or shuffle",
        rounds="Swiss: the number of rounds (0: enough to find a winner)",
        double_elimination="Knockout: a loser plays on in a losers' bracket",
        divisions="League: the number of divisions",
        legs="League: each pair meets once (1) or twice (2)",
        max_entrants="The most entrants it takes (2 to 256)",
        tiebreak="Swiss: the first tiebreak (buchholz, cut1: Buchholz cut-1, sonneborn-berger)",
        bye_rule="Swiss, if both cannot hold: one-bye (rather a rematch) or no-rematch (rather a 2nd bye)",
    )
    @refusals(defer=False)
    async def create(
        self,
        interaction: discord.Interaction[Any],
        name: app_commands.Range[str, 1, 100],
        format: Literal["knockout", "swiss", "league"],
        variant: str | None = None,
        length: app_commands.Range[int, 1, 99] | None = None,
        options: str | None = None,
        clock: str | None = None,
        round_hours: app_commands.Range[float, 0.0, 8760.0] = 72.0,
        deadline_rule: Literal["recent", "pips", "admin"] = "recent",
        seeding: Literal["rating", "signup", "shuffle"] = "rating",
        rounds: app_commands.Range[int, 0, 30] = 0,
        double_elimination: bool = False,
        divisions: app_commands.Range[int, 1, 64] = 1,
        legs: app_commands.Range[int, 1, 2] = 1,
        max_entrants: app_commands.Range[int, 2, 256] = 256,
        tiebreak: Literal["buchholz", "cut1", "sonneborn-berger"] = "buchholz",
        bye_rule: Literal["one-bye", "no-rematch"] = "one-bye",
    ) -> None:
        """Create a tournament and open its sign-ups (admins)."""
        require_server(interaction)
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            raise Refused(_("Create a tournament in a text channel: its matches get threads of their own there."))
        me = requester(interaction)
        news = await self.service.tour_create(
            me, name, format, variant=variant, length=length, options=options,
            clock=clock_preset(self.service, clock) if clock is not None else None,
            round_hours=round_hours, deadline_rule=deadline_rule, seeding=seeding, rounds=rounds,
            double_elimination=double_elimination, divisions=divisions, legs=legs, max_entrants=max_entrants,
            channel_id=str(interaction.channel_id), tiebreak=tiebreak, bye_rule=bye_rule,
        )  # fmt: skip
        view = news.view
        with i18n.shared():  # the sign-up message is for everyone in the channel
            ui = signup_controls(view.id)
            text = signup_text(view)
        sent: discord.Message
        try:
            await interaction.response.send_message(text, view=ui, allowed_mentions=NO_PINGS)
            sent = await interaction.original_response()
        except discord.HTTPException:  # the interaction expired: the sign-up message is posted all the same
            sent = await channel.send(text, view=ui, allowed_mentions=NO_PINGS)
        finally:
            ui.stop()
        await self.service.tour_set_messages(me, view.id, signup_message_id=str(sent.id))

    @create.autocomplete("variant")
    async def _create_variant(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return variant_choices(self.service, current)

    @create.autocomplete("clock")
    async def _create_clock(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return clock_choices(self.service, current)

    @create.autocomplete("options")
    async def _create_options(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        ns = interaction.namespace
        return await option_choices(
            self.service, requester(interaction), current, variant=getattr(ns, "variant", None),
            length=getattr(ns, "length", None),
        )  # fmt: skip

    # --- players --------------------------------------------------------------------------------------------------
    @app_commands.command(name="info")
    @app_commands.describe(tournament=TOURNAMENT)
    @refusals
    async def info(self, interaction: discord.Interaction[Any], tournament: int | None = None) -> None:
        """A tournament's terms, where it stands, and your match."""
        require_server(interaction)
        me = requester(interaction)
        view = await self.service.tour_view(me, tournament)
        await reply(
            interaction, clip(safe(summary_words(view, me.id, self.service.clock()))), allowed_mentions=NO_PINGS
        )

    @app_commands.command(name="standings")
    @app_commands.describe(tournament=TOURNAMENT)
    @refusals
    async def standings(self, interaction: discord.Interaction[Any], tournament: int | None = None) -> None:
        """The bracket or standings of a tournament, as pictures and as text."""
        require_server(interaction)
        view = await self.service.tour_view(requester(interaction), tournament)
        pages, text = await self.service.tour_pictures(view)
        files = [
            discord.File(io.BytesIO(p.png), filename=f"tournament{view.id}-{k + 1}.png", description=p.alt_text[:1024])
            for k, p in enumerate(pages)
        ]
        await reply(interaction, clip(f"**{safe(view.name)}**\n```\n{cut(safe(text))}\n```"), files=files)

    @app_commands.command(name="join")
    @app_commands.describe(tournament=TOURNAMENT, teammate="Backgammon Doubles: your teammate, who joins with you")
    @refusals
    async def join(
        self,
        interaction: discord.Interaction[Any],
        tournament: int | None = None,
        teammate: discord.Member | None = None,
    ) -> None:
        """Sign up for a tournament (with your teammate, in a Doubles tournament)."""
        require_server(interaction)
        if teammate is not None and teammate.bot:
            raise Refused(_("{name} is a Discord bot: a teammate is a player").format(name=teammate.display_name))
        news = await self.service.tour_join(
            requester(interaction), tournament, teammate=player_of(teammate) if teammate else None
        )
        if teammate is not None:
            said = _("{teammate} must say yes: the bot asked them in the tournament's channel.").format(
                teammate=teammate.display_name
            )
        else:
            said = _("You joined {tournament}.").format(tournament=news.view.name)
        await reply(interaction, safe(said), allowed_mentions=NO_PINGS)

    @app_commands.command(name="leave")
    @app_commands.describe(tournament=TOURNAMENT)
    @refusals
    async def leave(self, interaction: discord.Interaction[Any], tournament: int | None = None) -> None:
        """Take your name (your team's) off a tournament's list, before it starts."""
        require_server(interaction)
        news = await self.service.tour_leave(requester(interaction), tournament)
        said = _("You left {tournament}.").format(tournament=news.view.name)
        await reply(interaction, safe(said), allowed_mentions=NO_PINGS)

    # --- admins ---------------------------------------------------------------------------------------------------
    @manage.command(name="start")
    @app_commands.describe(tournament=TOURNAMENT)
    @refusals
    async def start(self, interaction: discord.Interaction[Any], tournament: int | None = None) -> None:
        """Close the sign-ups and start: the bot pairs the players and opens each match (admins)."""
        require_server(interaction)
        news = await self.service.tour_start(requester(interaction), tournament)
        count = len(news.started)
        said = ngettext(
            "{tournament} has started: {count} match opened.",
            "{tournament} has started: {count} matches opened.",
            count,
        ).format(tournament=news.view.name, count=count)
        await reply(interaction, safe(said), allowed_mentions=NO_PINGS)

    @manage.command(name="pause")
    @app_commands.describe(tournament=TOURNAMENT)
    @refusals
    async def pause(self, interaction: discord.Interaction[Any], tournament: int | None = None) -> None:
        """Pause a tournament: deadlines stop and no round starts (admins)."""
        require_server(interaction)
        news = await self.service.tour_pause(requester(interaction), tournament)
        said = _("{tournament} is paused.").format(tournament=news.view.name)
        await reply(interaction, safe(said), allowed_mentions=NO_PINGS)

    @manage.command(name="resume")
    @app_commands.describe(tournament=TOURNAMENT)
    @refusals
    async def resume(self, interaction: discord.Interaction[Any], tournament: int | None = None) -> None:
        """Resume a paused tournament: its deadlines move on by the pause (admins)."""
        require_server(interaction)
        news = await self.service.tour_resume(requester(interaction), tournament)
        said = _("{tournament} is resumed.").format(tournament=news.view.name)
        await reply(interaction, safe(said), allowed_mentions=NO_PINGS)

    @manage.command(name="disqualify")
    @app_commands.describe(player="The player (or a member of the team) to disqualify", tournament=TOURNAMENT)
    @refusals
    async def disqualify(
        self, interaction: discord.Interaction[Any], player: discord.Member, tournament: int | None = None
    ) -> None:
        """Disqualify a player: their matches still to play are walkovers (admins)."""
        require_server(interaction)
        news = await self.service.tour_disqualify(requester(interaction), str(player.id), tournament)
        said = _("Done: {tournament} goes on without them.").format(tournament=news.view.name)
        await reply(interaction, safe(said), allowed_mentions=NO_PINGS)

    @manage.command(name="replace")
    @app_commands.describe(
        player="The player (or a member of the team) whose place is taken",
        by="The player who takes the place",
        teammate="Backgammon Doubles: the new team's second player",
        tournament=TOURNAMENT,
    )
    @refusals
    async def replace(
        self,
        interaction: discord.Interaction[Any],
        player: discord.Member,
        by: discord.Member,
        teammate: discord.Member | None = None,
        tournament: int | None = None,
    ) -> None:
        """Put another player in a player's place, with their results (admins)."""
        require_server(interaction)
        if by.bot or (teammate is not None and teammate.bot):
            raise Refused(_("A Discord bot cannot play in a tournament."))
        news = await self.service.tour_replace(
            requester(interaction), str(player.id), player_of(by), tournament,
            teammate=player_of(teammate) if teammate else None,
        )  # fmt: skip
        said = _("Done: {what}").format(what=news.events[0].text)  # the event said in the asker's language
        await reply(interaction, safe(said), allowed_mentions=NO_PINGS)

    @manage.command(name="extend")
    @app_commands.describe(
        hours="How many hours more", match="One match only (like R2-3; default: the whole round)", tournament=TOURNAMENT
    )
    @refusals
    async def extend(
        self,
        interaction: discord.Interaction[Any],
        hours: app_commands.Range[float, 0.1, 8760.0],
        match: str | None = None,
        tournament: int | None = None,
    ) -> None:
        """Give the round (or one match) more time (admins)."""
        require_server(interaction)
        news = await self.service.tour_extend(requester(interaction), hours, tournament, match_id=match)
        await reply(interaction, safe(news.events[0].text), allowed_mentions=NO_PINGS)

    @manage.command(name="decide")
    @app_commands.describe(
        match="The match (like R2-3)",
        winner="The winner (a member of the winning team)",
        walkover="True: a walkover (the opponent did not play) rather than an admin's decision",
        tournament=TOURNAMENT,
    )
    @refusals
    async def decide(
        self,
        interaction: discord.Interaction[Any],
        match: str,
        winner: discord.Member,
        walkover: bool = False,
        tournament: int | None = None,
    ) -> None:
        """Decide a match of the current round (admins)."""
        require_server(interaction)
        news = await self.service.tour_decide(
            requester(interaction), match, str(winner.id), tournament, walkover=walkover
        )
        await reply(interaction, safe(news.events[0].text), allowed_mentions=NO_PINGS)

    # --- suggestions ----------------------------------------------------------------------------------------------
    @info.autocomplete("tournament")
    @standings.autocomplete("tournament")
    @join.autocomplete("tournament")
    @leave.autocomplete("tournament")
    @start.autocomplete("tournament")
    @pause.autocomplete("tournament")
    @resume.autocomplete("tournament")
    @disqualify.autocomplete("tournament")
    @replace.autocomplete("tournament")
    @extend.autocomplete("tournament")
    @decide.autocomplete("tournament")
    async def _tournament(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        """The server's tournaments whose name or number contains what is typed, those open first."""
        if interaction.guild_id is None:
            return []
        try:
            rows = await self.service.tour_list(requester(interaction))
        except Refused:
            return []
        key = current.strip().lower().lstrip("#")
        order = {"running": 0, "signup": 1, "finished": 2}
        found = [r for r in rows if not key or key in r[1].lower() or key in str(r[0])]
        found.sort(key=lambda r: (order.get(r[2], 3), -r[0]))
        return [
            app_commands.Choice(name=f"#{i} {n} ({status_words(s)})"[:100], value=i) for i, n, s in found[:MAX_CHOICES]
        ]

    @extend.autocomplete("match")
    @decide.autocomplete("match")
    async def _match(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        """The current round's matches still to be decided."""
        try:
            view = await self.service.tour_view(
                requester(interaction), getattr(interaction.namespace, "tournament", None)
            )
        except Refused:
            return []
        t = view.tournament
        key = current.strip().lower()
        out = []
        for x in open_matches(t):
            label = f"{x.id}: {versus([called(t, x.a), called(t, x.b)])}"
            if not key or key in label.lower():
                out.append(app_commands.Choice(name=label[:100], value=x.id))
        return out[:MAX_CHOICES]


async def setup(bot: Bot) -> None:
    """Add ``/bg-tour`` and ``/bg-admin tour``."""
    await bot.add_cog(Tournaments(bot))
