"""The table: how a game's outcomes become Discord messages (boards, buttons, mentions, threads).

Every press of a game component and every slash command that acts on a game goes through here: the
service judges the request, and the table shows what happened. One message per change of who must act
(it mentions them); while the same player keeps acting (roll, then play; checker by checker) their message
is edited in place, so a turn costs one or two messages, not one per click. Boards are rendered by the
service in a worker thread; component presses are deferred before any work, so Discord's 3-second limit
never bites.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import discord

from ..locks import KeyedLocks
from ..service import Event, GameService, GameView, Outcome, PlayerRef, Refused
from .components import ActingSelect, ActionButton, PlaySelect, ResignButton, SubmoveButton, SubmoveSelect, may_press

if TYPE_CHECKING:
    from engine.match import MatchState

__all__ = [
    "Table",
    "player_of",
    "callers",
    "describe",
    "mention",
    "in_quiet_hours",
    "acting_prompt",
    "MAX_SELECT",
    "MAX_SUBMOVE_BUTTONS",
]

log = logging.getLogger("gammonbot.discord")

#: A select lists at most 25 options; above that the roll is played checker by checker.
MAX_SELECT = 25
#: Four rows of five submove buttons; the fifth row holds Undo, Confirm and Resign.
MAX_SUBMOVE_BUTTONS = 20
MAX_CONTENT = 2000
MAX_LOCKS = 10000


def player_of(user: discord.abc.User) -> PlayerRef:
    """The service's idea of a Discord user: their id as text and their display name."""
    return PlayerRef(str(user.id), user.display_name)


def callers(view: GameView) -> tuple[str, ...]:
    """Who is called to act now (mentioned in the game's newest message)."""
    if view.status == "challenge":
        return tuple(view.invited)
    if view.status != "active":
        return ()
    if view.to_act is not None:
        return (view.to_act,)
    if view.phase == "opening" and view.acting is not None:
        return tuple(dict.fromkeys(view.acting))
    return ()


def mention(player_id: str) -> str:
    return f"<@{player_id}>" if player_id.isdigit() else player_id


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CONTENT else text[: MAX_CONTENT - 1] + "…"


def describe(view: GameView) -> str:
    """One line about a game: its number, rule set, players, score and cube."""
    kind = f"{view.length}-point match" if view.length else "money play"
    sides = [" & ".join(view.name(p) for p in side) for side in view.sides]
    if view.status == "challenge":
        who = ", ".join(view.name(i) for i in view.invited) or "anyone"
        return f"#{view.id} {view.display_name} {kind}: challenge from {view.name(view.challenger)} to {who}"
    score = f"{sides[0]} {view.score[0]} – {view.score[1]} {sides[1]}" if len(sides) == 2 else ""
    cube = f"cube {view.cube}" + (f" ({sides[view.cube_owner]})" if view.cube_owner is not None else "")
    return f"#{view.id} {view.display_name} {kind} · {score} · {cube}"


def acting_prompt(view: GameView, side: int, note: str = "") -> tuple[str, discord.ui.View]:
    """Team choice (Backgammon Doubles): the question, for team ``side``'s private thread, of who acts for it in the
    game at hand, with a select of the two members (the one acting now is preselected)."""
    members = view.sides[side]
    acting = view.acting[side] if view.acting is not None else None
    team = " & ".join(view.name(p) for p in members)
    ui = discord.ui.View(timeout=None)
    ui.add_item(ActingSelect(view.id, side, view.game, tuple((p, view.name(p)) for p in members), acting))
    text = (
        f"{' '.join(mention(p) for p in members)}: **game {view.game}** of match #{view.id} — who acts for your team "
        f"({team})? The acting member rolls, moves and handles the cube; the other consults here. "
        f"{note}**{view.name(acting)}** acts now; you may change it below until your team first moves this game."
    )
    return _clip(text), ui


