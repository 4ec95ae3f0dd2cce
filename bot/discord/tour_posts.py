"""How tournaments show in Discord: their announcements, the threads of their matches, the sign-up message and the
one pinned message with the bracket or standings.

:class:`TourBoard` hears every tournament change the service makes (``GameService.on_tournament``), whoever made
it (a command, a button, a game that ended, the scheduler at a deadline), and shows it:

* what happened, in the tournament's channel: a round and its pairings, results, deadline decisions (naming the
  rule applied), disqualifications, the champion; reminders go to each match's thread, calling both sides;
* each match it opened, in a thread of its own with its first turn (like an accepted challenge);
* each game it ended (a decided match's), as any game's end;
* the sign-up message, edited as entrants join and leave, its buttons gone once the tournament starts;
* one pinned message with the bracket (a knockout) or standings (a league, a Swiss) as pictures and as text,
  edited as results arrive. Pictures are drawn in a worker thread, and a burst of results is drawn once.

What is posted for everyone (announcements, reminders, the sign-up message and its buttons, the pinned message) is
said in the server's language (:func:`engine.i18n.shared`): the events' words are made when read.
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING, Any

import discord

from engine import i18n
from engine.i18n import N_, _, ngettext
from engine.tournament import Status

from ..locks import KeyedLocks
from ..service import SYSTEM, Refused, Request
from ..service.tour_parts import TourEvent, TourEventKind, TourNews, TourView, summary_words
from .channels import find_channel
from .components import TourButton, signup_controls, team_controls
from .delivery import MAX_PINS_REACHED
from .text import MAX_CONTENT, NO_PINGS, clip, mention, pings, safe

if TYPE_CHECKING:
    from .protocols import Bot

__all__ = ["TourBoard", "cut", "signup_text"]

log = logging.getLogger("gammonbot.discord")

#: Events shown elsewhere than in the channel's announcements: the sign-up message lists who joined and left, the
#: command that created a tournament posted it, reminders go to each match's thread.
_NOT_ANNOUNCED = frozenset({"created", "joined", "left", "reminder", "team-invite"})
#: What Discord adds to the service's words (where things are; translated where posted).
_AFTER = {
    "round": N_("Each match has a thread of its own, where its players are called."),
    "finished": N_("The final bracket or standings are pinned in this channel."),
}
#: How each addition is joined to the words before it.
_AFTER_JOIN = {"round": "\n", "finished": " "}


def _after(kind: str) -> str:
    """What Discord adds to an event's words, in the active language (nothing for most)."""
    return _AFTER_JOIN[kind] + _(_AFTER[kind]) if kind in _AFTER else ""


#: Events that call the players they concern.
_CALLING = frozenset(
    {"deadline", "needs-admin", "disqualified", "replaced", "extended", "decided", "walkover", "team-declined"}
)


def signup_text(view: TourView) -> str:
    """The sign-up message: the tournament, its terms and its entrants, and how to join (in the active language:
    post it under :func:`engine.i18n.shared`)."""
    t = view.tournament
    head = summary_words(view)
    if view.status != Status.SIGNUP:
        n = len(t.entrants)
        closed = ngettext("Sign-ups are closed: {count} entrant.", "Sign-ups are closed: {count} entrants.", n)
        return clip(f"{safe(head)}\n{closed.format(count=n)}")
    join, leave = (_(TourButton.LABELS[action][0]) for action in ("join", "leave"))  # the buttons' labels
    # Translators: {join} and {leave} are the labels of the buttons under this message.
    how = _("Press **{join}** to sign up (**{leave}** takes your name off).").format(join=join, leave=leave)
    if t.spec.team_size > 1:
        # Translators: {leave} is the label of a button under this message.
        how = _("Sign your team up with `/bg-tour join` and your teammate (**{leave}** takes your team off).").format(
            leave=leave
        )
    start = _("An admin starts it with `/bg-admin tour start`.")
    return clip(f"{safe(head)}\n{how} {start}")


