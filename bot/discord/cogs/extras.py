"""More commands under ``/bg``: verifiable dice (verify, dice), hints, and team consultation in Backgammon Doubles
(propose, proposals, adopt, approve).

Like the community cog, this is a plain cog whose slash commands move into the games cog's ``/bg`` group when it
loads (and out again when it unloads). Load it after ``bot.discord.cogs.games``.

Team consultation is private to the team: an event of the service that carries ``data["team"]`` (a proposal, a
play held for approval, an approval or a rejection), and the note that a proposal was adopted, are posted only in
that team's private thread, never in the match thread. The team thread is the one the table opened when the match
started, when it can be found; otherwise this cog opens one the first time it is needed ("Team alice & carol — game
7", in the channel of the match thread, with both members added). Either way its id is stored with the game
(``GameService.set_team_thread``), so after a restart, or in another process, it is found again by id (games
started before that are found by the thread's name among the channel's threads, and then stored). Where the bot may
not create private threads, both members get a direct message instead, and the reply says so.

With team choice (``/bg play acting:choose``), each team is asked in its private thread, when a game starts, who acts
for it in that game (a select; see ``Table.on_acting``).

Every command calls the game service; refusals come back as an ephemeral message naming the rule or the fix.
The first line of each command's docstring is its description in Discord's command picker.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from engine.fairdice import verify_record

from ...locks import KeyedLocks
from ...service import Event, GameService, GameView, Outcome, Refused
from ..table import MAX_LOCKS, Table, acting_prompt, describe, mention, player_of
from .games import match_plays
from .joining import GROUP, JoinsBgGroup

__all__ = [
    "Extras",
    "setup",
    "GROUP",
    "TEAM_KINDS",
    "dice_table",
    "team_thread_name",
    "team_side",
]

#: The top-level command group these commands join (defined by the games cog).
#: Events that belong to a team's consultation (besides any event whose data names a team).
TEAM_KINDS = frozenset({"proposal", "held", "adopted", "approved", "rejected"})
log = logging.getLogger("gammonbot.discord")
THREAD_GAME = re.compile(r"^#(\d+)\b")
TEAM_GAME = re.compile(r"—\s*game\s+(\d+)\s*$")
MAX_CHOICES = 25
MAX_CONTENT = 2000
#: What a team may propose in each phase besides a play (phase ``move``).
DECISIONS = {
    "roll": ("roll", "double"),
    "doubled": ("take", "pass", "beaver", "raccoon"),
    "resigned": ("accept", "reject"),
}
USERS_ONLY = discord.AllowedMentions(everyone=False, roles=False, users=True)
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def refusals(func: F) -> F:
    """Answer a :class:`Refused` raised by a command with an ephemeral message naming the rule or the fix."""

    @functools.wraps(func)
    async def wrapper(self: Extras, interaction: discord.Interaction[Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return await func(self, interaction, *args, **kwargs)
        except Refused as exc:
            await Table.refuse(interaction, str(exc))
            return None

    return wrapper  # type: ignore[return-value]


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CONTENT else text[: MAX_CONTENT - 1] + "…"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- text ---------------------------------------------------------------------------------------------------


def dice_table(stats: Any) -> str:
    """A player's dice statistics (engine.fairdice.DiceStats) as a small fixed-width table in a code block."""
    e = stats.expected_face
    head = f"{'Number':<9}" + "".join(f"{k:>6}" for k in range(1, 7))
    seen = f"{'Seen':<9}" + "".join(f"{n:>6}" for n in stats.faces)
    expected = f"{'Expected':<9}" + "".join(f"{e:>6.1f}" for _ in range(6))
    return "```\n" + "\n".join((head, seen, expected)) + "\n```"


def team_thread_name(view: GameView, side: int) -> str:
    """The name of the private thread this cog opens for a team: ``Team alice & carol — game 7``."""
    team = " & ".join(view.name(p) for p in view.sides[side])
    suffix = f" — game {view.id}"
    return f"Team {team}"[: 100 - len(suffix)] + suffix


def _table_thread_name(view: GameView, side: int) -> str:
    """The name the table gives the team thread it opens when a team match starts."""
    team = " & ".join(view.name(p) for p in view.sides[side])
    return f"#{view.id} team {team}"[:100]


