"""Who asks, from where, and which game they mean: the one game resolver of the Discord commands.

:func:`requester` turns an interaction into the service's :class:`~bot.service.Request` (the user, the server or a
direct message, and whether they may manage that server). Every lookup below goes through the service with it, so a
game of another server (or, in a direct message, a game the asker does not play in) is "no game" here as everywhere.

:func:`find_game` is how a command finds the game it is about: the ``game`` option, else the game of the thread it
is used in (a match thread or a team's private thread, found by the id stored with the game, or by the name the bot
gave the thread), else the asker's only running game (or the only one waiting for them).

A player may have very many games and challenges (hundreds of challenges from others), and a suggestion is asked for
at every keystroke. So the asker's games are listed as stored rows (:func:`game_rows`: one query, no match loaded),
and a lookup loads the games (``GameService.view``) of at most :data:`VIEW_BUDGET` of them: suggestions, finding the
game of a thread, finding the asker's only game, and ``/bg games``, one page of :data:`PAGE_SIZE` at a time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands

from engine.i18n import _, ngettext

from ..service import GameService, GameView, NotInstalled, PlayerRef, Refused, Request, may_wait_for
from ..storage import GameRow, GameStatus
from .limits import MAX_AUTOCOMPLETE
from .text import callers, describe, safe, status_word, versus

if TYPE_CHECKING:
    from .protocols import Bot

__all__ = [
    "display_name",
    "player_of",
    "requester",
    "bot_of",
    "command_name",
    "require_server",
    "find_game",
    "named_refusal",
    "game_number",
    "thread_game",
    "game_choices",
    "game_rows",
    "views_of",
    "games_page",
    "GamesPage",
    "MAX_CHOICES",
    "VIEW_BUDGET",
    "PAGE_SIZE",
]

#: Discord lists at most 25 suggestions (:mod:`.limits`).
MAX_CHOICES = MAX_AUTOCOMPLETE
#: How many of the asker's games one lookup loads at most (each view may read a game from the database).
VIEW_BUDGET = 50
#: Where :func:`find_game` leaves the game it found, in ``interaction.extras``.
GAME_KEY = "gammonbot_game"
#: Games listed on one page of ``/bg games``.
PAGE_SIZE = 20
#: The number in the names the bot gives threads: ``#7 Backgammon: alice vs bob``, ``#7 team alice & carol``.
THREAD_NUMBER = re.compile(r"^#(\d+)\b")
#: Team threads opened by earlier versions were named ``Team alice & carol — game 7``.
OLD_TEAM_THREAD = re.compile(r"—\s*game\s+(\d+)\s*$")


def display_name(user: discord.abc.User) -> str:
    """What a user is called where they are: their server nickname, else their global display name, else their
    username (what Discord itself shows). The service stores it with the games they play, and shows it on every
    board and message, never their id."""
    nick = user.nick if isinstance(user, discord.Member) else None
    for name in (nick, user.global_name, user.name):
        if name and name.strip():
            return name.strip()
    return user.name


def player_of(user: discord.abc.User) -> PlayerRef:
    """The service's idea of a Discord user (someone named in a command, such as the opponent challenged): their
    id as text and :func:`display_name`."""
    return PlayerRef(str(user.id), display_name(user))


def requester(interaction: discord.Interaction[Any]) -> Request:
    """Who asks, from which server (None: a direct message), and whether they may manage that server: the
    context of every service call made for an interaction."""
    user = interaction.user
    perms = interaction.permissions
    admin = interaction.guild_id is not None and bool(perms.manage_guild or perms.administrator)
    guild = str(interaction.guild_id) if interaction.guild_id is not None else None
    return Request(str(user.id), display_name(user), guild, "discord", admin)


def bot_of(interaction: discord.Interaction[Any]) -> Bot:
    return cast("Bot", interaction.client)


def _service(interaction: discord.Interaction[Any]) -> GameService:
    return bot_of(interaction).service


def command_name(interaction: discord.Interaction[Any]) -> str:
    """The command as players type it, without the slash: ``bg-team propose``."""
    command = interaction.command
    return command.qualified_name if command is not None else "bg"


def require_server(interaction: discord.Interaction[Any]) -> str:
    """The server the command is used in; refused in a direct message (for commands about a server)."""
    if interaction.guild_id is None:
        raise Refused(
            _("Use `/{command}` in a server: it is about that server's players and matches.").format(
                command=command_name(interaction)
            )
        )
    return str(interaction.guild_id)


async def thread_game(interaction: discord.Interaction[Any], asker: Request | None = None) -> GameView | None:
    """The game of the thread the command is used in: its match thread or one of its team threads (None if the
    channel is no such thread, or the game is not one the asker may see)."""
    channel = interaction.channel
    if not isinstance(channel, discord.Thread):
        return None
    asker = asker or requester(interaction)
    service = _service(interaction)
    here = str(channel.id)
    candidates: list[int] = []
    remembered = bot_of(interaction).threads.game_of_team_thread(channel.id)
    if remembered is not None:
        candidates.append(remembered)
    found = THREAD_NUMBER.match(channel.name or "") or OLD_TEAM_THREAD.search(channel.name or "")
    if found:
        candidates.append(int(found[1]))
    for number in dict.fromkeys(candidates):
        try:
            view = await service.view(number, asker)
        except NotInstalled as exc:  # this thread's game, whose rule set is not installed: say so
            if exc.view.thread_id == here or number == remembered:
                raise
            continue
        except Refused:
            continue
        if view.thread_id == here or number == remembered or here in (await service.team_threads(view.id)).values():
            return view
    # A thread renamed since (or found after a restart): the asker's games know their threads by id.
    for row in await game_rows(interaction, asker, thread=here, limit=VIEW_BUDGET):
        rooms = (row.setup.get("team_threads") or {}).values() if row.status == GameStatus.ACTIVE else ()
        if row.thread_id == here or here in {str(r) for r in rooms}:
            try:
                return await service.view(row.id, asker)
            except NotInstalled:  # this thread's game, whose rule set is not installed: say so
                raise
            except Refused:
                continue
    return None


async def find_game(interaction: discord.Interaction[Any], game: int | None, *, mine: bool = True) -> GameView:
    """The game a command is about: the ``game`` option, else the game of the thread it is used in, else (``mine``)
    the asker's only running game, or the only one waiting for them. Refused, with what to do, when there is none.
    The game found is remembered with the interaction: a refusal about it names it (:func:`named_refusal`)."""
    view = await _find_game(interaction, game, mine=mine)
    interaction.extras[GAME_KEY] = view.id
    return view


async def named_refusal(interaction: discord.Interaction[Any], text: str) -> str:
    """A refusal about the game a command found, preceded by that game's number when the asker has more than one
    game running or waiting (``Game #12: there is no resignation to accept``)."""
    game = interaction.extras.get(GAME_KEY)
    if game is None or f"#{game}" in text:
        return text
    try:
        several = await _service(interaction).game_count(requester(interaction)) > 1
    except Exception:  # the refusal is told as it is when the count cannot be had
        return text
    return _("Game #{game}: {refusal}").format(game=game, refusal=text) if several else text


async def _find_game(interaction: discord.Interaction[Any], game: int | None, *, mine: bool) -> GameView:
    asker = requester(interaction)
    service = _service(interaction)
    what = command_name(interaction)
    if game is not None:
        if game < 1:
            raise Refused(_("Game numbers start at 1: `/bg games` and `/bg-stats history` show them."))
        return await service.view(game, asker)
    view = await thread_game(interaction, asker)
    if view is not None:
        return view
    if not mine:
        raise Refused(
            _("Say which game with the `game` option, or use `/{command}` inside the match's thread.").format(
                command=what
            )
        )
    # Those that may wait for the asker come first, so the budget's games hold them.
    running = await game_rows(interaction, asker, statuses=(GameStatus.ACTIVE,), limit=VIEW_BUDGET)
    if not running:
        raise Refused(_("You have no game running. Start one with `/bg play`, or give the game number."))
    if len(running) == 1:
        return await service.view(running[0].id, asker)
    # Only a game whose turn is the asker's, or nobody's in particular (an opening roll), may be waiting for them.
    maybe = [row for row in running if may_wait_for(row, asker.id)]
    waiting = [v for v in await views_of(interaction, maybe, asker) if asker.id in callers(v)]
    if len(waiting) == 1:
        return waiting[0]
    count = (
        len(running) if len(running) < VIEW_BUDGET else await service.game_count(asker, statuses=(GameStatus.ACTIVE,))
    )
    numbers = ", ".join(f"#{row.id}" for row in running[:10])
    raise Refused(
        ngettext(
            "You have {count} game running ({numbers}): say which with the `game` option, "
            "or use `/{command}` in the game's thread.",
            "You have {count} games running ({numbers}): say which with the `game` option, "
            "or use `/{command}` in the game's thread.",
            count,
        ).format(count=count, numbers=numbers, command=what)
    )


async def game_number(interaction: discord.Interaction[Any], game: int | None) -> int:
    """The number of the game a command names, or of the thread it is used in, without loading the game (for a
    command that must work on a game whose record no longer replays). The service still judges who may see it."""
    if game is not None:
        if game < 1:
            raise Refused(_("Game numbers start at 1: `/bg games` and `/bg-stats history` show them."))
        return game
    try:
        view = await thread_game(interaction)
    except Refused:
        view = None
    if view is not None:
        return view.id
    channel = interaction.channel
    if isinstance(channel, discord.Thread):
        found = THREAD_NUMBER.match(channel.name or "") or OLD_TEAM_THREAD.search(channel.name or "")
        if found:
            return int(found[1])
    raise Refused(
        _("Say which game with the `game` option, or use `/{command}` inside the match's thread.").format(
            command=command_name(interaction)
        )
    )


async def game_rows(
    interaction: discord.Interaction[Any], asker: Request | None = None, **bounds: Any
) -> list[GameRow]:
    """The asker's challenges and running games here (in a direct message: everywhere), as stored: one query, no
    game loaded. Those that may be waiting for the asker (their turn, a challenge to them, an opening roll) come
    first, then the rest, most recently changed first within each. ``bounds`` are :meth:`GameService.game_list`'s
    (which statuses, a page: the database reads no more than is asked for)."""
    return await _service(interaction).game_list(asker or requester(interaction), **bounds)


async def views_of(
    interaction: discord.Interaction[Any], rows: Iterable[GameRow], asker: Request | None = None
) -> list[GameView]:
    """The games of these rows as the asker sees them (one that can no longer be shown is left out; one of a rule set
    that is not installed is its stored view, marked ``unavailable``)."""
    asker = asker or requester(interaction)
    service = _service(interaction)
    out = []
    for row in rows:
        try:
            out.append(await service.view(row.id, asker))
        except NotInstalled as exc:  # kept, and listed as "rule set X is not installed"
            out.append(exc.view)
        except Refused:
            continue
    return out


@dataclass(frozen=True)
class GamesPage:
    """One page of ``/bg games``: its lines, which page of how many, and how many games in all."""

    lines: tuple[str, ...]
    page: int
    pages: int
    total: int


async def games_page(interaction: discord.Interaction[Any], page: int) -> GamesPage:
    """Page ``page`` (from 1; past the last: the last) of the asker's games, :data:`PAGE_SIZE` lines a page."""
    asker = requester(interaction)
    total = await _service(interaction).game_count(asker)
    pages = max(1, math.ceil(total / PAGE_SIZE))
    page = min(max(1, page), pages)
    shown = await game_rows(interaction, asker, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
    views = {v.id: v for v in await views_of(interaction, shown, asker)}
    lines = []
    for row in shown:
        view = views.get(row.id)
        if view is None:
            lines.append(
                _("#{game} ({status}; it cannot be shown now)").format(game=row.id, status=status_word(row.status))
            )
            continue
        line = describe(view)
        if view.thread_id:
            line = _("{game} in {thread}").format(game=line, thread=f"<#{view.thread_id}>")
        if asker.id in callers(view):
            line = _("{game} — **your turn**").format(game=line)
        lines.append(line)
    return GamesPage(tuple(lines), page, pages, total)


async def game_choices(
    interaction: discord.Interaction[Any], current: str, *, finished: bool = False
) -> list[app_commands.Choice[int]]:
    """Suggestions for a ``game`` option: the asker's challenges and running games here (and, with ``finished``,
    their finished matches), matching what is typed. Bounded work per keystroke: typed digits pick the games whose
    number has them first, and at most :data:`VIEW_BUDGET` games are looked at."""
    asker = requester(interaction)
    service = _service(interaction)
    key = current.strip().lstrip("#").lower()
    # Typed digits: the games whose number has them first (the database picks them; no number has over 10 digits).
    digits = key[:11] if key.isdigit() else None
    rows = await game_rows(interaction, asker, limit=VIEW_BUDGET, number_has=digits)
    out: dict[int, str] = {}
    for row in rows:
        if len(out) >= MAX_CHOICES:
            break
        for view in await views_of(interaction, (row,), asker):
            label = describe(view)
            if not key or key in label.lower():
                out[view.id] = label
    if finished and len(out) < MAX_CHOICES:
        for line in await service.history(asker, player_id=asker.id, limit=MAX_CHOICES):
            sides = versus([safe(str(s)) for s in line.get("sides") or []])
            label = f"#{line['game_id']} {_(str(line['display_name']))}: {sides}"
            if not key or key in label.lower():
                out.setdefault(int(line["game_id"]), label)
    return [app_commands.Choice(name=label[:100], value=gid) for gid, label in out.items()][:MAX_CHOICES]
