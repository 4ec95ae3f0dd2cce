"""Channels and the bot's messages in them: finding a channel by its id, and taking the buttons off a message.

The table, the threads, the tournament posts and the reconciliation after a restart all look channels up and retire
messages the same way; this is that one way.
"""

from __future__ import annotations

from typing import Any, Protocol

import discord

__all__ = ["ChannelSource", "find_channel", "take_buttons_off", "told"]


class ChannelSource(Protocol):
    """Where channels are looked up: the bot (a :class:`discord.Client`)."""

    def get_channel(self, id: int, /) -> Any: ...

    async def fetch_channel(self, channel_id: int, /) -> Any: ...


async def find_channel(client: ChannelSource, raw: str | int | None) -> Any:
    """The channel or thread with this id: from the client's cache, else asked of Discord; None for no id, or when
    Discord answers that it is gone or not ours to see."""
    if not raw:
        return None
    channel = client.get_channel(int(raw))
    if channel is None:
        try:
            channel = await client.fetch_channel(int(raw))
        except discord.HTTPException:
            return None
    return channel


async def take_buttons_off(channel: Any, message_id: int) -> discord.HTTPException | None:
    """Take the buttons (every component) off one of the bot's messages in ``channel``; the refusal Discord answered
    (the message may be gone), or None once it is done."""
    try:
        await channel.get_partial_message(message_id).edit(view=None)
    except discord.HTTPException as exc:
        return exc
    return None


def told(content: str) -> list[str]:
    """The event lines of one of the bot's turn messages: everything between the heading and the prompt (kept when
    the message is edited in place)."""
    lines = content.split("\n")
    return lines[1:-1] if len(lines) > 2 and lines[0].startswith("**#") else []