def team_side(event: Event, view: GameView) -> int | None:
    """The team whose private business an event is (None: an event anyone may see)."""
    if "team" in event.data:
        return int(event.data["team"])
    if event.kind in TEAM_KINDS and event.by is not None:
        return view.side_of(event.by)
    return None


# --- the cog --------------------------------------------------------------------------------------------------


class Extras(JoinsBgGroup):
    """Dice verification and statistics, hints, and Doubles team consultation, under ``/bg``."""

    def __init__(self, bot: commands.Bot, service: GameService, table: Table) -> None:
        self.bot = bot
        self.service = service
        self.table = table
        #: The private thread of each team, by (game id, side): a cache of what is stored with the game.
        self.team_threads: dict[tuple[int, int], int] = {}
        self._thread_lock: KeyedLocks[tuple[int, int]] = KeyedLocks(MAX_LOCKS)  # one per (game, side)
        #: The commands this cog put into the ``/bg`` group (taken out again on unload).
        self.joined: list[app_commands.Command[Any, ..., Any]] = []

    # --- finding the game ----------------------------------------------------------------------------
    def _thread_game(self, channel: Any) -> int | None:
        """The game of a match thread or of a team thread (by the names the bot gives them)."""
        if not isinstance(channel, discord.Thread):
            return None
        for (game_id, _side), thread_id in self.team_threads.items():
            if thread_id == channel.id:
                return game_id
        name = channel.name or ""
        found = THREAD_GAME.search(name) or TEAM_GAME.search(name)
        return int(found[1]) if found else None

    async def _game(
        self, interaction: discord.Interaction[Any], game: int | None, what: str, *, mine: bool = True
    ) -> GameView:
        """The game a command names, else the game of the thread it is used in, else (``mine``) the user's only
        running game; only games of this server (in direct messages: only the user's own games)."""
        here = str(interaction.guild_id) if interaction.guild_id is not None else None
        me = str(interaction.user.id)
        if game is None:
            game = self._thread_game(interaction.channel)
        if game is None and isinstance(interaction.channel, discord.Thread):
            game = await self._stored_thread_game(interaction.channel.id, me, here)
        if game is None and mine:
            running = [v for v in await self.service.my_games(me, here) if v.status == "active"]
            if len(running) == 1:
                return running[0]
            if running:
                numbers = ", ".join(f"#{v.id}" for v in running[:10])
                raise Refused(
                    f"You have {len(running)} games running ({numbers}): say which with the `game` option, "
                    f"or use `/bg {what}` in the game's thread."
                )
            raise Refused("You have no game running: say which game with the `game` option (`/bg games` lists yours).")
        if game is None:
            raise Refused(f"Say which game with the `game` option, or use `/bg {what}` inside the match's thread.")
        if game < 1:
            raise Refused("Game numbers start at 1: `/bg games` and `/bg history` show them.")
        view = await self.service.view(game)
        if (here is not None and view.guild_id != here) or (here is None and view.side_of(me) is None):
            raise Refused(f"Game #{game} is not a game of this server: `/bg history` lists this server's matches.")
        return view

    async def _stored_thread_game(self, thread_id: int, me: str, here: str | None) -> int | None:
        """The running game of the user whose stored team thread this is (a team thread renamed, after a restart)."""
        for v in await self.service.my_games(me, here):
            if v.status != "active" or len(v.sides[0]) < 2:
                continue  # only team games have team threads
            for side, stored in (await self.service.team_threads(v.id)).items():
                if stored == str(thread_id):
                    self.team_threads[(v.id, side)] = thread_id
                    return v.id
        return None

    async def _game_choices(
        self, interaction: discord.Interaction[Any], current: str, *, finished: bool = False
    ) -> list[app_commands.Choice[int]]:
        me = str(interaction.user.id)
        here = str(interaction.guild_id) if interaction.guild_id is not None else None
        key = current.strip().lstrip("#").lower()
        out: list[app_commands.Choice[int]] = []
        for v in await self.service.my_games(me, here):
            label = describe(v)
            if v.status == "active" and (not key or key in label.lower()):
                out.append(app_commands.Choice(name=label[:100], value=v.id))
        if finished:
            for line in await self.service.history(guild_id=here, player_id=me, limit=MAX_CHOICES):
                label = f"#{line['game_id']} {line['display_name']}: {' vs '.join(line.get('sides') or [])}"
                if not key or key in label.lower():
                    out.append(app_commands.Choice(name=label[:100], value=int(line["game_id"])))
        return out[:MAX_CHOICES]

    # --- verifiable dice -----------------------------------------------------------------------------
    @app_commands.command(name="verify")
    @app_commands.describe(game="Game number (default: this thread's game)")
    @refusals
    async def verify(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        """Check a match's dice against the commitment the bot published before the first roll."""
        try:
            view = await self._game(interaction, game, "verify", mine=False)
            if view.status in ("challenge", "declined", "expired"):
                raise Refused(f"Game #{view.id} never started, so it has no dice to check.")
            await interaction.response.defer(ephemeral=True, thinking=True)
            report = await self.service.verify(view.id)
            record = await self.service.record(view.id) if report.ok else None
            title, game_id = describe(view), view.id
        except discord.HTTPException:
            raise
        except Exception as exc:
            # An edited log may no longer replay (the service then fails, or refuses the game's integrity check):
            # the dice are still checked, on the record exactly as stored.
            stored = await self._stored_record(interaction, game)
            if stored is None:
                if isinstance(exc, ValueError) and not isinstance(exc, Refused):  # engine.record.RecordError
                    raise Refused(f"The stored record of this game cannot be checked: {exc}") from None
                raise
            log.warning("game %s: checking the stored record directly (%s: %s)", stored[0], type(exc).__name__, exc)
            if not interaction.response.is_done():
                await interaction.response.defer(ephemeral=True, thinking=True)
            try:
                report = verify_record(stored[1])
            except ValueError as err:
                raise Refused(f"The stored record of game #{stored[0]} cannot be checked: {err}") from None
            record = stored[1] if report.ok else None
            title, game_id = f"#{stored[0]} (checked on its record as stored)", stored[0]
        text = f"**{title}** — dice {_capital(report.message)}"
        if record is None:
            await interaction.followup.send(_clip(text), ephemeral=True)
            return
        filename = f"game{game_id}-record.json"
        text += (
            f"\nThe match record is attached: anyone can check it with `gammonbot verify {filename}` "
            f"(commitment `{record['dice']['commitment']}`)."
        )
        data = json.dumps(record, indent=1, sort_keys=True).encode()
        await interaction.followup.send(
            _clip(text), file=discord.File(io.BytesIO(data), filename=filename), ephemeral=True
        )

    async def _stored_record(
        self, interaction: discord.Interaction[Any], game: int | None
    ) -> tuple[int, dict[str, Any]] | None:
        """(game id, the match record as stored, without replaying it), for a finished game of this server with
        committed dice; None otherwise."""
        game = game if game is not None else self._thread_game(interaction.channel)
        if game is None or game < 1:
            return None
        try:
            row, logged = await self.service.store.load_game_and_actions(game)
        except LookupError:
            return None
        here = str(interaction.guild_id) if interaction.guild_id is not None else None
        if here is not None and row.guild_id != here:
            return None
        if here is None and str(interaction.user.id) not in row.players:
            return None
        setup = row.setup or {}
        if not setup.get("dice") or not isinstance(setup.get("match"), dict):
            return None
        dice = dict(setup["dice"])
        if row.status != "finished":
            dice["seed"] = None  # never shown before the match is over
        return game, {"setup": setup["match"], "actions": [a.action for a in logged], "dice": dice}

    @verify.autocomplete("game")
    async def _verify_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current, finished=True)

    @app_commands.command(name="dice")
    @app_commands.describe(player="Whose dice (default: yours)")
    @refusals
    async def dice(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        """A player's dice: how often each number and doublets came up, against what fair dice give."""
        who = player or interaction.user
        if interaction.guild_id is None and who.id != interaction.user.id:
            raise Refused("In direct messages you see your own dice only: use `/bg dice` in a server for others'.")
        where = "this server's matches" if interaction.guild_id is not None else "all your matches"
        guild = str(interaction.guild_id) if interaction.guild_id is not None else None
        stats = await self.service.dice_stats(str(who.id), guild)
        name = who.display_name
        if not stats.rolls:
            await interaction.response.send_message(
                f"{name} has no rolls in {where} yet (opening throws, one die each, are not counted).",
                ephemeral=True,
            )
            return
        verdict = (
            "unusual for fair dice (they give a p-value this low one time in a hundred)"
            if stats.face_p_value < 0.01
            else "in line with fair dice"
        )
        text = (
            f"**{name}'s dice** in {where}: {stats.rolls} rolls (opening throws, one die each, not counted).\n"
            f"{dice_table(stats)}"
            f"Doublets: **{stats.doublets}** (expected {stats.expected_doublets:.1f}).\n"
            f"Chi-square of the numbers {stats.face_chi_square:.2f} with 5 degrees of freedom, "
            f"p = {stats.face_p_value:.2f}: {verdict}."
        )
        await interaction.response.send_message(_clip(text), ephemeral=True)

    # --- hints ----------------------------------------------------------------------------------------
    @app_commands.command(name="hint")
    @app_commands.describe(game="Game number (default: this thread's game, or your only game)")
    @refusals
    async def hint(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        """The best plays (or cube action) for your decision now, only for you; not in rated matches."""
        view = await self._game(interaction, game, "hint")
        await interaction.response.defer(ephemeral=True, thinking=True)
        advice = await self.service.hint(view.id, player_of(interaction.user), 3)
        if advice.kind == "play":
            dice = f" {view.dice[0]}-{view.dice[1]}" if view.dice else ""
            head = f"Best plays for your{dice}"
        elif advice.kind == "double":
            head = "Your cube decision"
        else:
            head = "Take or pass"
        body = "\n".join(advice.lines())
        await interaction.followup.send(_clip(f"**{describe(view)}**\n{head}:\n```\n{body}\n```"), ephemeral=True)

    @hint.autocomplete("game")
    async def _hint_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    # --- team consultation ------------------------------------------------------------------------------
    @app_commands.command(name="propose")
    @app_commands.describe(
        text="A play like 13/7 8/7, or double, roll, take, pass, beaver, accept, reject",
        game="Game number (default: this thread's game, or your only game)",
    )
    @refusals
    async def propose(self, interaction: discord.Interaction[Any], text: str, game: int | None = None) -> None:
        """Backgammon Doubles: suggest a play or cube decision to your team (only your teammate sees it)."""
        view = await self._game(interaction, game, "propose")
        me = player_of(interaction.user)
        out = await self.service.propose(view.id, me, text)
        # Opening the team thread takes a few calls to Discord: answer within its 3 seconds first.
        await interaction.response.defer(ephemeral=True, thinking=True)
        where = await self._tell_teams(out)
        pid = next((e.data.get("proposal") for e in out.events if e.kind == "proposal"), None)
        shown = f" (proposal #{pid})" if pid is not None else ""
        await interaction.followup.send(_clip(f"Proposed to your team{shown}. {where}".strip()), ephemeral=True)

    @propose.autocomplete("text")
    async def _propose_text(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            view = await self._game(interaction, getattr(interaction.namespace, "game", None), "propose")
        except Refused:
            return []
        side = view.side_of(str(interaction.user.id))
        if side is None or view.to_act is None or view.side_of(view.to_act) != side:
            return []
        if view.phase == "move":
            options = match_plays(view.plays, current)
        else:
            key = current.strip().lower()
            options = [d for d in DECISIONS.get(view.phase or "", ()) if d.startswith(key)]
        return [app_commands.Choice(name=o[:100], value=o[:100]) for o in options[:MAX_CHOICES]]

    @propose.autocomplete("game")
    async def _propose_game(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    @app_commands.command(name="proposals")
    @app_commands.describe(game="Game number (default: this thread's game, or your only game)")
    @refusals
    async def proposals(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        """Backgammon Doubles: your team's proposals for the decision at hand (only your team sees them)."""
        view = await self._game(interaction, game, "proposals")
        rows = await self.service.proposals(view.id, player_of(interaction.user))
        if not rows:
            await interaction.response.send_message(
                f"Your team has no open proposals in game #{view.id}. Suggest one with `/bg propose`.", ephemeral=True
            )
            return
        lines = [f"**Your team's proposals in game #{view.id}:**"]
        lines += [f"#{r['id']} **{r['text']}** — {r['name']}" for r in rows]
        side = view.side_of(str(interaction.user.id))
        acting = view.acting[side] if view.acting is not None and side is not None else None
        lines.append(f"{view.name(acting)}, the acting member, plays one with `/bg adopt proposal:<number>`.")
        await interaction.response.send_message(
            _clip("\n".join(lines)), ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )

    @proposals.autocomplete("game")
    async def _proposals_game(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

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
        view = await self._game(interaction, game, "adopt")
        me = player_of(interaction.user)
        await self.table.command_action(
            interaction, view.id, lambda: self._private_first(self.service.adopt(view.id, me, proposal))
        )

    @adopt.autocomplete("proposal")
    async def _adopt_proposal(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        try:
            view = await self._game(interaction, getattr(interaction.namespace, "game", None), "adopt")
            rows = await self.service.proposals(view.id, player_of(interaction.user))
        except Refused:
            return []
        key = current.strip().lstrip("#").lower()
        out = []
        for r in rows:
            label = f"#{r['id']} {r['text']} — {r['name']}"
            if not key or key in label.lower():
                out.append(app_commands.Choice(name=label[:100], value=int(r["id"])))
        return out[:MAX_CHOICES]

    @adopt.autocomplete("game")
    async def _adopt_game(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    @app_commands.command(name="approve")
    @app_commands.describe(
        agree="True (default) to let your teammate's play stand; False to send them back to choose again",
        game="Game number (default: this thread's game, or your only game)",
    )
    @refusals
    async def approve(self, interaction: discord.Interaction[Any], agree: bool = True, game: int | None = None) -> None:
        """Backgammon Doubles, "both must agree": approve (or reject) the play your acting teammate chose."""
        view = await self._game(interaction, game, "approve")
        me = player_of(interaction.user)
        if agree:
            await self.table.command_action(
                interaction, view.id, lambda: self._private_first(self.service.approve(view.id, me, True))
            )
            return
        out = await self.service.approve(view.id, me, False)
        await interaction.response.defer(ephemeral=True, thinking=True)
        where = await self._tell_teams(out)
        await interaction.followup.send(
            _clip(f"You do not agree: your teammate chooses again. {where}".strip()), ephemeral=True
        )

    @approve.autocomplete("game")
    async def _approve_game(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    # --- the team's private channel ------------------------------------------------------------------------
    async def _private_first(self, call: Awaitable[Outcome]) -> Outcome:
        """Run a consultation request; post its team events privately and hand on only the public ones."""
        out = await call
        await self._tell_teams(out)
        public = tuple(e for e in out.events if team_side(e, out.game) is None)
        return Outcome(public, out.game, out.applied)

    async def _tell_teams(self, out: Outcome) -> str:
        """Post each team event of an outcome where only that team sees it; returns a sentence saying where."""
        view = out.game
        by_side: dict[int, list[Event]] = {}
        for event in out.events:
            side = team_side(event, view)
            if side is not None and 0 <= side < len(view.sides):
                by_side.setdefault(side, []).append(event)
        told: list[str] = []
        for side, events in by_side.items():
            told.append(await self._team_post(view, side, self._team_text(view, side, events)))
        return " ".join(told)

    @staticmethod
    def _team_text(view: GameView, side: int, events: list[Event]) -> str:
        acting = view.acting[side] if view.acting is not None else None
        lines = [e.text for e in events]
        proposals = [e.data["proposal"] for e in events if e.kind == "proposal" and "proposal" in e.data]
        if proposals and acting is not None:
            lines[0] = f"{mention(acting)} {lines[0]}"
            lines.append(f"Play it with `/bg adopt proposal:{proposals[-1]}`; `/bg proposals` lists them all.")
        if any(e.kind == "held" for e in events):
            mates = [p for p in view.sides[side] if p != acting]
            if mates:
                lines[0] = f"{mention(mates[0])} {lines[0]}"
            lines.append("Agree with `/bg approve`, or send it back with `/bg approve agree:False`.")
        return _clip("\n".join(lines))

    async def ping_team(self, view: GameView, link: str = "") -> None:
        """Tell the acting member's team that it is their turn, mentioning the teammate (team thread only)."""
        actor = view.to_act
        if actor is None:
            return
        side = view.side_of(actor)
        if side is None or len(view.sides[side]) < 2:
            return
        mates = [p for p in view.sides[side] if p != actor]
        thread, _why = await self._team_thread(view, side, create=False)
        if thread is None:
            return  # no private thread: the acting member is already pinged in the match thread
        text = (
            f"{mention(actor)}: your team's turn in game #{view.id}.{link} "
            f"{' '.join(mention(p) for p in mates)}: talk it over here before the acting member plays."
        )
        await thread.send(_clip(text), allowed_mentions=USERS_ONLY)

    async def ask_acting(self, view: GameView) -> None:
        """Team choice: ask each team (of people) in its private thread who acts for it in the game starting now."""
        for side, members in enumerate(view.sides):
            if len(members) < 2 or not all(p.isdigit() for p in members):
                continue  # a team of bot players chooses nothing
            try:
                await self._team_post(view, side, "", components=functools.partial(acting_prompt, view, side))
            except Refused as exc:  # no private thread, and the server refuses direct messages
                log.info("game %s: could not ask team %s who acts (%s)", view.id, side, exc)

    async def _team_post(
        self,
        view: GameView,
        side: int,
        text: str,
        *,
        components: Callable[[], tuple[str, discord.ui.View]] | None = None,
    ) -> str:
        """Post ``text`` where only team ``side`` sees it: its private thread, or else direct messages.

        ``components``: instead of ``text``, a message with components (a fresh one for each message sent).
        """

        async def send(target: discord.abc.Messageable, prefix: str = "") -> None:
            if components is None:
                await target.send(_clip(prefix + text), allowed_mentions=USERS_ONLY)
                return
            content, ui = components()
            try:
                await target.send(_clip(prefix + content), view=ui, allowed_mentions=USERS_ONLY)
            finally:
                ui.stop()

        thread, why = await self._team_thread(view, side)
        if thread is not None:
            try:
                await send(thread)
                return f"It is in your team's private thread {thread.mention}."
            except discord.HTTPException as exc:
                log.warning("game %s: could not post in team thread %s (%s)", view.id, thread.id, exc)
                self.team_threads.pop((view.id, side), None)
                why = "I could not post in your team's private thread"
        if (await self.service.guild_settings(view.guild_id))["team_thread_fallback"] == "refuse":
            raise Refused(
                f"{why}, and this server keeps team talk out of direct messages: an admin can give the bot the "
                "Create Private Threads permission (or set the team thread fallback to direct messages)."
            )
        missed = []
        for pid in view.sides[side]:
            if not pid.isdigit():
                continue  # a bot player
            try:
                user = self.bot.get_user(int(pid)) or await self.bot.fetch_user(int(pid))
                await send(user, f"Game #{view.id}, your team: ")
            except discord.HTTPException as exc:
                log.info("game %s: could not DM team member %s (%s)", view.id, pid, exc)
                missed.append(view.name(pid))
        sent = f"{why}, so I sent it to you both by direct message."
        if missed:
            sent += f" {', '.join(missed)} could not be reached (direct messages closed?)."
        return sent

    async def _team_thread(
        self, view: GameView, side: int, *, create: bool = True
    ) -> tuple[discord.Thread | None, str]:
        """The team's private thread: remembered, or the one the table opened, or opened now (with both members).

        None (and why, for the players) when there is no channel to open it in or Discord refuses; with
        ``create=False``, also when the team has no thread yet. One lookup per team at a time, so that two
        requests at once do not open two threads.
        """
        async with self._thread_lock((view.id, side)):
            return await self._find_or_open_team_thread(view, side, create)

    async def _find_or_open_team_thread(
        self, view: GameView, side: int, create: bool
    ) -> tuple[discord.Thread | None, str]:
        key = (view.id, side)
        remembered = self.team_threads.get(key)
        stored_threads = await self.service.team_threads(view.id)
        stored = stored_threads.get(side)
        theirs = stored_threads.get(1 - side)
        for candidate in dict.fromkeys(x for x in (remembered, int(stored) if stored else None) if x is not None):
            channel: Any = self.bot.get_channel(candidate)
            if channel is None:
                try:
                    channel = await self.bot.fetch_channel(candidate)
                except discord.NotFound:
                    channel = None
                    if str(candidate) == stored:  # deleted: forget it, so a new one can be opened and stored
                        with contextlib.suppress(Refused):
                            await self.service.set_team_thread(view.id, side, None)
                except discord.HTTPException:
                    channel = None
            if isinstance(channel, discord.Thread):
                self.team_threads[key] = channel.id
                return channel, ""
            self.team_threads.pop(key, None)
        parent = await self._parent(view)
        if parent is None:
            return None, "This game has no server channel where I could open a private team thread"
        me = self.bot.user.id if self.bot.user is not None else None
        names = {_table_thread_name(view, side), team_thread_name(view, side)}
        for thread in parent.threads:
            if str(thread.id) == theirs:
                continue  # the other team's thread, whatever its name (two teams may bear the same names)
            if thread.type is discord.ChannelType.private_thread and thread.owner_id == me and thread.name in names:
                await self._store_team_thread(view, side, thread)
                return thread, ""
        if not create:
            return None, "Your team has no private thread yet"
        members = [p for p in view.sides[side] if p.isdigit()]
        try:
            thread = await parent.create_thread(
                name=team_thread_name(view, side),
                type=discord.ChannelType.private_thread,
                invitable=False,
                auto_archive_duration=10080,
            )
        except discord.Forbidden:
            return None, (
                f"I may not create private threads in {parent.mention} (the bot needs the Create Private Threads "
                "permission there)"
            )
        except discord.HTTPException as exc:
            log.warning("game %s: could not open a team thread (%s)", view.id, exc)
            return None, "Discord did not let me open your team's private thread"
        try:
            for pid in members:
                await thread.add_user(discord.Object(int(pid)))
            await thread.send(
                f"{' '.join(mention(p) for p in members)}: your team's private thread for game #{view.id}. "
                "Proposals (`/bg propose`) and approvals appear here; the opponents cannot see this thread.",
                allowed_mentions=USERS_ONLY,
            )
        except discord.HTTPException as exc:
            log.warning("game %s: could not set up team thread %s (%s)", view.id, thread.id, exc)
            with contextlib.suppress(discord.HTTPException):
                await thread.delete()
            return None, "I could not add you both to a private team thread"
        await self._store_team_thread(view, side, thread)
        return thread, ""

    async def _store_team_thread(self, view: GameView, side: int, thread: discord.Thread) -> None:
        """Remember a team thread with the game (and here). Not a game change: live buttons stay current."""
        self.team_threads[(view.id, side)] = thread.id
        try:
            await self.service.set_team_thread(view.id, side, str(thread.id))
        except Refused as exc:  # still remembered here, and found by name elsewhere
            log.info("game %s: team thread %s not stored (%s)", view.id, thread.id, exc)

    async def _parent(self, view: GameView) -> discord.TextChannel | None:
        """The text channel of the match thread (or the challenge's channel when the match has no thread)."""
        for raw in (view.thread_id, view.channel_id):
            if not raw:
                continue
            channel: Any = self.bot.get_channel(int(raw))
            if channel is None:
                try:
                    channel = await self.bot.fetch_channel(int(raw))
                except discord.HTTPException:
                    continue
            if isinstance(channel, discord.Thread):
                channel = channel.parent
            if isinstance(channel, discord.TextChannel):
                return channel
        return None


async def setup(bot: commands.Bot) -> None:
    """Add verify, dice, hint and the team consultation commands to ``/bg`` (load the games cog first)."""
    await bot.add_cog(Extras(bot, bot.service, bot.table))  # type: ignore[attr-defined]
