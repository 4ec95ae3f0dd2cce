"""Match threads and team rooms: the one place the bot opens, names, finds and posts in its threads.

Each match is played in a public thread started from its challenge (``#7 Backgammon: alice vs bob``); where Discord
refuses, the match is played in the challenge's channel. In Backgammon Doubles each team also gets a private thread,
its room (``#7 team alice & carol``), where teammates consult: proposals, plays held for approval, approvals and
the question of who acts in a game are posted there and nowhere public. Team rooms are opened when the match starts,
or the first time one is needed; either way the room's id is stored with the game
(:meth:`GameService.set_team_thread`), so after a restart, or in another process, it is found again by id (rooms of
games from before that are found by their name, and then stored). Where the bot may not open private threads, both
members get a direct message instead, unless the server's ``team_thread_fallback`` refuses that.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal

import discord

from engine import i18n
from engine.i18n import N_, _

from ..locks import KeyedLocks
from ..service import SYSTEM, Event, EventKind, GameService, GameView, Outcome, Refused
from .channels import find_channel
from .controls import acting_question
from .delivery import Delivery, Notices, Upload, missing_permissions
from .language import public
from .text import callers, clip, mention, pings, safe, sides_text, team_name, texts

__all__ = [
    "Threads",
    "TEAM_KINDS",
    "team_side",
    "is_team_game",
    "match_thread_name",
    "team_thread_name",
    "MAX_LOCKS",
]

log = logging.getLogger("gammonbot.discord")

#: Events that are a team's private business (Backgammon Doubles consultation), besides any naming a team.
TEAM_KINDS = frozenset({"proposal", "held", "adopted", "approved", "rejected"})
#: How many games' locks (and remembered rooms) are kept at most.
MAX_LOCKS = 10000
#: A week: how long Discord keeps a quiet thread open (a thread archived since is reopened by the next message).
ARCHIVE_MINUTES: Final[Literal[10080]] = 10080
#: Tries to open a match thread when Discord answers "too many requests" (a tournament round opening many at once),
#: waiting 1, 2, 4… seconds between them.
THREAD_ATTEMPTS = 5


def match_thread_name(view: GameView) -> str:
    """``#7 Backgammon: alice vs bob`` (names unable to mention anyone, as everywhere; the number first, always: a
    command used in the thread finds its game by it)."""
    return f"#{view.id} {_(view.display_name)}: {sides_text(view)}"[:100]


def team_thread_name(view: GameView, side: int) -> str:
    """``#7 team alice & carol``: the name of a team's private thread (the number first, as in match threads)."""
    return f"#{view.id} " + _("team {players}").format(players=team_name(view, side))[:95]


def _old_team_thread_name(view: GameView, side: int) -> str:
    suffix = f" — game {view.id}"
    return f"Team {' & '.join(view.name(p) for p in view.sides[side])}"[: 100 - len(suffix)] + suffix


def team_side(event: Event, view: GameView) -> int | None:
    """The team whose private business an event is (None: an event anyone may see)."""
    if "team" in event.data:
        return int(event.data["team"])
    if event.kind in TEAM_KINDS and event.by is not None:
        return view.side_of(event.by)
    return None


def is_team_game(view: GameView) -> bool:
    return any(len(side) > 1 for side in view.sides)


