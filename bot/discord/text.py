"""What the bot writes: a game's heading, the players' names, and mentions that ping exactly who is meant.

Mention safety lives here. The bot's default is to ping nobody (``GammonBot`` passes :data:`NO_PINGS`); a message
that calls players to act passes :func:`pings` with exactly their ids. And every text a user chose (a display
name, and the service's sentences, which carry names) goes through :func:`safe`, so a nickname like
``<@123> @everyone`` is shown as written and can never ping anyone, whatever a message allows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import discord

from engine import i18n
from engine.i18n import _, ngettext, pgettext
from engine.match import Phase

from ..service import Event, GameStatus, GameView
from ..service.helpers import bot_label
from .limits import MAX_CONTENT

__all__ = [
    "MAX_CONTENT",
    "NO_PINGS",
    "safe",
    "mention",
    "pings",
    "clip",
    "capital",
    "callers",
    "team_name",
    "sides_text",
    "describe",
    "texts",
    "lines_within",
    "status_word",
    "rating",
    "versus",
    "match_kind",
]

#: What the bot allows by default: no pings at all (a message that must ping says whom, with :func:`pings`).
NO_PINGS = discord.AllowedMentions.none()
# "@" starting a user, role or everyone/here mention; a zero-width space after it keeps the text and drops the ping.
_MENTION = re.compile(r"@(?=everyone\b|here\b|[!&]?\d)")


def safe(text: str) -> str:
    """User-chosen text (a name, or a sentence carrying names) made unable to mention anyone."""
    return _MENTION.sub("@\u200b", text)


def mention(player_id: str) -> str:
    """A player as a mention (a bot player, whose id is not a Discord id, by its name and strength; any other
    player of no Discord id, as the console's, by that id)."""
    if player_id.isdigit():
        return f"<@{player_id}>"
    return safe(bot_label(player_id) or player_id)


def pings(*groups: Iterable[str]) -> discord.AllowedMentions:
    """Allow pinging exactly these players (ids; bot players are skipped), nobody else, no role, not everyone."""
    ids = dict.fromkeys(p for group in groups for p in group if p.isdigit())
    return discord.AllowedMentions(
        everyone=False, roles=False, users=[discord.Object(int(p)) for p in ids], replied_user=False
    )


def clip(text: str, limit: int = MAX_CONTENT) -> str:
    """Text cut to fit a message (with an ellipsis when cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def callers(view: GameView) -> tuple[str, ...]:
    """Who is called to act now (mentioned, and pinged, in the game's newest message)."""
    if view.status == GameStatus.CHALLENGE:
        return tuple(view.invited)
    if view.status != GameStatus.ACTIVE:
        return ()
    if view.to_act is not None:
        return (view.to_act,)
    if view.phase == Phase.OPENING and view.acting is not None:
        return tuple(dict.fromkeys(view.acting))
    return ()


def team_name(view: GameView, side: int) -> str:
    """A side's players, ``alice & carol`` (safe to post)."""
    return " & ".join(safe(view.name(p)) for p in view.sides[side])


def versus(names: list[str]) -> str:
    """``alice vs bob`` from the sides' names (already safe to post)."""
    if len(names) == 2:
        return _("{first} vs {second}").format(first=names[0], second=names[1])
    return " – ".join(names)


def sides_text(view: GameView) -> str:
    """``alice vs bob`` (safe to post)."""
    return versus([team_name(view, k) for k in range(len(view.sides))])


def match_kind(length: int) -> str:
    """``5-point match`` or ``money play``."""
    if length:
        return ngettext("{length}-point match", "{length}-point match", length).format(length=length)
    return _("money play")


def describe(view: GameView) -> str:
    """One line about a game: its number, rule set, players, score and cube (safe to post)."""
    kind = match_kind(view.length)
    name = _(view.display_name)
    sides = [team_name(view, k) for k in range(len(view.sides))]
    if view.status == GameStatus.CHALLENGE:
        challenger = safe(view.name(view.challenger))
        if view.unavailable:
            return _("#{game} {rule_set} {kind}: challenge from {challenger} · {unavailable}").format(
                game=view.id, rule_set=name, kind=kind, challenger=challenger, unavailable=view.unavailable
            )
        invited = ", ".join(safe(view.name(i)) for i in view.invited)
        if not invited:
            return _("#{game} {rule_set} {kind}: challenge from {challenger} to anyone").format(
                game=view.id, rule_set=name, kind=kind, challenger=challenger
            )
        return _("#{game} {rule_set} {kind}: challenge from {challenger} to {invited}").format(
            game=view.id, rule_set=name, kind=kind, challenger=challenger, invited=invited
        )
    first = 1 if view.winner == 1 else 0  # the winner's score first
    score = (
        f"{sides[first]} {view.score[first]} – {view.score[1 - first]} {sides[1 - first]}" if len(sides) == 2 else ""
    )
    head = f"#{view.id} {name} {kind} · {score}"
    if view.unavailable:  # a game of a rule set whose plugin is not installed now: kept, listed as stored
        return f"{head} · {view.unavailable}"
    if not view.uses_cube:
        return head
    if view.cube_owner is not None:
        cube = _("cube {value} ({owner})").format(value=view.cube, owner=sides[view.cube_owner])
    else:
        cube = _("cube {value}").format(value=view.cube)
    return f"{head} · {cube}"


def status_word(status: str) -> str:
    """A game's status (``active``…) as players read it, in their language."""
    words = {
        "challenge": pgettext("game status", "challenge"),
        "active": pgettext("game status", "active"),
        "finished": pgettext("game status", "finished"),
        "declined": pgettext("game status", "declined"),
        "expired": pgettext("game status", "expired"),
        "archived": pgettext("game status", "archived"),
    }
    return words.get(status, status)


def texts(events: Iterable[Event]) -> str:
    """The service's sentences about what happened, one a line (safe to post: they carry the players' names)."""
    return "\n".join(safe(e.text) for e in events)


def lines_within(lines: list[str], limit: int) -> str:
    """As many whole lines as fit in ``limit`` characters, saying how many were left out."""
    out: list[str] = []
    used = 0
    for k, line in enumerate(lines):
        left = len(lines) - k
        more = ngettext("…and {count} more.", "…and {count} more.", left).format(count=left)
        if used + len(line) + 1 > limit - len(more) - 1:
            out.append(more)
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def rating(value: float, *, sign: bool = False) -> str:
    """A rating (or, with ``sign``, a rating change) with two decimals in the reader's decimal sign and, as ratings are
    written everywhere, no thousands separator: ``1523.45``, Russian ``1523,45``; ``+7.20``."""
    from babel.numbers import format_decimal

    lang = i18n.language()
    text = format_decimal(
        abs(value) if sign else value, format="0.00", locale=i18n.DEFAULT if lang == i18n.PSEUDO else lang
    )
    return (("+" if value >= 0 else "-") + text) if sign else text
