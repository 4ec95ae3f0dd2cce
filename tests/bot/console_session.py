"""A console on a real SQLite file, driven line by line in-process, for the console's tests."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot.console import Console
from bot.service import SYSTEM, GameService, GameView, SeededDice
from bot.storage import Store


async def typed(db: Path, lines: list[str], *, seed: int = 3) -> tuple[str, GameService, Store]:
    """``lines`` typed into a fresh console on the database ``db`` (dice seeded): its output, its service and its
    store (the caller closes the store)."""
    store = await Store.open(f"sqlite:///{db}")
    service = GameService(store, dice=SeededDice(seed))
    out = io.StringIO()
    console = Console(service, out)
    for line in lines:
        assert await console.handle(line)
    return out.getvalue(), service, store


class Session:
    """Type lines into one console; each :meth:`type` returns what that line printed."""

    def __init__(self, console: Console, service: GameService, out: io.StringIO) -> None:
        self.console = console
        self.service = service
        self._out = out

    async def type(self, *lines: str) -> str:
        """Run ``lines``; what they printed (the last line's refusal, if any, starts with "! ")."""
        start = len(self._out.getvalue())
        for line in lines:
            assert await self.console.handle(line)
        return self._out.getvalue()[start:]

    async def view(self, game_id: int) -> GameView:
        return await self.service.view(game_id, SYSTEM)

    async def step(self, game_id: int) -> str:
        """The player due to act does the plainest thing: roll, the first legal play, take, reject, or name 6-6."""
        v = await self.view(game_id)
        actor = v.to_act or (v.acting[0] if v.acting else "")
        plain = {"opening": "roll", "roll": "roll", "doubled": "take", "resigned": "reject", "name double": "name 6"}
        action = plain.get(v.phase or "")
        return await self.type(f"{actor}: {action or f'move {v.plays[0]}'}")

    async def until(self, game_id: int, done: Callable[[GameView], bool], limit: int = 600) -> str:
        """Step the game until ``done`` holds; everything printed on the way."""
        said = ""
        for _ in range(limit):
            view = await self.view(game_id)
            if done(view) or view.status != "active":
                return said
            said += await self.step(game_id)
        raise AssertionError(f"game #{game_id} did not get there in {limit} steps")


def run(tmp_path: Path, body: Callable[[Session], Awaitable[Any]], *, seed: int | None = 11) -> Any:
    """Run ``body`` with a console on a fresh SQLite file (seeded dice; ``seed=None``: the verifiable dice)."""

    async def go() -> Any:
        store = await Store.open(f"sqlite:///{tmp_path / 'console.sqlite3'}")
        service = GameService(store, dice=SeededDice(seed) if seed is not None else None)
        out = io.StringIO()
        try:
            return await body(Session(Console(service, out), service, out))
        finally:
            await store.close()

    return asyncio.run(go())


def refusals(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("! ")]
