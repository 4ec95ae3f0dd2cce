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

from ..service import Event, GameView
from ..service.helpers import bot_label

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
]

#: Discord's limit on a message's content.
MAX_CONTENT = 2000
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
    if view.status == "challenge":
        return tuple(view.invited)
    if view.status != "active":
        return ()
    if view.to_act is not None:
        return (view.to_act,)
    if view.phase == "opening" and view.acting is not None:
        return tuple(dict.fromkeys(view.acting))
    return ()


def team_name(view: GameView, side: int) -> str:
    """A side's players, ``alice & carol`` (safe to post)."""
    return " & ".join(safe(view.name(p)) for p in view.sides[side])


def sides_text(view: GameView) -> str:
    """``alice vs bob`` (safe to post)."""
    return " vs ".join(team_name(view, k) for k in range(len(view.sides)))


def describe(view: GameView) -> str:
    """One line about a game: its number, rule set, players, score and cube (safe to post)."""
    kind = f"{view.length}-point match" if view.length else "money play"
    sides = [team_name(view, k) for k in range(len(view.sides))]
    if view.status == "challenge":
        who = ", ".join(safe(view.name(i)) for i in view.invited) or "anyone"
        tail = f" · {view.unavailable}" if view.unavailable else f" to {who}"
        return f"#{view.id} {view.display_name} {kind}: challenge from {safe(view.name(view.challenger))}{tail}"
    score = f"{sides[0]} {view.score[0]} – {view.score[1]} {sides[1]}" if len(sides) == 2 else ""
    if view.unavailable:  # a game of a rule set whose plugin is not installed now: kept, listed as stored
        return f"#{view.id} {view.display_name} {kind} · {score} · {view.unavailable}"
    if not view.uses_cube:
        return f"#{view.id} {view.display_name} {kind} · {score}"
    cube = f"cube {view.cube}" + (f" ({sides[view.cube_owner]})" if view.cube_owner is not None else "")
    return f"#{view.id} {view.display_name} {kind} · {score} · {cube}"


def texts(events: Iterable[Event]) -> str:
    """The service's sentences about what happened, one a line (safe to post: they carry the players' names)."""
    return "\n".join(safe(e.text) for e in events)


def lines_within(lines: list[str], limit: int) -> str:
    """As many whole lines as fit in ``limit`` characters, saying how many were left out."""
    out: list[str] = []
    used = 0
    for k, line in enumerate(lines):
        more = f"…and {len(lines) - k} more."
        if used + len(line) + 1 > limit - len(more) - 1:
            out.append(more)
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)