class TourBoard:
    """Shows every tournament change in Discord (see the module's docstring)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self._locks: KeyedLocks[int] = KeyedLocks(1024)
        self._dirty: set[int] = set()
        self._drawing: dict[int, asyncio.Task[None]] = {}

    @property
    def service(self) -> Any:
        return self.bot.service

    async def on_news(self, news: TourNews) -> None:
        """A tournament changed: show it (best effort: what cannot be shown is logged; the change stands), in the
        server's language."""
        with i18n.shared():
            await self._show(news)

    async def _show(self, news: TourNews) -> None:
        view = news.view
        channel = await self._postable(view.channel_id)
        announced = [e for e in news.events if e.kind not in _NOT_ANNOUNCED]
        if announced and channel is not None:
            called = [p for e in announced if e.kind in _CALLING for p in e.pings]
            lines = [_calls(e) + safe(e.text) + _after(e.kind) for e in announced]
            await self._send(channel, "\n".join(lines), called)
        for e in news.events:
            if e.kind == TourEventKind.REMINDER:
                await self._remind(e, channel)
            elif e.kind == TourEventKind.TEAM_INVITE and channel is not None and e.by is not None:
                await self._invite(view, e, channel)
        for out in news.ended:
            try:
                await self.bot.table.notify(out)
            except (discord.HTTPException, Refused) as exc:
                log.warning("game %s: its end could not be shown (%s)", out.game.id, exc)
        for game_id in news.started:
            await self._open(game_id, channel)
        if news.entrants_changed or any(e.kind == TourEventKind.STARTED for e in news.events):
            await self._edit_signup(view, channel)
        if news.table_changed:
            self.redraw(view)

    # --- posting --------------------------------------------------------------------------------------------------
    async def _postable(self, raw: str | None) -> Any:
        channel = await find_channel(self.bot, raw)
        return channel if isinstance(channel, discord.abc.Messageable) else None

    async def _send(self, target: Any, text: str, called: list[str]) -> discord.Message | None:
        """Post an announcement (several messages when it is longer than one holds: a big round's pairings);
        the first message posted, or None if none could be."""
        first: discord.Message | None = None
        for chunk in _chunks(text):
            try:
                sent = await target.send(chunk, allowed_mentions=pings(called) if called else NO_PINGS)
            except discord.HTTPException as exc:
                log.warning("could not post a tournament announcement (%s)", exc)
                return first
            first = first or sent
        return first

    async def _remind(self, event: TourEvent, channel: Any) -> None:
        """A reminder: in the match's thread (else the channel), calling both sides; by direct message to those who
        asked for them."""
        target = channel
        if event.game_id is not None:
            try:
                view = await self.service.view(event.game_id, _system_request(self.bot, None))
                target = await self.bot.threads.channel_of(view)
            except Refused:
                pass
        if target is None:
            return
        sent = await self._send(target, _calls(event) + safe(event.text), list(event.pings))
        link = f" {sent.jump_url}" if sent is not None else ""
        for player in event.pings:
            await self.bot.table.direct(player, f"{safe(event.text)}{link}")

    async def _invite(self, view: TourView, event: TourEvent, channel: Any) -> None:
        """A team's invitation: in the tournament's channel, calling the teammate, with Accept and Decline."""
        assert event.by is not None
        ui = team_controls(view.id, event.by)
        try:
            await channel.send(_calls(event) + safe(event.text), view=ui, allowed_mentions=pings(event.pings))
        except discord.HTTPException as exc:
            log.warning("tournament #%s: a team invitation could not be posted (%s)", view.id, exc)
        finally:
            ui.stop()

    async def _open(self, game_id: int, channel: Any) -> None:
        """A match the tournament opened: its thread (in the tournament's channel), then its first turn."""
        try:
            view = await self.service.view(game_id, _system_request(self.bot, None))
            thread = await self.bot.threads.open_match_thread(
                view, None, channel if isinstance(channel, discord.TextChannel) else None
            )
            await self.bot.table.begin(game_id, thread)
        except (discord.HTTPException, Refused) as exc:
            log.warning("game %s: its thread or first turn could not be posted (%s)", game_id, exc)

    async def _edit_signup(self, view: TourView, channel: Any) -> None:
        if channel is None or view.signup_message_id is None:
            return
        ui = signup_controls(view.id) if view.status == Status.SIGNUP else None
        try:
            await channel.get_partial_message(int(view.signup_message_id)).edit(
                content=signup_text(view), view=ui, allowed_mentions=NO_PINGS
            )
        except discord.HTTPException as exc:
            log.info("tournament #%s: its sign-up message could not be edited (%s)", view.id, exc)
        finally:
            if ui is not None:
                ui.stop()

    # --- the pinned message ---------------------------------------------------------------------------------------
    def redraw(self, view: TourView) -> None:
        """Bring the pinned bracket or standings up to date, in the background: a burst of changes is drawn once
        (each drawing shows the tournament as it then stands)."""
        self._dirty.add(view.id)
        if view.id in self._drawing:
            return
        task = asyncio.create_task(self._draw(view.id, view.guild_id))
        self._drawing[view.id] = task

    async def drawn(self) -> None:
        """Wait until the redraws under way are done (their pictures drawn and posted)."""
        while self._drawing:
            await asyncio.gather(*list(self._drawing.values()), return_exceptions=True)

    async def _draw(self, tid: int, guild_id: str) -> None:
        try:
            while tid in self._dirty:
                self._dirty.discard(tid)
                await self.pin(tid, guild_id)
        except Exception:
            log.exception("tournament #%s: its pinned message could not be brought up to date", tid)
        finally:
            self._drawing.pop(tid, None)

    async def pin(self, tid: int, guild_id: str) -> discord.Message | None:
        """Post (and pin) or edit the tournament's one message with its pictures and their text, in the server's
        language."""
        with i18n.shared():
            return await self._pin(tid, guild_id)

    async def _pin(self, tid: int, guild_id: str) -> discord.Message | None:
        async with self._locks(tid):
            who = _system_request(self.bot, guild_id)
            view = await self.service.tour_view(who, tid)
            if view.status == Status.SIGNUP:
                return None
            channel = await self._postable(view.channel_id)
            if channel is None:
                return None
            pages, text = await self.service.tour_pictures(view)
            content = clip(f"**{safe(view.name)}**\n```\n{cut(safe(text))}\n```")
            files = [
                discord.File(io.BytesIO(p.png), filename=f"tournament{tid}-{k + 1}.png", description=p.alt_text[:1024])
                for k, p in enumerate(pages)
            ]
            if view.pinned_message_id is not None:
                try:
                    message = channel.get_partial_message(int(view.pinned_message_id))
                    edited: discord.Message = await message.edit(
                        content=content, attachments=files, allowed_mentions=NO_PINGS
                    )
                    return edited
                except discord.NotFound:
                    pass  # deleted: post it again
            sent: discord.Message = await channel.send(content=content, files=files, allowed_mentions=NO_PINGS)
            await self.service.tour_set_messages(who, tid, pinned_message_id=str(sent.id))
            await self._pin_message(sent, view, who)
            return sent

    async def _pin_message(self, sent: discord.Message, view: TourView, who: Request) -> None:
        """Pin the standings message. A channel holds at most 50 pinned messages: at the limit, the standings of
        the server's oldest finished tournament in this channel are unpinned to make room (they stay in the channel),
        else the admins are told. Without the permission to pin, the message is edited all the same; the admins are
        told what is missing."""
        reason = _("the bracket or standings of {tournament}").format(tournament=view.name)
        for _attempt in range(2):
            try:
                await sent.pin(reason=reason)
                return
            except discord.Forbidden:
                await self.bot.threads.notices.missing(
                    sent.channel,
                    ["pin_messages"],
                    N_("pin each tournament's bracket or standings"),
                    N_("Meanwhile they are posted without a pin, and kept up to date."),
                )
                return
            except discord.HTTPException as exc:
                if exc.code != MAX_PINS_REACHED or not await self._make_room(sent.channel, view, who):
                    log.warning("server %s: tournament #%s's standings not pinned (%s)", view.guild_id, view.id, exc)
                    if exc.code == MAX_PINS_REACHED:
                        await self._full(sent.channel)
                    return

    async def _make_room(self, channel: Any, view: TourView, who: Request) -> bool:
        """Unpin the standings of this server's oldest finished tournament pinned in ``channel``; True if one was."""
        for tid, _name, status in sorted(await self.service.tour_list(who)):
            if status != "finished" or tid == view.id:
                continue
            old = await self.service.tour_view(who, tid)
            if old.channel_id != str(channel.id) or old.pinned_message_id is None:
                continue
            try:
                await channel.get_partial_message(int(old.pinned_message_id)).unpin(
                    reason=_("room for the standings of {tournament}").format(tournament=view.name)
                )
            except discord.HTTPException as exc:
                log.info("tournament #%s: its standings could not be unpinned (%s)", tid, exc)
                continue
            await self.service.tour_set_messages(who, tid, pinned_message_id=None)
            return True
        return False

    async def _full(self, channel: Any) -> None:
        """The channel has 50 pinned messages, none of them a finished tournament's: tell the admins (once in a
        while), and the operator."""
        notices = self.bot.threads.notices
        await notices.tell(
            channel,
            "pins",
            _(
                "{channel} has 50 pinned messages, the most Discord allows, so this tournament's standings are not "
                "pinned (they are kept up to date all the same). Unpin a few old messages and they will be pinned "
                "with the next result."
            ).format(channel=channel.mention),
        )

    async def idle(self) -> None:
        """Wait until every drawing under way is done (tests, shutting down)."""
        while self._drawing:
            await asyncio.gather(*list(self._drawing.values()), return_exceptions=True)


def _calls(event: TourEvent) -> str:
    """The mentions that call the players an event concerns (a reminder, a deadline decision), or nothing."""
    if event.kind not in _CALLING and event.kind not in (TourEventKind.REMINDER, TourEventKind.TEAM_INVITE):
        return ""
    return "".join(f"{mention(p)} " for p in event.pings)


def _chunks(text: str, limit: int = MAX_CONTENT) -> list[str]:
    """Text cut into messages at line ends (a line longer than a message is clipped)."""
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        line = clip(line, limit)
        if current and len(current) + 1 + len(line) > limit:
            out.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    return [*out, current] if current else out


def cut(text: str, limit: int = 1850) -> str:
    """A table's text cut at a line end to fit beside its heading in one message (the picture has it all)."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit("\n", 1)[0] + "\n…"


def _system_request(bot: Bot, guild_id: str | None) -> Any:
    """The bot's own request in a server (or, for a game, the service's system scope)."""
    if guild_id is None:
        return SYSTEM
    user = bot.user
    return Request(str(user.id) if user else "gammonbot", "gammonbot", guild_id, "discord")
