"""The table: how a game's outcomes become Discord messages (post, edit and retire turn messages).

Every press of a game component and every slash command that acts on a game goes through here: the service judges
the request, and the table shows what happened. One message per change of who must act (it mentions, and pings,
exactly them); while the same player keeps acting (roll, then play; checker by checker) their message is edited in
place, so a turn costs one or two messages, not one per click. The components come from :mod:`.controls` (what the
engine allows); threads and team rooms from :mod:`.threads`. Boards are rendered by the service in a worker thread.

Every interaction is answered first (:func:`.errors.answer_first`): component presses and slash commands acting on a
game are deferred before any other work, so Discord's 3-second limit never bites. And what the game needs never
depends on that answer: the next turn is posted in the game's thread as the bot's own message (not as a reply to the
interaction), and a pressed message that can no longer be edited through its interaction is edited as the bot's own
message, or replaced by a fresh one. A play that was made is always shown, even if Discord rejected the answer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import discord

from engine import i18n
from engine.ascii import ascii_board
from engine.controls import Allowed, PlayStatus, allowed_actions
from engine.i18n import _
from engine.match import Phase

from ..locks import KeyedLocks
from ..service import SYSTEM, Event, EventKind, GameService, GameStatus, GameView, Outcome, PlayerRef, Refused, Request
from .channels import take_buttons_off, told
from .components import board_pointer, may_press
from .context import requester
from .controls import MAX_SELECT, acting_question, challenge_controls, resign_chooser, turn_controls
from .delivery import Upload
from .errors import answer_first, refuse, reply
from .language import public, server_language
from .text import NO_PINGS, callers, clip, describe, mention, pings, safe, team_name, texts
from .threads import MAX_LOCKS, Threads, is_team_game

if TYPE_CHECKING:
    from engine.match import MatchState

__all__ = ["Table", "in_quiet_hours"]

log = logging.getLogger("gammonbot.discord")


class Table:
    """Shows games in Discord: posts, edits and retires turn messages, and answers component presses."""

    def __init__(self, bot: discord.Client, service: GameService, threads: Threads) -> None:
        self.bot = bot
        self.service = service
        self.threads = threads
        #: The message with the live buttons of each game (channel id, message id), to retire it when the
        #: next one is posted. Lost on restart, which only means old buttons stay visible (and still work).
        self.turn_messages: dict[int, tuple[int, int]] = {}
        #: One lock per game, so a game's messages are posted in the order its changes were made.
        self.lock: KeyedLocks[int] = KeyedLocks(MAX_LOCKS)
        self._background: set[asyncio.Task[None]] = set()

    # --- who may press ---------------------------------------------------------------------------------
    async def check_press(self, interaction: discord.Interaction[Any], game_id: int, action: str) -> bool:
        """The component check: may this user press this game's component at all? (see :func:`may_press`)."""
        try:
            view = await self.service.view(game_id, requester(interaction))
        except Refused as exc:
            await refuse(interaction, str(exc))
            return False
        reason = may_press(view, str(interaction.user.id), action)
        if reason is not None:
            await refuse(interaction, reason)
            return False
        return True

    # --- what the state allows ----------------------------------------------------------------------------
    async def allowed(self, view: GameView, state: MatchState | None = None, side: int | None = None) -> Allowed:
        """What the engine accepts now in a started game (for ``side``; default: the side due to act)."""
        if state is None:
            state = await self.service.state(view.id, SYSTEM)
        return allowed_actions(state, side)

    async def controls(self, view: GameView, state: MatchState | None = None) -> tuple[discord.ui.View, str]:
        """The components fitting the game's state, and the sentence calling the players to act."""
        allowed = await self.allowed(view, state)
        submoves: tuple[tuple[int, int], ...] = ()
        if allowed.play is not PlayStatus.NONE and (len(view.plays) > MAX_SELECT or view.draft):
            submoves = await self.service.draft_options(view.id, SYSTEM)
        return turn_controls(view, allowed, submoves)

    # --- direct messages ---------------------------------------------------------------------------
    async def direct(self, player_id: str, text: str) -> bool:
        """DM a player who asked for it (setting ``dm_reminders``) outside their quiet hours; True if sent."""
        if not player_id.isdigit():
            return False
        prefs = await self.service.settings_of(player_id)
        if not prefs.get("dm_reminders") or in_quiet_hours(str(prefs.get("quiet_hours") or ""), self.service.clock()):
            return False
        try:
            user = self.bot.get_user(int(player_id)) or await self.bot.fetch_user(int(player_id))
            await user.send(clip(text))
        except discord.HTTPException as exc:  # DMs closed, or the user left
            log.info("could not DM player %s (%s)", player_id, exc)
            return False
        return True

    # --- component presses -----------------------------------------------------------------------
    async def on_button(self, interaction: discord.Interaction[Any], game_id: int, action: str) -> None:
        """A game button was pressed (the press check has passed)."""
        svc = self.service
        me = requester(interaction)
        if action == "resign":
            await self._resign_chooser(interaction, game_id, me)
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
            "end-session": lambda: svc.end_session(game_id, me),
        }
        await self._component_action(interaction, game_id, me, calls[action])

    async def _resign_chooser(self, interaction: discord.Interaction[Any], game_id: int, me: Request) -> None:
        """Resign…: the levels the engine accepts from the presser's side now, only for the presser."""
        try:
            view = await self.service.view(game_id, me)
            allowed = await self.allowed(view, side=view.side_of(me.id))
            levels, names = allowed.resign_levels, allowed.resign_names
        except Refused as exc:
            await refuse(interaction, str(exc))
            return
        if not levels:  # none may be offered now: the service names the rule
            await self._component_action(interaction, game_id, me, lambda: self.service.resign(game_id, me, 1))
            return
        chooser = resign_chooser(game_id, levels, names)
        await interaction.response.send_message(
            _("Offer to resign this game at which level? Your opponent may accept or reject."),
            view=chooser,
            ephemeral=True,
        )
        chooser.stop()

    async def on_resign(self, interaction: discord.Interaction[Any], game_id: int, level: int) -> None:
        """A resignation level was picked from the Resign… chooser."""
        me = requester(interaction)
        await self._component_action(interaction, game_id, me, lambda: self.service.resign(game_id, me, level))

    async def on_name_double(self, interaction: discord.Interaction[Any], game_id: int, value: int) -> None:
        """A doublet was named after a 1-2 (Acey-deucey)."""
        me = requester(interaction)
        await self._component_action(interaction, game_id, me, lambda: self.service.name_double(game_id, me, value))

    async def on_play(self, interaction: discord.Interaction[Any], game_id: int, version: int, play: str) -> None:
        """A play was picked from the select of legal plays."""
        me = requester(interaction)
        await self._component_action(
            interaction, game_id, me, lambda: self.service.move(game_id, me, play), version=version
        )

    async def on_submove(
        self, interaction: discord.Interaction[Any], game_id: int, version: int, src: int, dst: int
    ) -> None:
        """One checker was moved by one die."""
        me = requester(interaction)
        await self._component_action(
            interaction, game_id, me, lambda: self.service.submove(game_id, me, src, dst), version=version
        )

    async def on_acting(
        self, interaction: discord.Interaction[Any], game_id: int, side: int, number: int, member: str
    ) -> None:
        """Team choice: a member picked who acts for the team in game ``number`` (the select in the team room).

        The team and the game named by the select's custom id are checked against the user who picked (an opponent
        or an outsider is refused, with the reason); the service judges the choice itself.
        """
        me = requester(interaction)
        await answer_first(interaction)
        async with self.lock(game_id):
            try:
                view = await self.service.view(game_id, me)
                if view.side_of(me.id) != side:
                    raise Refused(
                        _(
                            "Only {team} choose who acts for their team in game #{game}; a team makes its own choice "
                            "in its private thread."
                        ).format(team=team_name(view, side), game=game_id)
                    )
                if view.game != number:
                    raise Refused(
                        _(
                            "This question was about game {number}; match #{game} is in game {current} now (the "
                            "newest question in your team's thread is about it)."
                        ).format(number=number, game=game_id, current=view.game)
                    )
                out = await self.service.choose_acting(game_id, me, member)
            except Refused as exc:
                await refuse(interaction, str(exc))
                return
            with i18n.shared():  # the team's room: both members read it
                content, ui = acting_question(out.game, side, _("{name} chose.").format(name=safe(me.name)) + " ")
            try:
                # If the question is gone (a deleted DM, say), the choice stands all the same.
                await self._edit_pressed(interaction, content=content, view=ui, allowed_mentions=NO_PINGS)
            finally:
                ui.stop()
            # Public: who acts is no secret; the match thread gets a fresh call mentioning the acting members.
            await self._show_outcome(out, me)

    async def ask_acting(self, view: GameView) -> None:
        """Team choice: when a game of a Doubles match starts, ask each team that may choose who acts."""
        if view.status != GameStatus.ACTIVE or view.phase not in (Phase.OPENING, Phase.ROLL) or not is_team_game(view):
            return
        allowed = await self.allowed(view)
        if any(allowed.choose_acting):
            await self.threads.ask_acting(view, allowed.choose_acting)

    async def _component_action(
        self,
        interaction: discord.Interaction[Any],
        game_id: int,
        me: Request,
        call: Callable[[], Awaitable[Outcome]],
        *,
        version: int | None = None,
    ) -> None:
        await answer_first(interaction)
        async with self.lock(game_id):
            try:
                if version is not None and (await self.service.view(game_id, me)).version != version:
                    raise Refused(
                        _(
                            "This board is out of date: the game has moved on since it was drawn. "
                            "Use the newest board in the game's thread (or `/bg board`)."
                        )
                    )
                out = await call()
            except Refused as exc:
                await refuse(interaction, board_pointer(str(exc)))
                return
            await self.show(out, me, interaction=interaction)

    async def _accept(self, interaction: discord.Interaction[Any], game_id: int, me: Request) -> None:
        await answer_first(interaction)
        async with self.lock(game_id):
            try:
                # The accepting click's id is the players' share of the dice (committed to with the challenge).
                out = await self.service.accept(game_id, me, entropy=str(interaction.id))
            except Refused as exc:
                await refuse(interaction, str(exc))
                return
            message = interaction.message
            old = message.content if message is not None else ""
            if out.game.status == GameStatus.CHALLENGE:
                # A team challenge some of whose players have still to accept: its buttons stay for them.
                with i18n.shared():  # the challenge is public
                    buttons = challenge_controls(out.game)
                await self._edit_pressed(
                    interaction,
                    content=clip(f"{old}\n{texts(out.events)}"),
                    view=buttons,
                    allowed_mentions=NO_PINGS,
                )
                return
            await self._edit_pressed(
                interaction, content=clip(f"{old}\n{texts(out.events)}"), view=None, allowed_mentions=NO_PINGS
            )
            thread = await self.threads.open_match_thread(out.game, message, interaction.channel)
            await self.begin(out.game.id, thread)

    async def start_match(
        self, interaction: discord.Interaction[Any], game_id: int, challenge: discord.Message | None
    ) -> None:
        """A match that started at once (against the bot): open its thread from the ``challenge`` message (or, if
        that could not be posted, in the channel) and post the turn."""
        view = await self.service.view(game_id, SYSTEM)
        thread = await self.threads.open_match_thread(view, challenge, None if challenge else interaction.channel)
        await self.begin(game_id, thread)

    @public
    async def begin(self, game_id: int, thread: discord.Thread | None) -> None:
        """Post the first turn of a match that started, in its ``thread`` (or where the game is played); open its
        team rooms, and ask each team who acts when it chooses."""
        view = await self.service.view(game_id, SYSTEM)
        await self.post_turn(thread or await self.threads.channel_of(view), view, ())
        if thread is not None:
            await self.threads.open_team_rooms(view)
        await self.ask_acting(view)

    # --- slash commands acting on a game -------------------------------------------------------------
    async def command_action(
        self, interaction: discord.Interaction[Any], game_id: int, call: Callable[[], Awaitable[Outcome]]
    ) -> None:
        """Run a game action typed as a slash command; show it in the game's thread.

        The interaction is deferred (privately) first: the action may take long (bot players answer at once, boards
        are drawn, team rooms told). The next turn is posted in the game's thread; the asker is told privately.
        """
        me = requester(interaction)
        await answer_first(interaction)
        async with self.lock(game_id):
            try:
                out = await call()
            except Refused as exc:
                await refuse(interaction, str(exc))
                return
            await self.show(out, me, interaction=interaction)

    # --- showing outcomes ----------------------------------------------------------------------------
    async def notify(self, out: Outcome) -> None:
        """Show what the scheduler did (reminders, timeouts, automatic opening rolls, expiries, archiving)."""
        with i18n.use(await server_language(self.service, out.game.guild_id)):  # no asker: the server's language
            await self._notify(out)

    async def _notify(self, out: Outcome) -> None:
        kinds = {e.kind for e in out.events}
        view = out.game
        async with self.lock(view.id):
            if kinds <= {"reminder", "expired", "archived"}:
                try:
                    target = await self.threads.channel_of(view)
                except Refused:
                    return
                reminded = [e.by for e in out.events if e.kind == EventKind.REMINDER and e.by]
                lines = [
                    f"{mention(e.by)} {safe(e.text)}" if e.kind == EventKind.REMINDER and e.by else safe(e.text)
                    for e in out.events
                ]
                sent = await self.threads.delivery.send(
                    view, target, content=clip("\n".join(lines)), allowed_mentions=pings(reminded)
                )
                for e in out.events:
                    if e.kind == EventKind.REMINDER and e.by:
                        await self.direct(e.by, f"{safe(e.text)} {sent.jump_url}")
                if kinds & {"expired", "archived"}:
                    previous = self.turn_messages.pop(view.id, None) or await self.threads.stored_prompt(view.id)
                    if previous is not None:
                        await self._retire(view.id, previous)
                return
            await self.show(out, None)

    async def show(
        self, out: Outcome, me: PlayerRef | None, *, interaction: discord.Interaction[Any] | None = None
    ) -> None:
        """Show what a request did: edit the pressed message in place, or retire it and post the next turn.

        When a game of a Doubles match with team choice ends and the next one starts, each team is then asked in its
        room who acts in the new game.
        """
        await self._show_outcome(out, me, interaction=interaction)
        if out.game.status == GameStatus.ACTIVE and any(e.kind == EventKind.GAME_OVER for e in out.events):
            await self.ask_acting(out.game)

    async def _tell_teams(self, out: Outcome) -> tuple[Outcome, tuple[Event, ...]]:
        """Split off a team's private events (proposals, held plays, approvals): they go to that team only."""
        public, private = self.threads.split_private(out)
        if private:
            try:
                await self.threads.tell_teams(Outcome(private, out.game, 0))
            except Refused as exc:  # no room and the server refuses direct messages
                log.info("game %s: team events not delivered: %s", out.game.id, exc)
        return public, private

    async def _show_outcome(
        self, out: Outcome, me: PlayerRef | None, *, interaction: discord.Interaction[Any] | None = None
    ) -> None:
        out, private = await self._tell_teams(out)
        turn = any(e.kind == EventKind.TURN for e in out.events)
        if turn:
            try:
                await self.threads.ping_team(out.game)
            except (discord.HTTPException, Refused) as exc:
                log.info("game %s: no team ping (%s)", out.game.id, exc)
        if private or turn:
            # Telling a team may have stored its room with the game (a new version, nothing else new): the
            # components drawn now must carry that version.
            fresh = await self.service.view(out.game.id, SYSTEM)
            if fresh.version != out.game.version and dataclasses.replace(fresh, version=out.game.version) == out.game:
                out = Outcome(out.events, fresh, out.applied)
        if private and not out.events:
            # Only team business happened (a play held for the teammate's approval): nothing public to show.
            if interaction is not None:
                await self._tell_asker(interaction, texts(private))
            return
        view = out.game
        message = interaction.message if interaction is not None and interaction.message is not None else None
        component = interaction is not None and interaction.type is discord.InteractionType.component
        ephemeral_source = message is not None and message.flags.ephemeral
        if view.status == GameStatus.DECLINED:
            if component and message is not None:
                assert interaction is not None
                await self._edit_pressed(
                    interaction, content=clip(f"{message.content}\n{texts(out.events)}"), view=None
                )
            elif interaction is not None:
                await self._tell_asker(interaction, texts(out.events))
            return
        target = await self.threads.channel_of(view)
        # A game that ended while the match goes on: its final position and result first, then the next turn afresh.
        ended = await self.threads.post_game_ends(target, out)
        if (
            component
            and message is not None
            and not ephemeral_source
            and me is not None
            and callers(view) == (me.id,)
            and not ended
        ):
            # The same player acts again: their message is edited in place (or, if it cannot be, posted afresh).
            assert interaction is not None
            content, picture, ui, allowed = await self.turn_message(view, out.events, told(message.content))
            try:
                edited = await self._edit_pressed(
                    interaction, content=content, attachments=[picture.file()], view=ui, allowed_mentions=allowed
                )
            finally:
                ui.stop()
            if edited:
                self.turn_messages[view.id] = (message.channel.id, message.id)
                await self.threads.remember_prompt(view, message.channel.id, message.id)
                return
        # The next message first, as the bot's own post in the game's thread (whatever became of the answer to the
        # interaction): if it cannot be posted, the old buttons stay for another try.
        previous = self.turn_messages.pop(view.id, None) or await self.threads.stored_prompt(view.id)
        try:
            if view.status == GameStatus.FINISHED:
                await self._post_end(target, view, out.events)
            else:
                await self.post_turn(target, view, out.events)
        except BaseException:
            if previous is not None:
                self.turn_messages.setdefault(view.id, previous)
            raise
        if component and message is not None:
            assert interaction is not None
            if ephemeral_source:
                await self._edit_pressed(interaction, content=clip(texts(out.events) or _("Done.")), view=None)
            else:
                await self._edit_pressed(interaction, view=None)
        elif interaction is not None:
            # A slash command: the asker is told what happened, and where the game goes on.
            here = interaction.channel_id == getattr(target, "id", None)  # noqa: B009
            place = getattr(target, "mention", None) or _("the game’s thread")
            where = "" if here else "\n" + _("The game goes on in {place}.").format(place=place)
            await self._tell_asker(interaction, clip((texts(out.events) or _("Done.")) + where))
        if previous is not None and (message is None or previous[1] != message.id):
            await self._retire(view.id, previous)

    async def _tell_asker(self, interaction: discord.Interaction[Any], text: str) -> None:
        """Tell the asker privately what their request did (best effort: the game has been shown already)."""
        try:
            await reply(interaction, clip(text), allowed_mentions=NO_PINGS)
        except discord.HTTPException as exc:  # the interaction expired: the game's thread shows it all
            log.info("interaction %s: could not tell the asker (%s)", interaction.id, exc)

    async def _edit_pressed(self, interaction: discord.Interaction[Any], **fields: Any) -> bool:
        """Edit the message whose component was pressed: through the interaction, or else (Discord no longer knows
        the interaction) as the bot's own message. False if neither could (it is ephemeral, or gone)."""
        try:
            await interaction.edit_original_response(**fields)
            return True
        except discord.HTTPException as exc:
            log.info("interaction %s: could not edit the pressed message through it (%s)", interaction.id, exc)
        message = interaction.message
        channel = message.channel if message is not None else None
        if message is None or message.flags.ephemeral or channel is None or isinstance(channel, discord.GroupChannel):
            return False
        try:
            await channel.get_partial_message(message.id).edit(**fields)
        except discord.HTTPException as exc:
            log.info("could not edit message %s (%s)", message.id, exc)
            return False
        return True

    async def _retire(self, game_id: int, where: tuple[int, int]) -> None:
        """Remove the buttons from a game's previous turn message (best effort: it may be gone)."""
        channel = self.bot.get_channel(where[0])
        if channel is None or not isinstance(channel, discord.abc.Messageable):
            return
        exc = await take_buttons_off(channel, where[1])
        if exc is not None:
            log.info("game %s: could not retire message %s (%s)", game_id, where[1], exc)
            if not isinstance(exc, discord.NotFound):
                return  # still its stored prompt, for a restarted bot to retire
        if game_id not in self.turn_messages:  # no newer prompt replaced it in storage: the game's buttons are gone
            await self.threads.forget_prompt(game_id, where[1])

    @public
    async def post_turn(self, target: discord.abc.Messageable, view: GameView, events: Sequence[Event]) -> None:
        """Post the message calling the next player to act (remembered as the game's prompt), and tell the
        players called by direct message."""
        view = await self.threads.titled(view)
        content, picture, ui, allowed = await self.turn_message(view, events)
        try:
            sent = await self.threads.delivery.send(
                view, target, content=content, uploads=[picture], view=ui, allowed_mentions=allowed
            )
        finally:
            ui.stop()
        self.turn_messages[view.id] = (sent.channel.id, sent.id)
        await self.threads.remember_prompt(view, sent.channel.id, sent.id)
        link = f" {sent.jump_url}"
        for player in callers(view):
            text = _("Your turn in game #{game} ({rule_set}).").format(game=view.id, rule_set=_(view.display_name))
            await self.direct(player, text + link)

    @public
    async def _post_end(self, target: discord.abc.Messageable, view: GameView, events: Sequence[Event]) -> None:
        view = await self.threads.titled(view)
        rendered = await self.service.board(view.id, SYSTEM)
        mat = await self.service.export(view.id, SYSTEM)
        attached = _("The final board and the match file (.mat) are attached.")
        content = clip(f"**{describe(view)}**\n{texts(events)}\n{attached}")
        files = [
            Upload(rendered.png, f"game{view.id}-final.png", rendered.alt_text),
            Upload(mat.encode(), f"game{view.id}.mat"),
        ]
        await self.threads.delivery.send(view, target, content=content, uploads=files, allowed_mentions=NO_PINGS)
        # Post-match analysis for players who asked for it: computed off the event loop, posted when ready.
        task = asyncio.create_task(self._post_analysis(target, view.id))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    @public
    async def _post_analysis(self, target: discord.abc.Messageable, game_id: int) -> None:
        await self.threads.post_match_card(target, game_id)  # the match card first, with the analysis it shows
        try:
            report = await self.service.analysis_report(game_id, SYSTEM)
            if report:
                await target.send(clip(safe(report)))
        except Exception:  # an analysis that fails must not disturb the match that just ended
            log.exception("game %s: post-match analysis failed", game_id)

    @public
    async def turn_message(
        self, view: GameView, events: Sequence[Event], earlier: Sequence[str] = ()
    ) -> tuple[str, Upload, discord.ui.View, discord.AllowedMentions]:
        """The content, board, components and pings of the message calling the next player to act.

        ``earlier``: what the message said had happened before, when it is edited in place (kept, so the thread
        still tells every play). Drafts are not told: the prompt shows the checkers moved so far.
        """
        state = await self.service.state(view.id, SYSTEM)
        view = dataclasses.replace(view, display_name=state.title)  # the title in the server's language
        viewer = view.to_act or (view.acting[0] if view.acting else None)
        rendered = await self.service.board(view.id, SYSTEM, viewer=viewer)
        picture = Upload(rendered.png, f"game{view.id}.png", rendered.alt_text, _board_in_text(view, state, viewer))
        ui, prompt = await self.controls(view, state)
        lines = [f"**{describe(view)}**", *earlier]
        told = texts(e for e in events if e.kind not in (EventKind.TURN, EventKind.DRAFT))
        if told:
            lines.append(told)
        lines.append(prompt)
        watchers = await self.service.watchers(view.id)
        if watchers:  # spectators who asked for turn updates (/bg watch)
            lines.append(_("Watching: {players}").format(players=" ".join(mention(p) for p in watchers)))
        return clip("\n".join(lines)), picture, ui, pings(callers(view), watchers)


def in_quiet_hours(spec: str, now: float) -> bool:
    """Whether ``now`` (a timestamp) falls in quiet hours written ``"22-7"`` (UTC, start inclusive, end exclusive)."""
    start, sep, end = spec.partition("-")
    if not sep or not start.strip().isdigit() or not end.strip().isdigit():
        return False
    a, b = int(start) % 24, int(end) % 24
    hour = datetime.fromtimestamp(now, UTC).hour
    return a <= hour < b if a <= b else (hour >= a or hour < b)


def _board_in_text(view: GameView, state: MatchState, viewer: str | None) -> str:
    """The board drawn in text, from ``viewer``'s side (what a turn message shows where it may not attach its
    picture)."""
    side = view.side_of(viewer) if viewer is not None else None
    side = 0 if side is None else side
    names = (view.name(state.acting_member(side)), view.name(state.acting_member(1 - side)))
    dice = state.dice if state.phase is Phase.MOVE else None
    on_roll = state.roller is None or state.roller == side
    return ascii_board(state.variant, state.position_for(side), dice=dice, names=names, x_on_roll=on_roll)
