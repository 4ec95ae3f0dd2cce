"""Where Discord says no: the game goes on another way, and someone is told.

Discord refuses a bot things for reasons that are not the players': a permission the server did not give (Create
Public Threads, Send Messages in Threads, Attach Files, Pin Messages…), a thread a moderator locked or deleted while
a game waited in it, a channel at its 50 pinned messages, an interaction whose 15-minute token ran out before a long
answer was ready. Here is what the bot does instead, in one place:

* :meth:`Delivery.send` posts a game's message where its players will see it: in the game's thread; if the thread
  is gone, or locked, in a new thread of the channel (stored with the game: the match goes on there, and says so);
  if the bot may not create or post in threads there, in the channel itself; without its picture if the bot may not
  attach files (the picture's text stands in for it). Each fallback is taken once, and the message is posted once.
* :class:`Notices` tells a server's admins what is missing and how to grant it: a short message, in the server's
  language, in the channel where it happened (or the server's system channel), at most once in
  :data:`NOTICE_EVERY` per server, channel and permission; and the operator a warning naming the server.
* :func:`late_reply` delivers the answer to a command that outlived its interaction: in the channel the command was
  used in, mentioning the asker (an answer only the asker may read goes to them by direct message instead).

Discord's codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json): 10003 Unknown Channel,
50001 Missing Access, 50013 Missing Permissions, 50083 Thread is archived (a locked thread), 30003 Maximum number of
pins reached, 50027 Invalid Webhook Token (an interaction older than 15 minutes).
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import discord

from engine import i18n
from engine.i18n import N_, _

from ..service import SYSTEM, GameView, Refused
from .language import server_language
from .limits import MAX_ALT_TEXT, MAX_CONTENT
from .text import NO_PINGS, clip, mention

if TYPE_CHECKING:
    from ..service import GameService

__all__ = [
    "Upload",
    "Delivery",
    "Notices",
    "PERMISSION_NAMES",
    "NOTICE_EVERY",
    "UNKNOWN_CHANNEL",
    "MISSING_ACCESS",
    "MISSING_PERMISSIONS",
    "THREAD_ARCHIVED",
    "MAX_PINS_REACHED",
    "INVALID_TOKEN",
    "late_reply",
    "token_refused",
    "missing_permissions",
]

log = logging.getLogger("gammonbot.discord")

UNKNOWN_CHANNEL: Final = 10003
MISSING_ACCESS: Final = 50001
MISSING_PERMISSIONS: Final = 50013
THREAD_ARCHIVED: Final = 50083
MAX_PINS_REACHED: Final = 30003
INVALID_TOKEN: Final = 50027
#: How often, at most, the admins of a server hear of the same missing permission in the same channel (seconds).
NOTICE_EVERY = 6 * 3600.0

#: Discord's permissions as its settings name them (the attribute of ``discord.Permissions`` -> the words).
PERMISSION_NAMES: Final[dict[str, str]] = {
    "view_channel": N_("View Channels"),
    "send_messages": N_("Send Messages"),
    "send_messages_in_threads": N_("Send Messages in Threads"),
    "create_public_threads": N_("Create Public Threads"),
    "create_private_threads": N_("Create Private Threads"),
    "attach_files": N_("Attach Files"),
    "read_message_history": N_("Read Message History"),
    "pin_messages": N_("Pin Messages"),
    "manage_threads": N_("Manage Threads"),
}


@dataclass(frozen=True)
class Upload:
    """A file to attach, kept as bytes so that a message Discord refused can be sent again (a ``discord.File`` is
    closed once sent); ``text`` stands in for it where files may not be attached (a board drawn in text), else its
    ``description`` (its alt text)."""

    data: bytes
    filename: str
    description: str = ""
    text: str = ""

    def file(self) -> discord.File:
        return discord.File(io.BytesIO(self.data), filename=self.filename, description=self.description[:MAX_ALT_TEXT])


def missing_permissions(channel: Any, needed: Sequence[str]) -> list[str]:
    """Which of ``needed`` the bot lacks in ``channel`` (as far as its cache knows; empty when it cannot tell)."""
    guild = getattr(channel, "guild", None)
    me = getattr(guild, "me", None)
    if guild is None or me is None:
        return []
    try:
        perms = channel.permissions_for(me)
    except (AttributeError, discord.ClientException):
        return []
    return [name for name in needed if not getattr(perms, name, True)]


def _where(channel: Any) -> str:
    return getattr(channel, "mention", None) or f"#{getattr(channel, 'name', '?')}"


class Notices:
    """Tells a server's admins, now and then, what Discord refused the bot there and how to fix it."""

    def __init__(self, bot: discord.Client, clock: Any = time.monotonic) -> None:
        self.bot = bot
        self.clock = clock
        self._told: dict[tuple[int, int, str], float] = {}

    async def missing(self, channel: Any, permissions: Sequence[str], doing: str, meanwhile: str) -> bool:
        """The bot lacks ``permissions`` in ``channel`` to do ``doing`` (marked for the catalog); ``meanwhile`` says
        what it does instead (marked too). Logged every time; the admins are told at most every
        :data:`NOTICE_EVERY` per channel and permission. True if a notice was posted."""
        guild = getattr(channel, "guild", None)
        place = getattr(channel, "parent", None) or channel
        log.warning(
            "server %s, channel %s: missing permission %s to %s",
            getattr(guild, "id", "?"),
            getattr(place, "id", "?"),
            ", ".join(PERMISSION_NAMES.get(p, p) for p in permissions),
            doing,
        )
        if guild is None or not permissions or not self._due(guild.id, place, ",".join(permissions)):
            return False
        service = getattr(self.bot, "service", None)
        language = await server_language(service, guild.id) if service is not None else i18n.DEFAULT
        with i18n.use(language):
            text = " ".join(
                (
                    _("I need the {permissions} permission in {channel} to {doing}.").format(
                        permissions=", ".join(f"**{_(PERMISSION_NAMES.get(p, p))}**" for p in permissions),
                        channel=_where(place),
                        doing=_(doing),
                    ),
                    _(meanwhile),
                    _(
                        "A server admin can grant it in the channel's settings (Permissions, then the bot's role) or "
                        "in Server Settings → Roles."
                    ),
                )
            )
        return await self._post(guild, place, text)

    async def tell(self, channel: Any, key: str, text: str) -> bool:
        """Tell the admins ``text`` (in the server's language already) about ``channel``, at most every
        :data:`NOTICE_EVERY` for the same ``key`` there; logged every time. True if posted."""
        guild = getattr(channel, "guild", None)
        log.warning("server %s, channel %s: %s", getattr(guild, "id", "?"), getattr(channel, "id", "?"), key)
        if guild is None or not self._due(guild.id, channel, key):
            return False
        return await self._post(guild, channel, text)

    def _due(self, guild_id: int, channel: Any, key: str) -> bool:
        told = (guild_id, getattr(channel, "id", 0), key)
        now = self.clock()
        if now - self._told.get(told, -NOTICE_EVERY) < NOTICE_EVERY:
            return False
        if len(self._told) > 10_000:
            self._told.clear()
        self._told[told] = now
        return True

    async def _post(self, guild: Any, channel: Any, text: str) -> bool:
        """Post a notice in ``channel``, else in the server's system channel (where the bot may speak)."""
        for target in (channel, guild.system_channel):
            if target is None or missing_permissions(target, ("view_channel", "send_messages")):
                continue
            try:
                await target.send(clip(text), allowed_mentions=NO_PINGS)
                return True
            except discord.HTTPException as exc:
                log.info("server %s: a notice could not be posted in %s (%s)", guild.id, target.id, exc)
        return False


