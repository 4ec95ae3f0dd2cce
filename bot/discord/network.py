"""Network trouble: one clear line and a retry with backoff, never a traceback.

:func:`serve` runs the bot (what ``gammonbot run`` does): when Discord (or, at start-up, the database) cannot be
reached, it logs one line, ``cannot reach Discord (discord.com:443: Name or service not known); retrying in 5 s``,
waits, and starts a fresh bot, the wait doubling after each failure up to :data:`RETRY_CAP` (and starting over once
a bot got connected). A refused token, or intents Discord refuses, stop it with one line instead. While the bot
runs, discord.py reconnects its gateway by itself; :class:`OneLineReconnects` turns each of its reconnect logs (a
traceback) into the same one line.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Protocol, cast

import aiohttp
import discord

__all__ = [
    "RETRY_FIRST",
    "RETRY_CAP",
    "StorageUnreachable",
    "OneLineReconnects",
    "unreachable",
    "seconds",
    "serve",
    "quiet_reconnects",
]

log = logging.getLogger("gammonbot.discord")

#: Seconds before the first retry; each failure in a row doubles the wait, up to the cap.
RETRY_FIRST = 5.0
RETRY_CAP = 300.0
#: Gateway close codes that no retry mends: authentication failed, invalid shard, sharding required, invalid API
#: version, invalid intents, disallowed intents.
FATAL_CLOSE_CODES = frozenset({4004, 4010, 4011, 4012, 4013, 4014})


#: How :func:`serve` waits between attempts.
wait: Callable[[float], Awaitable[object]] = asyncio.sleep


class StorageUnreachable(Exception):
    """The database could not be reached at start-up (``str()``: why, in a few words)."""


def unreachable(exc: BaseException) -> str | None:
    """Why Discord could not be reached, in a few words; None when ``exc`` is no network trouble."""
    if isinstance(exc, discord.ConnectionClosed):
        if exc.code in FATAL_CLOSE_CODES:
            return None
        return f"the gateway closed the connection, code {exc.code}"
    if isinstance(exc, discord.GatewayNotFound):
        return "its gateway was not found"
    if isinstance(exc, discord.DiscordServerError):
        return f"it answered {exc.status} {exc.response.reason or ''}".rstrip()
    if isinstance(exc, aiohttp.ClientConnectorError):
        cause = exc.os_error
        return f"{exc.host}:{exc.port}: {cause.strerror or cause or type(cause).__name__}"
    if isinstance(exc, TimeoutError):  # asyncio's too
        return "no answer in time"
    if isinstance(exc, aiohttp.ClientError):
        return str(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        return exc.strerror or str(exc) or type(exc).__name__
    return None


def seconds(value: float) -> str:
    """``5``, ``0.7``: a wait as the one line shows it."""
    return f"{value:.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"


class OneLineReconnects(logging.Filter):
    """discord.py logs each gateway reconnect with a traceback: make it the one line :func:`serve` writes."""

    #: discord.py's messages (client.py, shard.py), and where in their arguments the shard and the wait are.
    MESSAGES: dict[str, tuple[int | None, int | None]] = {
        "Attempting a reconnect in %.2fs": (None, 0),
        "Attempting a reconnect for shard ID %s in %.2fs": (0, 1),
        "Failed to connect for shard_id: %s. Retrying...": (0, None),
    }

    def filter(self, record: logging.LogRecord) -> bool:
        where = self.MESSAGES.get(str(record.msg))
        if where is None or not record.exc_info or not isinstance(record.args, tuple):
            return True
        exc = record.exc_info[1]
        reason = (unreachable(exc) or f"{type(exc).__name__}: {exc}") if exc is not None else "no reason given"
        shard, wait = where
        if shard is not None:
            reason = f"shard {record.args[shard]}: {reason}"
        delay = float(cast(float, record.args[wait])) if wait is not None else 5.0  # shard.py waits 5 s there
        record.msg = "cannot reach Discord (%s); retrying in %s s"
        record.args = (reason, seconds(delay))
        record.exc_info = None
        record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_reconnects() -> None:
    """Install :class:`OneLineReconnects` on discord.py's loggers that report reconnects (once), and silence
    discord.py's warnings that voice libraries (PyNaCl, davey) are missing: gammonbot never joins a voice channel."""
    discord.VoiceClient.warn_nacl = False
    if hasattr(discord.VoiceClient, "warn_dave"):
        discord.VoiceClient.warn_dave = False
    for name in ("discord.client", "discord.shard"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, OneLineReconnects) for f in logger.filters):
            logger.addFilter(OneLineReconnects())


class _Bot(Protocol):
    """What :func:`serve` needs of a bot (a :class:`~bot.discord.app.GammonBot`)."""

    connected_once: bool

    async def __aenter__(self) -> Any: ...

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    async def start(self, token: str, *, reconnect: bool = True) -> None: ...


async def serve(
    make: Callable[[], _Bot],
    token: str,
    *,
    sleep: Callable[[float], Awaitable[object]] | None = None,
    first: float = RETRY_FIRST,
    cap: float = RETRY_CAP,
) -> int:
    """Run bots made by ``make`` until one stops cleanly (0) or Discord refuses it (1); retry on network trouble.

    ``sleep`` waits between attempts (default: :data:`wait`, which tests replace)."""
    delay = first
    while True:
        bot = make()
        try:
            async with bot:
                await bot.start(token)
            return 0
        except discord.LoginFailure:
            log.error("Discord refused the token in DISCORD_TOKEN (reset it in the developer portal)")
            return 1
        except discord.PrivilegedIntentsRequired:
            log.error("Discord refused the intents; gammonbot needs no privileged intent, check the application")
            return 1
        except StorageUnreachable as exc:
            trouble = f"cannot reach the database ({exc})"
        except Exception as exc:
            reason = unreachable(exc)
            if reason is None and isinstance(exc, discord.ConnectionClosed):
                if exc.code == 4004:
                    log.error("Discord refused the token in DISCORD_TOKEN (reset it in the developer portal)")
                else:
                    log.error("Discord closed the connection for good (code %s: %s)", exc.code, exc.reason or "?")
                return 1
            if reason is None:
                raise
            trouble = f"cannot reach Discord ({reason})"
        if bot.connected_once:
            delay = first  # it was connected: the trouble is new, start the waits over
        log.warning("%s; retrying in %s s", trouble, seconds(delay))
        await (sleep or wait)(delay)
        delay = min(delay * 2, cap)
