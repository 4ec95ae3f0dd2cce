"""Ctrl-C at the console ends the session at once and cleanly, like the end of its input (Ctrl-D).

Under :func:`asyncio.run` the first Ctrl-C only asks the main task to stop, which cannot happen while the console
waits in a blocking ``readline`` (so it seemed ignored), and a second one raised ``KeyboardInterrupt`` through the
event loop (a traceback). :class:`Interrupt` handles SIGINT itself while the console runs: waiting for a line, the
read is interrupted at once; while a command runs, the command is cancelled (a change not yet stored is not stored:
each change is one transaction); between the two, the session ends before the next read.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Awaitable
from types import FrameType, TracebackType
from typing import Any, TextIO

__all__ = ["Interrupt"]


class Interrupt:
    """SIGINT handling for one console session: ``with Interrupt() as stop: ... stop.readline(inp) ...``."""

    def __init__(self) -> None:
        self.pressed = False  # Ctrl-C was pressed: the session ends
        self._reading = False
        self._running = False
        self._task: asyncio.Task[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> Interrupt:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        if threading.current_thread() is threading.main_thread():  # only the main thread may handle signals
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)
            self._installed = True
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous if self._previous is not None else signal.default_int_handler)
            self._installed = False

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        self.pressed = True
        if self._reading:
            raise KeyboardInterrupt  # out of the blocking read, at once
        if self._running and self._task is not None and self._loop is not None:
            self._task.cancel()
            self._loop.call_soon_threadsafe(lambda: None)  # wake the loop if it waits for the database

    def readline(self, inp: TextIO) -> str:
        """The next line ("" at the end of the input); KeyboardInterrupt once Ctrl-C was pressed."""
        self._reading = True
        try:
            if self.pressed:
                raise KeyboardInterrupt
            return inp.readline()
        finally:
            self._reading = False

    async def run(self, work: Awaitable[bool]) -> bool:
        """Run one command; False when Ctrl-C cancelled it (or it ended the session)."""
        self._running = True
        try:
            keep = await work
        except asyncio.CancelledError:
            if not self.pressed or self._task is None:
                raise
            keep = False
            self._task.uncancel()
        finally:
            self._running = False
        while self._task is not None and self._task.cancelling():
            # Ctrl-C came as the command ended: take the cancellation it asked for here, not in the next await.
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0)
            self._task.uncancel()
        return keep and not self.pressed
