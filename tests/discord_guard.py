"""A stricter Discord for every simcord test: each REST request the bot makes is judged as real Discord would.

simcord (Discord without Discord) checks routes, fields and most permissions, but not Discord's size limits: a
command tree of 11,620 characters registered there, where Discord refuses anything over 8,000, and no test noticed.
This guard wraps simcord's one HTTP chokepoint (``simcord.http.router.dispatch``, which both the REST client and the
interaction webhooks go through) for the whole test session:

* **Limits.** Every request is judged by :func:`bot.discord.limits.request_problems` (command syncs, messages,
  answers and follow-ups, autocomplete, modals, threads). A request Discord would refuse is refused here as Discord
  refuses it (``400``, code ``50035 Invalid Form Body``) *and* recorded: the test that made it fails at its end
  (``tests/conftest.py``), whatever feature sent it, even if the bot handled the error.
* **Discord's behaviour where simcord has none** (not recorded: the bot cannot know in advance, it must cope):
  a channel holds at most 50 pinned messages (``30003``); pinning needs Pin Messages; a file needs Attach Files
  (``50013``); a message sent to an archived thread unarchives it, unless the thread is locked and the bot may not
  manage threads (``50083 Thread is archived``).
* **Rate limits**, on request: :meth:`Guard.rate_limit` answers ``429`` past a number of requests per window.

A test that means to send something refused (the guard's own tests) takes the recorded refusals with
:meth:`Guard.take`.
"""

from __future__ import annotations

import contextlib
import fnmatch
import io
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bot.discord.limits import MAX_PINS, request_problems

__all__ = ["GUARD", "Guard", "Refusal", "install"]

_SEND = re.compile(r"^/channels/(\d+)/messages$")
_PIN = re.compile(r"^/channels/(\d+)/(?:messages/)?pins/(\d+)$")


@dataclass(frozen=True)
class Refusal:
    """A request Discord would have refused: what, where, and why."""

    method: str
    path: str
    problems: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.method} {self.path}: " + "; ".join(self.problems)


@dataclass
class _Limit:
    method: str
    pattern: str
    count: int
    seconds: float
    times: list[float] = field(default_factory=list)


class Guard:
    """Judges every request simcord receives (see the module's docstring)."""

    def __init__(self) -> None:
        self.refused: list[Refusal] = []
        self.limits: list[_Limit] = []
        #: Requests answered 429, for a test to count.
        self.throttled = 0
        self._lock = threading.Lock()

    # --- what tests use ----------------------------------------------------------------------------------------------
    def take(self) -> list[Refusal]:
        """The refusals recorded so far (and forget them: a test that expected them)."""
        with self._lock:
            out, self.refused = self.refused, []
        return out

    def reset(self) -> None:
        with self._lock:
            self.refused = []
            self.limits = []
            self.throttled = 0

    @contextlib.contextmanager
    def rate_limit(self, method: str, pattern: str, *, count: int, seconds: float) -> Iterator[None]:
        """Answer ``429`` (with ``retry_after``) to a request matching ``method`` and ``pattern`` (fnmatch) past
        ``count`` of them in ``seconds`` of the backend's clock, while the block runs."""
        limit = _Limit(method, pattern, count, seconds)
        self.limits.append(limit)
        try:
            yield
        finally:
            self.limits.remove(limit)

    # --- the check ---------------------------------------------------------------------------------------------------
    def judge(self, backend: Any, method: str, path: str, json: Any, files: list[Any]) -> None:
        """Raise what Discord would answer to this request (nothing: it goes through to simcord)."""
        from simcord.backend.errors import BackendError

        self._throttle(backend, method, path)
        problems = request_problems(method, path, json, [_size(f) for f in files])
        if problems:
            with self._lock:
                self.refused.append(Refusal(method, path, tuple(problems)))
            raise BackendError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
        sent = _SEND.match(path)
        if method == "POST" and sent:
            channel = backend.channels.get(int(sent[1]))
            if channel is not None:
                if files and not _may(backend, channel, "attach_files"):
                    raise BackendError(403, 50013, "Missing Permissions")
                _unarchive(backend, channel)
        pinned = _PIN.match(path)
        if method == "PUT" and pinned:
            channel = backend.channels.get(int(pinned[1]))
            if channel is not None:
                if not _may(backend, channel, "pin_messages"):
                    raise BackendError(403, 50013, "Missing Permissions")
                count = sum(1 for m in backend.messages.get(channel.id, {}).values() if m.pinned)
                if count >= MAX_PINS:
                    raise BackendError(400, 30003, f"Maximum number of pins reached ({MAX_PINS})")

    def _throttle(self, backend: Any, method: str, path: str) -> None:
        from simcord.backend.errors import BackendError

        now = backend.clock.elapsed
        for limit in self.limits:
            if limit.method != method or not fnmatch.fnmatch(path, limit.pattern):
                continue
            limit.times = [t for t in limit.times if now - t < limit.seconds]
            if len(limit.times) >= limit.count:
                self.throttled += 1
                raise BackendError(429, 0, "You are being rate limited.")
            limit.times.append(now)


def _size(file: Any) -> int:
    """The size of a ``discord.File`` about to be sent, leaving its position as it was."""
    fp = getattr(file, "fp", None)
    if fp is None:
        return 0
    if isinstance(fp, io.BytesIO):
        return fp.getbuffer().nbytes - getattr(file, "_original_pos", 0)
    try:
        here = fp.tell()
        fp.seek(0, io.SEEK_END)
        end = fp.tell()
        fp.seek(here)
    except (OSError, ValueError):
        return 0
    return int(end - getattr(file, "_original_pos", 0))


def _may(backend: Any, channel: Any, permission: str) -> bool:
    """Whether the bot has ``permission`` in a server channel (always, outside servers)."""
    import discord

    if channel.guild_id is None:
        return True
    perms = backend.compute_permissions(channel.guild_id, backend.bot_user.id, channel.id)
    return bool(perms & getattr(discord.Permissions, permission).flag)


def _unarchive(backend: Any, channel: Any) -> None:
    """A message sent to an archived thread unarchives it, as in Discord; a locked one only for a bot that may
    manage threads (else ``50083``)."""
    from simcord.backend.errors import BackendError

    meta = getattr(channel, "thread_metadata", None)
    if meta is None or not meta.archived:
        return
    if meta.locked and not _may(backend, channel, "manage_threads"):
        raise BackendError(400, 50083, "Thread is archived")
    backend.edit_channel(channel.id, {}, thread_metadata={"archived": False})


GUARD = Guard()


def install() -> None:
    """Wrap simcord's dispatch with :data:`GUARD` (once per process; nothing if simcord is not installed)."""
    try:
        from simcord.http import router
    except ImportError:
        return
    if getattr(router.dispatch, "_gammonbot_guard", False):
        return
    original = router.dispatch

    def guarded(backend: Any, method: str, path: str, **kwargs: Any) -> Any:
        GUARD.judge(backend, method, path, kwargs.get("json"), list(kwargs.get("files") or ()))
        return original(backend, method, path, **kwargs)

    guarded._gammonbot_guard = True  # type: ignore[attr-defined]
    router.dispatch = guarded