class Threads:
    """Opens, finds and posts in match threads and team rooms."""

    def __init__(self, bot: discord.Client, service: GameService) -> None:
        self.bot = bot
        self.service = service
        #: What Discord refuses: the admins told (:class:`~.delivery.Notices`), games' messages posted elsewhere.
        self.notices = Notices(bot)
        self.delivery = Delivery(bot, service, self.notices, functools.partial(find_channel, bot), match_thread_name)
        #: How a retry waits (a test passes a clock of its own).
        self.sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
        #: The private thread of each team, by (game id, side): a cache of what is stored with the game.
        self.team_threads: dict[tuple[int, int], int] = {}
        self._lock: KeyedLocks[tuple[int, int]] = KeyedLocks(MAX_LOCKS)  # one per (game, side)

    # --- finding channels -----------------------------------------------------------------------------
    async def channel_of(self, view: GameView) -> discord.abc.Messageable:
        """The game's thread (or, without one, the channel the challenge was made in). A thread that was deleted is
        replaced (:meth:`.delivery.Delivery.elsewhere`): the match goes on in a new thread, or in the channel."""
        if view.thread_id:
            thread = self.bot.get_channel(int(view.thread_id))
            if thread is None:
                try:
                    thread = await self.bot.fetch_channel(int(view.thread_id))
                except discord.NotFound as exc:
                    replaced: discord.abc.Messageable = await self.delivery.elsewhere(view, None, exc)
                    return replaced
                except discord.HTTPException:
                    thread = None
            if isinstance(thread, discord.abc.Messageable):
                return thread
        channel = await find_channel(self.bot, view.channel_id)
        if isinstance(channel, discord.abc.Messageable):
            return channel
        raise Refused(_("game #{game} has no channel I can reach any more").format(game=view.id))

    async def parent(self, view: GameView) -> discord.TextChannel | None:
        """The text channel of the match thread (or the challenge's channel when the match has no thread)."""
        for raw in (view.thread_id, view.channel_id):
            channel = await find_channel(self.bot, raw)
            if isinstance(channel, discord.Thread):
                channel = channel.parent
            if isinstance(channel, discord.TextChannel):
                return channel
        return None

    async def titled(self, view: GameView) -> GameView:
        """The view with its title (the rule set, or which game of a Tavli match) in the active language.

        The service words a view in the language active when it was made: a view made while answering a player (an
        outcome's) carries their language, so what is posted for everyone takes its title afresh, in the server's
        language (called inside ``i18n.shared()``). A challenge's view names its rule set in English, which
        :func:`.text.describe` translates where shown."""
        if view.phase is None:
            return view
        try:
            state = await self.service.state(view.id, SYSTEM)
        except Refused:
            return view
        return dataclasses.replace(view, display_name=state.title)

    def game_of_team_thread(self, thread_id: int) -> int | None:
        """The game of a team room this process remembers (None if it remembers none by that id)."""
        for (game_id, _side), known in self.team_threads.items():
            if known == thread_id:
                return game_id
        return None

    async def tell(self, view: GameView, text: str) -> None:
        """Post a line (pinging nobody) in a match's thread; a thread that is gone or closed is skipped (logged)."""
        await self.tell_in(view.id, view.thread_id, text)

    async def tell_in(self, game_id: int, thread_id: str | None, text: str) -> None:
        """:meth:`tell`, knowing only the game's number and thread (no need to load the game). The caller builds
        ``text`` in the server's language (``with i18n.shared():``)."""
        try:
            channel = await find_channel(self.bot, thread_id)
            if isinstance(channel, discord.abc.Messageable):
                await channel.send(clip(text))
        except discord.HTTPException:
            log.warning("could not post in the thread of game #%s", game_id, exc_info=True)

    # --- prompts: the message with a game's live buttons ------------------------------------------------
    async def remember_prompt(self, view: GameView, channel_id: int, message_id: int) -> None:
        """Store which message now carries the game's buttons (posted or edited for ``view``), so that a restarted
        bot finds it (:mod:`.reconcile`). Best effort: the game has been shown either way, so a failure is logged."""
        try:
            await self.service.store.set_prompt(view.id, str(channel_id), str(message_id), view.version, callers(view))
        except Exception as exc:
            log.warning("game %s: could not store its prompt %s (%s)", view.id, message_id, exc)

    async def stored_prompt(self, game_id: int) -> tuple[int, int] | None:
        """(channel id, message id) of the game's stored prompt (the table's memory of it was lost in a restart)."""
        try:
            found = await self.service.store.prompt_of(game_id)
        except Exception as exc:
            log.warning("game %s: could not read its prompt (%s)", game_id, exc)
            return None
        return None if found is None else (int(found.channel_id), int(found.message_id))

    async def forget_prompt(self, game_id: int, message_id: int) -> None:
        """The buttons of ``message_id`` were taken off: forget it as the game's prompt (if it still is)."""
        try:
            await self.service.store.drop_prompt(game_id, str(message_id))
        except Exception as exc:
            log.warning("game %s: could not forget its prompt %s (%s)", game_id, message_id, exc)

    # --- the end of a game ------------------------------------------------------------------------------
    @public
    async def post_game_ends(self, target: discord.abc.Messageable, out: Outcome) -> bool:
        """Post the final position of each game ``out`` ended while its match goes on, the result drawn on it (the
        end of a match is posted with its match file instead); True if one was posted. Best effort: a board that
        cannot be posted is logged, and the match goes on."""
        posted = False
        for event in out.events:
            if event.kind != EventKind.GAME_OVER or event.data.get("match_over") or "ended" not in event.data:
                continue
            view = out.game
            try:
                rendered = await self.service.board(view.id, SYSTEM, game_end=event)
                picture = Upload(
                    rendered.png, f"game{view.id}-{event.data.get('game', view.game - 1)}-final.png", rendered.alt_text
                )
                head = _("**#{game} game over.**").format(game=view.id)
                await self.delivery.send(view, target, content=clip(f"{head} {safe(event.text)}"), uploads=[picture])
                posted = True
            except (discord.HTTPException, Refused) as exc:
                log.warning("game %s: could not post the end of a game (%s)", view.id, exc)
        return posted

    # --- the end of a match: its card -------------------------------------------------------------------
    @public
    async def post_match_card(self, target: discord.abc.Messageable, game_id: int) -> None:
        """Post the match card (the score game by game, the dice, the cube and, for players who asked for analyses,
        the error rates and equity graph) in a finished match's thread. Best effort: a failure is logged."""
        try:
            card = await self.service.match_card(game_id, SYSTEM)
            picture = Upload(card.png, f"game{game_id}-card.png", card.alt_text)
            view = await self.service.view(game_id, SYSTEM)
            title = _("**#{game} match card**").format(game=game_id)
            await self.delivery.send(view, target, content=title, uploads=[picture])
        except (discord.HTTPException, Refused) as exc:
            log.warning("game %s: could not post its match card (%s)", game_id, exc)
        except Exception:  # a card that fails must not disturb the match that just ended
            log.exception("game %s: its match card failed", game_id)

    # --- match threads ----------------------------------------------------------------------------------
    @public
    async def open_match_thread(
        self, view: GameView, message: discord.Message | None, channel: Any
    ) -> discord.Thread | None:
        """The match's public thread, started from the challenge ``message`` (or in ``channel``), stored with the
        game; None if Discord refuses (the match is then played in the channel)."""
        if isinstance(channel, discord.Thread):
            return channel
        name = match_thread_name(await self.titled(view))
        thread: discord.Thread | None = None
        for attempt in range(THREAD_ATTEMPTS):
            try:
                if message is not None:
                    thread = await message.create_thread(name=name, auto_archive_duration=ARCHIVE_MINUTES)
                elif isinstance(channel, discord.TextChannel):
                    thread = await channel.create_thread(
                        name=name, type=discord.ChannelType.public_thread, auto_archive_duration=ARCHIVE_MINUTES
                    )
                break
            except discord.HTTPException as exc:
                if exc.status == 429 and attempt + 1 < THREAD_ATTEMPTS:  # a burst (a tournament round): wait, again
                    await self.sleep(2**attempt)
                    continue
                log.warning("server %s: game %s got no thread (%s): played in the channel", view.guild_id, view.id, exc)
                if isinstance(exc, discord.Forbidden):
                    where = message.channel if message is not None else channel
                    missing = missing_permissions(where, ("create_public_threads", "send_messages_in_threads"))
                    await self.notices.missing(
                        where,
                        missing or ["create_public_threads"],
                        N_("play each match in a thread"),
                        N_("Meanwhile matches are played in the channel."),
                    )
                break
        if thread is not None:
            await self.service.set_thread(view.id, str(thread.id))
        return thread

    # --- team rooms -----------------------------------------------------------------------------------------
    async def open_team_rooms(self, view: GameView) -> None:
        """A team match starts: open each team's private room now (best effort; otherwise when first needed)."""
        if not is_team_game(view):
            return
        for side, members in enumerate(view.sides):
            if any(p.isdigit() for p in members):  # a team of bot players needs no room
                await self.team_thread(view, side)

    async def team_thread(self, view: GameView, side: int, *, create: bool = True) -> tuple[discord.Thread | None, str]:
        """The team's private thread: remembered, stored with the game, found by name, or opened now.

        None (and why, for the players) when there is no channel to open it in or Discord refuses; with
        ``create=False``, also when the team has no room yet. One lookup per team at a time, so that two requests at
        once do not open two rooms.
        """
        async with self._lock((view.id, side)):
            return await self._find_or_open(view, side, create)

    async def _find_or_open(self, view: GameView, side: int, create: bool) -> tuple[discord.Thread | None, str]:
        key = (view.id, side)
        stored_threads = await self.service.team_threads(view.id)
        stored = stored_threads.get(side)
        theirs = stored_threads.get(1 - side)
        remembered = self.team_threads.get(key)
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
        parent = await self.parent(view)
        if parent is None:
            return None, _("This game has no server channel where I could open a private team thread")
        me = self.bot.user.id if self.bot.user is not None else None
        with i18n.shared():  # named in the server's language
            names = {team_thread_name(view, side), _old_team_thread_name(view, side)}
        for thread in parent.threads:
            if str(thread.id) == theirs:
                continue  # the other team's room, whatever its name (two teams may bear the same names)
            if thread.type is discord.ChannelType.private_thread and thread.owner_id == me and thread.name in names:
                await self._store(view, side, thread)
                return thread, ""
        if not create:
            return None, _("Your team has no private thread yet")
        return await self._open(parent, view, side)

    async def _open(self, parent: discord.TextChannel, view: GameView, side: int) -> tuple[discord.Thread | None, str]:
        members = [p for p in view.sides[side] if p.isdigit()]
        with i18n.shared():  # what both members (and the server) read
            name = team_thread_name(view, side)
            match = (
                " " + _("The game itself is in {thread}.").format(thread=f"<#{view.thread_id}>")
                if view.thread_id
                else ""
            )
            welcome = _(
                "{members}: your team's private thread for game #{game}. Talk over your plays and cube decisions here, "
                "where the opponents cannot see them (`/bg-team` has the commands for it).{match} Only your acting "
                "member rolls, moves and handles the cube."
            ).format(members=" ".join(mention(p) for p in members), game=view.id, match=match)
        try:
            thread = await parent.create_thread(
                name=name,
                type=discord.ChannelType.private_thread,
                invitable=False,
                auto_archive_duration=ARCHIVE_MINUTES,
            )
        except discord.Forbidden:
            await self.notices.missing(
                parent,
                ["create_private_threads"],
                N_("give each Backgammon Doubles team a private thread"),
                N_("Meanwhile teams talk by direct message, where the server allows it."),
            )
            return None, _(
                "I may not create private threads in {channel} (the bot needs the Create Private Threads permission "
                "there)"
            ).format(channel=parent.mention)
        except discord.HTTPException as exc:
            log.warning("game %s: could not open a team thread (%s)", view.id, exc)
            return None, _("Discord did not let me open your team's private thread")
        try:
            for pid in members:
                await thread.add_user(discord.Object(int(pid)))
            await thread.send(welcome, allowed_mentions=pings(members))
        except discord.HTTPException as exc:
            log.warning("game %s: could not set up team thread %s (%s)", view.id, thread.id, exc)
            with contextlib.suppress(discord.HTTPException):
                await thread.delete()
            return None, _("I could not add you both to a private team thread")
        await self._store(view, side, thread)
        return thread, ""

    async def _store(self, view: GameView, side: int, thread: discord.Thread) -> None:
        """Remember a team room with the game (and here). Not a game change: live buttons stay current."""
        self.team_threads[(view.id, side)] = thread.id
        try:
            await self.service.set_team_thread(view.id, side, str(thread.id))
        except Refused as exc:  # still remembered here, and found by name elsewhere
            log.info("game %s: team thread %s not stored (%s)", view.id, thread.id, exc)

    # --- posting to a team --------------------------------------------------------------------------------
    async def team_post(
        self,
        view: GameView,
        side: int,
        text: str,
        *,
        ping: tuple[str, ...] = (),
        components: Callable[[], tuple[str, discord.ui.View]] | None = None,
    ) -> str:
        """Post ``text`` where only team ``side`` sees it (its room, or else direct messages); returns a sentence
        for the players saying where. ``ping``: who the text mentions (pinged). ``components``: instead of ``text``, a
        message with components (made afresh for each message sent)."""

        async def send(target: discord.abc.Messageable, prefix: str = "") -> None:
            if components is None:
                await target.send(clip(prefix + text), allowed_mentions=pings(ping))
                return
            with i18n.shared():
                content, ui = components()
            try:
                await target.send(clip(prefix + content), view=ui, allowed_mentions=pings(ping))
            finally:
                ui.stop()

        thread, why = await self.team_thread(view, side)
        if thread is not None:
            try:
                await send(thread)
                return _("It is in your team's private thread {thread}.").format(thread=thread.mention)
            except discord.HTTPException as exc:
                log.warning("game %s: could not post in team thread %s (%s)", view.id, thread.id, exc)
                self.team_threads.pop((view.id, side), None)
                why = _("I could not post in your team's private thread")
        if (await self.service.server_settings(view.guild_id))["team_thread_fallback"] == "refuse":
            raise Refused(
                _(
                    "{reason}, and this server keeps team talk out of direct messages: an admin can give the bot the "
                    "Create Private Threads permission (or set the team thread fallback to direct messages)."
                ).format(reason=why)
            )
        missed = []
        for pid in view.sides[side]:
            if not pid.isdigit():
                continue  # a bot player
            try:
                user = self.bot.get_user(int(pid)) or await self.bot.fetch_user(int(pid))
                with i18n.shared():
                    prefix = _("Game #{game}, your team:").format(game=view.id) + " "
                await send(user, prefix)
            except discord.HTTPException as exc:
                log.info("game %s: could not DM team member %s (%s)", view.id, pid, exc)
                missed.append(view.name(pid))
        sent = _("{reason}, so I sent it to you both by direct message.").format(reason=why)
        if missed:
            sent += " " + _("{players} could not be reached (direct messages closed?).").format(
                players=", ".join(safe(n) for n in missed)
            )
        return sent

    async def tell_teams(self, out: Outcome) -> str:
        """Post each team event of an outcome where only that team sees it; returns a sentence saying where."""
        view = out.game
        by_side: dict[int, list[Event]] = {}
        for event in out.events:
            side = team_side(event, view)
            if side is not None and 0 <= side < len(view.sides):
                by_side.setdefault(side, []).append(event)
        told: list[str] = []
        for side, events in by_side.items():
            with i18n.shared():  # posted where both members read it
                text, ping = _team_text(view, side, events)
            told.append(await self.team_post(view, side, text, ping=ping))
        return " ".join(told)

    def split_private(self, out: Outcome) -> tuple[Outcome, tuple[Event, ...]]:
        """An outcome without its team events, and those team events."""
        private = tuple(e for e in out.events if "team" in e.data or e.kind in TEAM_KINDS)
        public = tuple(e for e in out.events if e not in private)
        return Outcome(public, out.game, out.applied), private

    async def private_first(self, call: Awaitable[Outcome]) -> Outcome:
        """Run a consultation request; post its team events privately and hand on only the public ones."""
        out = await call
        await self.tell_teams(out)
        return self.split_private(out)[0]

    @public
    async def ping_team(self, view: GameView) -> None:
        """A new turn in a team match: the acting member's room hears it, mentioning the teammate."""
        actor = view.to_act
        if actor is None:
            return
        side = view.side_of(actor)
        if side is None or len(view.sides[side]) < 2:
            return
        mates = [p for p in view.sides[side] if p != actor]
        thread, _why = await self.team_thread(view, side, create=False)
        if thread is None:
            return  # no room: the acting member is already pinged in the match thread
        text = _(
            "{player}: your team's turn in game #{game}. {mates}: talk it over here before the acting member plays."
        ).format(player=mention(actor), game=view.id, mates=" ".join(mention(p) for p in mates))
        await thread.send(clip(text), allowed_mentions=pings([actor], mates))

    @public
    async def ask_acting(self, view: GameView, choosing: tuple[bool, bool]) -> None:
        """Team choice: ask each team (of people) that may still choose, in its room, who acts for it in this game."""
        for side, members in enumerate(view.sides):
            if len(members) < 2 or not choosing[side] or not all(p.isdigit() for p in members):
                continue  # a team of bot players chooses nothing
            try:
                await self.team_post(
                    view, side, "", ping=members, components=functools.partial(acting_question, view, side)
                )
            except (Refused, discord.HTTPException) as exc:  # no room, and the server refuses direct messages
                log.info("game %s: could not ask team %s who acts (%s)", view.id, side, exc)


def _team_text(view: GameView, side: int, events: list[Event]) -> tuple[str, tuple[str, ...]]:
    """A team's private events as one message, and who it mentions."""
    acting = view.acting[side] if view.acting is not None else None
    lines = texts(events).split("\n")
    ping: list[str] = []
    proposals = [e.data["proposal"] for e in events if e.kind == EventKind.PROPOSAL and "proposal" in e.data]
    if proposals and acting is not None:
        lines[0] = f"{mention(acting)} {lines[0]}"
        ping.append(acting)
        lines.append(
            _("Play it with `/bg-team adopt proposal:{number}`; `/bg-team proposals` lists them all.").format(
                number=proposals[-1]
            )
        )
    if any(e.kind == EventKind.HELD for e in events):
        mates = [p for p in view.sides[side] if p != acting]
        if mates:
            lines[0] = f"{mention(mates[0])} {lines[0]}"
            ping.append(mates[0])
        lines.append(_("Agree with `/bg-team approve`, or send it back with `/bg-team approve agree:False`."))
    return clip("\n".join(lines)), tuple(ping)