class Delivery:
    """Posts a game's messages where its players will see them, whatever Discord refuses (see the module's
    docstring). ``find`` is how the bot finds a channel by id (None when Discord says it is gone); ``name`` names a
    match thread."""

    def __init__(
        self,
        bot: discord.Client,
        service: GameService,
        notices: Notices,
        find: Callable[[str | int | None], Awaitable[Any]],
        name: Callable[[GameView], str],
    ) -> None:
        self.bot = bot
        self.service = service
        self.notices = notices
        self.find = find
        self.name = name

    async def send(
        self,
        game: GameView,
        target: discord.abc.Messageable,
        *,
        content: str,
        uploads: Sequence[Upload] = (),
        **message: Any,
    ) -> discord.Message:
        """Post a message of ``game`` in ``target`` (its thread or channel), falling back as Discord refuses:
        a new thread or the channel for a thread that is gone, locked or closed to the bot; no files where the bot
        may not attach them. Raises what Discord refuses last (nowhere left to post)."""
        moved = False
        while True:
            try:
                return await target.send(content=content, files=[u.file() for u in uploads], **message)
            except discord.HTTPException as exc:
                if uploads and self._files_refused(target, exc):
                    await self.notices.missing(
                        target,
                        ["attach_files"],
                        N_("show the boards and match files"),
                        N_("Meanwhile games are shown in words, without their pictures."),
                    )
                    words = _pictures_in_words(uploads)[: MAX_CONTENT // 2]
                    content = clip(content, MAX_CONTENT - len(words) - 1) + "\n" + words
                    uploads = ()
                    continue
                if moved or not isinstance(target, discord.Thread) or not _thread_closed(target, exc):
                    raise
                moved = True
                target = await self.elsewhere(game, target, exc)

    def _files_refused(self, target: Any, exc: discord.HTTPException) -> bool:
        return (
            isinstance(exc, discord.Forbidden)
            and exc.code == MISSING_PERMISSIONS
            and bool(missing_permissions(target, ("attach_files",)))
        )

    async def elsewhere(self, view: GameView, thread: discord.Thread | None, why: object) -> Any:
        """The game's thread can no longer show it (deleted, locked, or closed to the bot): where it goes on. A new
        thread in its channel when the bot may open and post in one, else the channel; stored with the game and said
        there. If another message moved the game meanwhile, that place."""
        failed = str(thread.id) if thread is not None else view.thread_id
        fresh = await self.service.view(view.id, SYSTEM)
        if fresh.thread_id != failed:
            for raw in (fresh.thread_id, fresh.channel_id):
                place = await self.find(raw)
                if isinstance(place, discord.abc.Messageable):
                    return place
        parent = thread.parent if thread is not None else None
        if parent is None:
            parent = await self.find(view.channel_id)
        if not isinstance(parent, discord.TextChannel):
            raise Refused(_("game #{game} has no channel I can reach any more").format(game=view.id))
        log.warning("server %s: game %s cannot be shown in its thread %s (%s)", view.guild_id, view.id, failed, why)
        closed = missing_permissions(parent, ("send_messages_in_threads", "create_public_threads"))
        if closed:
            await self.notices.missing(
                parent, closed, N_("play each match in a thread"), N_("Meanwhile matches are played in the channel.")
            )
        target: Any = parent
        if not closed:
            try:
                with i18n.use(await _language(self.service, view)):
                    name = getattr(thread, "name", None) or self.name(fresh)
                target = await parent.create_thread(
                    name=name, type=discord.ChannelType.public_thread, auto_archive_duration=10080
                )
            except discord.HTTPException as again:
                log.warning("game %s: no new thread either (%s); playing in the channel", view.id, again)
                target = parent
        try:
            await self.service.set_thread(view.id, str(target.id) if isinstance(target, discord.Thread) else None)
        except Refused as refused:
            log.info("game %s: its new place was not stored (%s)", view.id, refused)
        with i18n.use(await _language(self.service, view)):
            said = _("The thread of game #{game} was closed, so the match goes on here.").format(game=view.id)
        try:
            await target.send(said, allowed_mentions=NO_PINGS)
        except discord.HTTPException as again:
            log.info("game %s: could not say where it moved (%s)", view.id, again)
        return target


def _thread_closed(thread: discord.Thread, exc: discord.HTTPException) -> bool:
    """Whether Discord refused a thread itself (deleted, locked, out of the bot's reach, or the bot may not speak in
    threads there), not what was sent to it."""
    if exc.code in (UNKNOWN_CHANNEL, MISSING_ACCESS, THREAD_ARCHIVED):
        return True
    return exc.code == MISSING_PERMISSIONS and bool(missing_permissions(thread, ("send_messages_in_threads",)))


def _pictures_in_words(uploads: Sequence[Upload]) -> str:
    """What the files show, in words (a board drawn in text, else their alt text), for a message that could not
    carry them."""
    out = []
    for upload in uploads:
        if upload.text:
            out.append(f"```\n{upload.text}\n```")
        elif upload.description:
            out.append("\n".join(f"> {line}" for line in upload.description.splitlines()[:6]))
    return "\n".join(out)


async def _language(service: GameService, view: GameView) -> str:
    return await server_language(service, view.guild_id)


# --- answers that outlive their interaction ------------------------------------------------------------------------
def token_refused(exc: discord.HTTPException) -> bool:
    """Whether Discord refused an answer because the interaction is gone: its token lives 15 minutes
    (:data:`.limits.TOKEN_SECONDS`), after which Discord answers 401, or 404 Unknown Webhook/Interaction."""
    return exc.status == 401 or exc.code in (INVALID_TOKEN, 10015, 10062) or isinstance(exc, discord.NotFound)


async def late_reply(interaction: discord.Interaction[Any], kwargs: dict[str, Any], *, private: bool = False) -> bool:
    """Deliver the answer to a command whose interaction expired before it was ready: in the channel it was used
    in, mentioning the asker, or (``private``: only the asker may read it) by direct message. True if delivered."""
    message = {k: v for k, v in kwargs.items() if k != "ephemeral"}
    user = interaction.user
    command = interaction.command.qualified_name if interaction.command is not None else None
    head = (
        _("{player}, the answer to `/{command}` took longer than Discord waits, so here it is:").format(
            player=mention(str(user.id)), command=command
        )
        if command
        else _("{player}, here is the answer Discord no longer let me give you:").format(player=mention(str(user.id)))
    )
    message["content"] = clip(f"{head}\n{message.get('content') or ''}".rstrip())
    targets: list[Any] = [user] if private else [interaction.channel]
    message["allowed_mentions"] = discord.AllowedMentions(users=[user], everyone=False, roles=False)
    for target in targets:
        if target is None or not isinstance(target, discord.abc.Messageable):
            continue
        try:
            try:
                await target.send(**message)
            except ValueError:  # its files went with the answer Discord refused: the words still go
                await target.send(**{k: v for k, v in message.items() if k not in ("file", "files")})
            log.info("interaction %s: answered late in %s", interaction.id, getattr(target, "id", "?"))
            return True
        except discord.HTTPException as exc:
            log.warning("server %s: a late answer to %s was not delivered (%s)", interaction.guild_id, user.id, exc)
    return False