class Table:
    """Shows games in Discord: posts and edits turn messages, opens match threads, answers refusals."""

    def __init__(self, bot: discord.Client, service: GameService) -> None:
        self.bot = bot
        self.service = service
        #: The message with the live buttons of each game (channel id, message id), to retire it when the
        #: next one is posted. Lost on restart, which only means old buttons stay visible (and still work).
        self.turn_messages: dict[int, tuple[int, int]] = {}
        #: One lock per game, so a game's messages are posted in the order its changes were made.
        self._lock: KeyedLocks[int] = KeyedLocks(MAX_LOCKS)
        self._background: set[asyncio.Task[None]] = set()

    # --- answering ------------------------------------------------------------------------------
    @staticmethod
    async def refuse(interaction: discord.Interaction[Any], text: str) -> None:
        """Tell the presser alone why not (an ephemeral message, starting with a capital)."""
        text = _clip(text[:1].upper() + text[1:])
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    async def check_press(self, interaction: discord.Interaction[Any], game_id: int, action: str) -> bool:
        """The component check: may this user press this game's component at all? (see :func:`may_press`)."""
        try:
            view = await self.service.view(game_id)
        except Refused as exc:
            await self.refuse(interaction, str(exc))
            return False
        reason = may_press(view, str(interaction.user.id), action)
        if reason is not None:
            await self.refuse(interaction, reason)
            return False
        return True

    # --- direct messages ---------------------------------------------------------------------------
    async def direct(self, player_id: str, text: str) -> bool:
        """DM a player who asked for it (setting ``dm_reminders``) outside their quiet hours; True if sent."""
        if not player_id.isdigit():
            return False
        prefs = await self.service.player_settings(PlayerRef(player_id, player_id))
        if not prefs.get("dm_reminders") or in_quiet_hours(str(prefs.get("quiet_hours") or ""), self.service.clock()):
            return False
        try:
            user = self.bot.get_user(int(player_id)) or await self.bot.fetch_user(int(player_id))
            await user.send(_clip(text))
        except discord.HTTPException as exc:  # DMs closed, or the user left
            log.info("could not DM player %s (%s)", player_id, exc)
            return False
        return True

    # --- component presses -----------------------------------------------------------------------
    async def on_button(self, interaction: discord.Interaction[Any], game_id: int, action: str) -> None:
        """A game button was pressed (the press check has passed)."""
        svc = self.service
        me = player_of(interaction.user)
        if action == "resign":
            chooser = discord.ui.View(timeout=None)
            for level in (1, 2, 3):
                chooser.add_item(ResignButton(game_id, level))
            await interaction.response.send_message(
                "Offer to resign this game at which level? Your opponent may accept or reject.",
                view=chooser,
                ephemeral=True,
            )
            chooser.stop()
            return
        if action == "accept":
            await self._accept(interaction, game_id, me)
            return
        calls: dict[str, Callable[[], Awaitable[Outcome]]] = {
            "decline": lambda: svc.decline(game_id, me),
            "roll": lambda: svc.roll(game_id, me),
            "double": lambda: svc.double(game_id, me),
            "take": lambda: svc.take(game_id, me),
            "pass": lambda: svc.pass_(game_id, me),
            "beaver": lambda: svc.beaver(game_id, me),
            "raccoon": lambda: svc.raccoon(game_id, me),
            "undo": lambda: svc.undo(game_id, me),
            "confirm": lambda: svc.confirm(game_id, me),
            "resign-accept": lambda: svc.answer_resignation(game_id, me, True),
            "resign-reject": lambda: svc.answer_resignation(game_id, me, False),
        }
        await self._component_action(interaction, game_id, me, calls[action])

    async def on_resign(self, interaction: discord.Interaction[Any], game_id: int, level: int) -> None:
        """A resignation level was picked from the Resign… chooser."""
        me = player_of(interaction.user)
        await self._component_action(interaction, game_id, me, lambda: self.service.resign(game_id, me, level))

    async def on_play(self, interaction: discord.Interaction[Any], game_id: int, version: int, play: str) -> None:
        """A play was picked from the select of legal plays."""
        me = player_of(interaction.user)
        await self._component_action(
            interaction, game_id, me, lambda: self.service.move(game_id, me, play), version=version
        )

    async def on_submove(
        self, interaction: discord.Interaction[Any], game_id: int, version: int, src: int, dst: int
    ) -> None:
        """One checker was moved by one die."""
        me = player_of(interaction.user)
        await self._component_action(
            interaction, game_id, me, lambda: self.service.submove(game_id, me, src, dst), version=version
        )

    async def on_acting(
        self, interaction: discord.Interaction[Any], game_id: int, side: int, number: int, member: str
    ) -> None:
        """Team choice: a member picked who acts for the team in game ``number`` (the select in the team thread).

        The team and the game named by the select's custom id are checked against the user who picked (an opponent
        or an outsider is refused, with the reason); the service judges the choice itself.
        """
        me = player_of(interaction.user)
        await interaction.response.defer()
        async with self._lock(game_id):
            try:
                view = await self.service.view(game_id)
                if view.side_of(me.id) != side:
                    team = " & ".join(view.name(p) for p in view.sides[side])
                    raise Refused(
                        f"Only {team} choose who acts for their team in game #{game_id}; "
                        "a team makes its own choice in its private thread."
                    )
                if view.game != number:
                    raise Refused(
                        f"This question was about game {number}; match #{game_id} is in game {view.game} now "
                        "(the newest question in your team's thread is about it)."
                    )
                out = await self.service.choose_acting(game_id, me, member)
            except Refused as exc:
                await self.refuse(interaction, str(exc))
                return
            content, ui = acting_prompt(out.game, side, f"{me.name} chose. ")
            try:
                await interaction.edit_original_response(content=content, view=ui, allowed_mentions=_NO_PINGS)
            except discord.HTTPException as exc:  # the question is gone (a deleted DM, say): the choice stands
                log.info("game %s: could not update the acting question (%s)", game_id, exc)
            finally:
                ui.stop()
            # Public: who acts is no secret; the match thread gets a fresh call mentioning the acting members.
            await self._show_outcome(out, me)

    async def ask_acting(self, view: GameView) -> None:
        """Team choice: when a game of a Doubles match starts, ask each team in its private thread who acts."""
        if view.status != "active" or view.phase not in ("opening", "roll") or not any(len(s) > 1 for s in view.sides):
            return
        state = await self.service.state(view.id)
        if not state.options.team_choice or state.begun:
            return
        extras = self.bot.get_cog("Extras") if hasattr(self.bot, "get_cog") else None
        if extras is None:
            return
        try:
            await extras.ask_acting(view)  # type: ignore[attr-defined]
        except (discord.HTTPException, Refused) as exc:
            log.info("game %s: could not ask the teams who acts (%s)", view.id, exc)

    async def _component_action(
        self,
        interaction: discord.Interaction[Any],
        game_id: int,
        me: PlayerRef,
        call: Callable[[], Awaitable[Outcome]],
        *,
        version: int | None = None,
    ) -> None:
        await interaction.response.defer()
        async with self._lock(game_id):
            try:
                if version is not None and (await self.service.view(game_id)).version != version:
                    raise Refused(
                        "This board is out of date: the game has moved on since it was drawn. "
                        "Use the newest board in the game's thread (or `/bg board`)."
                    )
                out = await call()
            except Refused as exc:
                await self.refuse(interaction, str(exc))
                return
            await self.show(out, me, interaction=interaction)

    async def _accept(self, interaction: discord.Interaction[Any], game_id: int, me: PlayerRef) -> None:
        await interaction.response.defer()
        async with self._lock(game_id):
            try:
                # The accepting click's id is the players' share of the dice (committed to with the challenge).
                out = await self.service.accept(game_id, me, entropy=str(interaction.id))
            except Refused as exc:
                await self.refuse(interaction, str(exc))
                return
            message = interaction.message
            old = message.content if message is not None else ""
            await interaction.edit_original_response(content=_clip(f"{old}\n{_texts(out.events)}"), view=None)
            thread = await self._open_thread(interaction, out.game)
            if thread is not None:
                await self.service.set_thread(game_id, str(thread.id))
            view = await self.service.view(game_id)
            target = thread or await self.channel_of(view)  # no thread: the challenge's channel
            await self._post_turn(target, view, ())
            if thread is not None and any(len(side) > 1 for side in view.sides):
                await self._team_threads(interaction.channel, view, thread)
            await self.ask_acting(view)

    async def _tell_teams(self, out: Outcome) -> tuple[Outcome, tuple[Any, ...]]:
        """Split off a team's private events (proposals, held plays, approvals): they go to that team only."""
        private = tuple(e for e in out.events if "team" in e.data or e.kind in TEAM_EVENT_KINDS)
        if not private:
            return out, ()
        extras = self.bot.get_cog("Extras") if hasattr(self.bot, "get_cog") else None
        if extras is not None:
            try:
                await extras._tell_teams(Outcome(private, out.game, 0))  # type: ignore[attr-defined]
            except Refused as exc:  # no private thread and the server refuses direct messages
                log.info("game %s: team events not delivered: %s", out.game.id, exc)
        public = tuple(e for e in out.events if e not in private)
        return Outcome(public, out.game, out.applied), private

    async def _ping_team(self, view: GameView) -> None:
        """Team play: when a new turn starts, the acting member's team hears it in its private thread."""
        if view.to_act is None or not any(len(side) > 1 for side in view.sides):
            return
        extras = self.bot.get_cog("Extras") if hasattr(self.bot, "get_cog") else None
        if extras is None:
            return
        try:
            await extras.ping_team(view)  # type: ignore[attr-defined]
        except (discord.HTTPException, Refused) as exc:
            log.info("game %s: no team ping (%s)", view.id, exc)

    async def start_match(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """A match that started at once (against the bot): open its thread from the challenge and post the turn."""
        view = await self.service.view(game_id)
        message = await interaction.original_response()
        thread = None
        try:
            sides = " vs ".join(" & ".join(view.name(p) for p in side) for side in view.sides)
            thread = await message.create_thread(name=f"#{view.id} {view.display_name}: {sides}"[:100])
        except discord.HTTPException as exc:
            log.warning("game %s: could not open a thread (%s); playing in the channel", view.id, exc)
        if thread is not None:
            await self.service.set_thread(game_id, str(thread.id))
        view = await self.service.view(game_id)
        await self._post_turn(thread or await self.channel_of(view), view, ())
        await self.ask_acting(view)

    async def _team_threads(self, channel: Any, view: GameView, match_thread: Any) -> None:
        """Team games: a private thread per team, where teammates consult (best effort, needs the permission)."""
        if not isinstance(channel, discord.TextChannel):
            return
        for number, side in enumerate(view.sides):
            team = " & ".join(view.name(p) for p in side)
            try:
                thread = await channel.create_thread(
                    name=f"#{view.id} team {team}"[:100], type=discord.ChannelType.private_thread, invitable=False
                )
                for member in side:
                    await thread.add_user(discord.Object(int(member)))
                await thread.send(
                    f"{' '.join(mention(p) for p in side)}: your team's private thread for game #{view.id}. "
                    f"Talk over your plays and cube decisions here; the game itself is in {match_thread.mention}, "
                    "and only your acting member rolls, moves and handles the cube."
                )
                # Stored with the game: found again after a restart, by any process.
                await self.service.set_team_thread(view.id, number, str(thread.id))
            except (discord.HTTPException, ValueError, Refused) as exc:
                log.warning("game %s: no team thread for %s (%s)", view.id, team, exc)

    async def _open_thread(self, interaction: discord.Interaction[Any], view: GameView) -> discord.Thread | None:
        """The match's thread, started from the challenge message; None if Discord refuses (then: the channel)."""
        channel = interaction.channel
        if isinstance(channel, discord.Thread):
            return channel
        sides = " vs ".join(" & ".join(view.name(p) for p in side) for side in view.sides)
        name = f"#{view.id} {view.display_name}: {sides}"[:100]
        message = interaction.message
        try:
            if message is not None:
                return await message.create_thread(name=name, auto_archive_duration=10080)
            if isinstance(channel, discord.TextChannel):
                return await channel.create_thread(name=name, type=discord.ChannelType.public_thread)
        except discord.HTTPException as exc:
            log.warning("game %s: could not open a thread (%s); playing in the channel", view.id, exc)
        return None

    # --- slash commands acting on a game -------------------------------------------------------------
    async def command_action(
        self, interaction: discord.Interaction[Any], game_id: int, call: Callable[[], Awaitable[Outcome]]
    ) -> None:
        """Run a game action typed as a slash command; show it in the game's thread."""
        me = player_of(interaction.user)
        async with self._lock(game_id):
            try:
                out = await call()
            except Refused as exc:
                await self.refuse(interaction, str(exc))
                return
            await self.show(out, me, interaction=interaction)

    # --- showing outcomes ----------------------------------------------------------------------------
    async def notify(self, out: Outcome) -> None:
        """Show what the scheduler did (reminders, timeouts, automatic opening rolls, expiries, archiving)."""
        kinds = {e.kind for e in out.events}
        view = out.game
        async with self._lock(view.id):
            if kinds <= {"reminder", "expired", "archived"}:
                try:
                    target = await self.channel_of(view)
                except Refused:
                    return
                lines = [f"{mention(e.by)} {e.text}" if e.kind == "reminder" and e.by else e.text for e in out.events]
                sent = await target.send(_clip("\n".join(lines)))
                for e in out.events:
                    if e.kind == "reminder" and e.by:
                        await self.direct(e.by, f"{e.text} {sent.jump_url}")
                if kinds & {"expired", "archived"}:
                    previous = self.turn_messages.pop(view.id, None)
                    if previous is not None:
                        await self._retire(view.id, previous)
                return
            await self.show(out, None)

    async def show(
        self, out: Outcome, me: PlayerRef | None, *, interaction: discord.Interaction[Any] | None = None
    ) -> None:
        """Show what a request did: edit the pressed message in place, or retire it and post the next turn.

        When a game of a Doubles match with team choice ends and the next one starts, each team is then asked in its
        private thread who acts in the new game.
        """
        await self._show_outcome(out, me, interaction=interaction)
        if out.game.status == "active" and any(e.kind == "game-over" for e in out.events):
            await self.ask_acting(out.game)

    async def _show_outcome(
        self, out: Outcome, me: PlayerRef | None, *, interaction: discord.Interaction[Any] | None = None
    ) -> None:
        out, private = await self._tell_teams(out)
        if any(e.kind == "turn" for e in out.events):
            await self._ping_team(out.game)
        if private or any(e.kind == "turn" for e in out.events):
            # Telling a team may have stored its private thread with the game (a new version, nothing else new):
            # the components drawn now must carry that version.
            fresh = await self.service.view(out.game.id)
            if fresh.version != out.game.version and dataclasses.replace(fresh, version=out.game.version) == out.game:
                out = Outcome(out.events, fresh, out.applied)
        if private and not out.events:
            # Only team business happened (a play held for the teammate's approval): nothing public to show.
            if interaction is not None and not interaction.response.is_done():
                await interaction.response.send_message(_clip(_texts(private)), ephemeral=True)
            elif interaction is not None:
                await interaction.followup.send(_clip(_texts(private)), ephemeral=True)
            return
        view = out.game
        message = interaction.message if interaction is not None and interaction.message is not None else None
        component = interaction is not None and interaction.type is discord.InteractionType.component
        ephemeral_source = message is not None and message.flags.ephemeral
        if view.status == "declined":
            if component and message is not None:
                await interaction.edit_original_response(  # type: ignore[union-attr]
                    content=_clip(f"{message.content}\n{_texts(out.events)}"), view=None
                )
            elif interaction is not None:
                await interaction.response.send_message(_texts(out.events))
            return
        target = await self.channel_of(view)
        if component and message is not None and not ephemeral_source and me is not None and callers(view) == (me.id,):
            assert interaction is not None
            content, file, ui = await self._turn(view, out.events, _told(message.content))
            await interaction.edit_original_response(content=content, attachments=[file], view=ui)
            ui.stop()
            self.turn_messages[view.id] = (message.channel.id, message.id)
            return
        send: Callable[..., Awaitable[Any]] = target.send
        if interaction is not None and not component:
            # A slash command: answer it with the next post when typed in the game's thread.
            if interaction.channel_id == getattr(target, "id", None):  # noqa: B009
                await interaction.response.defer(thinking=True)
                send = _followup_sender(interaction)
            else:
                where = getattr(target, "mention", "the game's thread")
                await interaction.response.send_message(
                    _clip(f"{_texts(out.events)}\nThe game goes on in {where}."), ephemeral=True
                )
        # The next message first: if it cannot be posted, the old buttons stay for another try.
        previous = self.turn_messages.pop(view.id, None)
        try:
            if view.status == "finished":
                await self._post_end(target, view, out.events, send=send)
            else:
                await self._post_turn(target, view, out.events, send=send)
        except BaseException:
            if previous is not None:
                self.turn_messages.setdefault(view.id, previous)
            raise
        if component and message is not None:
            assert interaction is not None
            if ephemeral_source:
                await interaction.edit_original_response(content=_clip(_texts(out.events) or "Done."), view=None)
            else:
                await interaction.edit_original_response(view=None)
        if previous is not None and (message is None or previous[1] != message.id):
            await self._retire(view.id, previous)

    async def _retire(self, game_id: int, where: tuple[int, int]) -> None:
        """Remove the buttons from a game's previous turn message (best effort: it may be gone)."""
        channel = self.bot.get_channel(where[0])
        if channel is None or not isinstance(channel, discord.abc.Messageable):
            return
        try:
            await channel.get_partial_message(where[1]).edit(view=None)  # type: ignore[attr-defined]
        except discord.HTTPException as exc:
            log.info("game %s: could not retire message %s (%s)", game_id, where[1], exc)

    async def channel_of(self, view: GameView) -> discord.abc.Messageable:
        """The game's thread (or, without one, the channel the challenge was made in)."""
        for raw in (view.thread_id, view.channel_id):
            if not raw:
                continue
            channel = self.bot.get_channel(int(raw))
            if channel is None:
                try:
                    channel = await self.bot.fetch_channel(int(raw))
                except discord.HTTPException:
                    continue
            if isinstance(channel, discord.abc.Messageable):
                return channel
        raise Refused(f"game #{view.id} has no channel I can reach any more")

    async def _post_turn(
        self,
        target: discord.abc.Messageable,
        view: GameView,
        events: Sequence[Event],
        *,
        send: Callable[..., Awaitable[Any]] | None = None,
    ) -> None:
        content, file, ui = await self._turn(view, events)
        sent = await (send or target.send)(content=content, file=file, view=ui)
        ui.stop()
        if sent is not None:
            self.turn_messages[view.id] = (sent.channel.id, sent.id)
        link = f" {sent.jump_url}" if sent is not None else ""
        for player in callers(view):
            await self.direct(player, f"Your turn in game #{view.id} ({view.display_name}).{link}")

    async def _post_end(
        self,
        target: discord.abc.Messageable,
        view: GameView,
        events: Sequence[Event],
        *,
        send: Callable[..., Awaitable[Any]] | None = None,
    ) -> None:
        rendered = await self.service.board(view.id, None)
        mat = await self.service.export(view.id)
        content = _clip(
            f"**{describe(view)}**\n{_texts(events)}\nThe final board and the match file (.mat) are attached."
        )
        files = [
            discord.File(io.BytesIO(rendered.png), filename=f"game{view.id}-final.png", description=rendered.alt_text),
            discord.File(io.BytesIO(mat.encode()), filename=f"game{view.id}.mat"),
        ]
        await (send or target.send)(content=content, files=files)
        # Post-match analysis for players who asked for it: computed off the event loop, posted when ready.
        task = asyncio.create_task(self._post_analysis(target, view.id))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _post_analysis(self, target: discord.abc.Messageable, game_id: int) -> None:
        try:
            report = await self.service.analysis_report(game_id)
            if report:
                await target.send(_clip(report))
        except Exception:  # an analysis that fails must not disturb the match that just ended
            log.exception("game %s: post-match analysis failed", game_id)

    async def _turn(
        self, view: GameView, events: Sequence[Event], earlier: Sequence[str] = ()
    ) -> tuple[str, discord.File, discord.ui.View]:
        """The content, board and components of the message calling the next player to act.

        ``earlier``: what the message said had happened before, when it is edited in place (kept, so the thread
        still tells every play). Drafts are not told: the prompt shows the checkers moved so far.
        """
        state = await self.service.state(view.id)
        viewer = view.to_act or (view.acting[0] if view.acting else None)
        rendered = await self.service.board(view.id, viewer)
        file = discord.File(
            io.BytesIO(rendered.png), filename=f"game{view.id}.png", description=rendered.alt_text[:1024]
        )
        ui, prompt = await self.controls(view, state)
        lines = [f"**{describe(view)}**", *earlier]
        told = _texts(e for e in events if e.kind not in ("turn", "draft"))
        if told:
            lines.append(told)
        lines.append(prompt)
        watchers = await self.service.watchers(view.id)
        if watchers:  # spectators who asked for turn updates (/bg watch)
            lines.append("Watching: " + " ".join(mention(p) for p in watchers))
        return _clip("\n".join(lines)), file, ui

    async def controls(self, view: GameView, state: MatchState | None = None) -> tuple[discord.ui.View, str]:
        """The components fitting the game's phase, and the sentence calling the players to act."""
        if state is None:
            state = await self.service.state(view.id)
        ui = discord.ui.View(timeout=None)
        gid = view.id
        who = " ".join(mention(p) for p in callers(view))
        actor = view.to_act
        phase = view.phase
        if phase == "opening":
            ui.add_item(ActionButton("roll", gid))
            choose = ""
            if state.options.team_choice and not state.begun:
                choose = " Each team may choose who acts this game, in its private team thread, until it first moves."
            return ui, f"{who}: roll the opening dice (either of you).{choose}"
        side = view.side_of(actor) if actor else None
        if phase == "roll":
            ui.add_item(ActionButton("roll", gid))
            can_double = side is not None and state.may_double(side) is None
            if can_double:
                ui.add_item(ActionButton("double", gid))
            ui.add_item(ActionButton("resign", gid))
            return ui, f"{who}: your roll{' (or double)' if can_double else ''}."
        if phase == "move":
            dice = f"{view.dice[0]}-{view.dice[1]}" if view.dice else "your roll"
            if len(view.plays) <= MAX_SELECT and not view.draft:
                ui.add_item(PlaySelect(gid, view.version, view.plays))
                ui.add_item(ActionButton("resign", gid, row=1))
                return ui, f"{who}: play {dice}: pick your play below, or type it with `/bg move`."
            options = await submove_options(self.service, view)
            if len(options) <= MAX_SUBMOVE_BUTTONS:
                for k, (src, dst) in enumerate(options):
                    ui.add_item(SubmoveButton(gid, view.version, src, dst, row=k // 5))
            else:
                ui.add_item(SubmoveSelect(gid, view.version, options))
            complete = bool(view.draft) and not view.draft_remaining
            ui.add_item(ActionButton("undo", gid, disabled=not view.draft, row=4))
            ui.add_item(ActionButton("confirm", gid, disabled=not complete, row=4))
            ui.add_item(ActionButton("resign", gid, row=4))
            so_far = f" So far: {view.draft}." if view.draft else ""
            left = ", ".join(map(str, view.draft_remaining))
            todo = f"dice left: {left}" if left else "all dice used: Confirm, or Undo"
            return ui, (
                f"{who}: play {dice} checker by checker ({len(view.plays)} possible plays; {todo}).{so_far} "
                "Or type the whole play with `/bg move`."
            )
        if phase == "doubled":
            ui.add_item(ActionButton("take", gid))
            ui.add_item(ActionButton("pass", gid))
            opts = state.options
            if opts.money and opts.beavers and state.redoubles < opts.beaver_limit:
                ui.add_item(ActionButton("beaver" if state.redoubles == 0 else "raccoon", gid))
            return ui, f"{who}: the cube is offered at {state.cube.value * 2}: take or pass?"
        if phase == "resigned":
            ui.add_item(ActionButton("resign-accept", gid))
            ui.add_item(ActionButton("resign-reject", gid))
            return ui, f"{who}: accept or reject the resignation."
        return ui, ""


async def submove_options(service: GameService, view: GameView) -> tuple[tuple[int, int], ...]:
    """The checker moves that may be made next this turn (the engine's answer, with the stored draft).

    The service does not list them yet; until it does, this asks the engine through the public state and
    the stored draft (see the report of issue 7).
    """
    state = await service.state(view.id)
    row = await service.store.load_game(view.id)
    draft = state.draft()
    for src, dst in row.draft or []:
        draft = draft.add(src, dst)
    return tuple(draft.options())


def in_quiet_hours(spec: str, now: float) -> bool:
    """Whether ``now`` (a timestamp) falls in quiet hours written ``"22-7"`` (UTC, start inclusive, end exclusive)."""
    start, sep, end = spec.partition("-")
    if not sep or not start.strip().isdigit() or not end.strip().isdigit():
        return False
    a, b = int(start) % 24, int(end) % 24
    hour = datetime.fromtimestamp(now, UTC).hour
    return a <= hour < b if a <= b else (hour >= a or hour < b)


def _told(content: str) -> list[str]:
    """The event lines of one of our turn messages: everything between the heading and the prompt."""
    lines = content.split("\n")
    return lines[1:-1] if len(lines) > 2 and lines[0].startswith("**#") else []


_NO_PINGS = discord.AllowedMentions.none()

#: Events that are one team's private business (Backgammon Doubles consultation).
TEAM_EVENT_KINDS = frozenset({"proposal", "held", "adopted", "approved", "rejected"})


def _texts(events: Any) -> str:
    return "\n".join(e.text for e in events)


def _followup_sender(interaction: discord.Interaction[Any]) -> Callable[..., Awaitable[Any]]:
    async def send(**kwargs: Any) -> Any:
        return await interaction.followup.send(wait=True, **kwargs)

    return send
