"""The console ends a money session between games (``end``), and a forfeit between games charges no game."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.service import SYSTEM
from tests.bot.console_session import typed

_run = typed  # lines typed into a fresh console; the caller closes the store


def test_end_closes_a_session_between_games_and_not_during_one(tmp_path: Path) -> None:
    async def go() -> None:
        text, service, store = await _run(
            tmp_path / "g.sqlite3",
            ["alice: play bob money games=5", "bob: accept", "alice: roll", "bob: end"],
        )
        try:
            assert "! a session ends between games: game 1 is under way" in text, text
            state = await service.state(1, SYSTEM)
            assert not state.over
        finally:
            await store.close()
        text, service, store = await _run(tmp_path / "h.sqlite3", ["alice: play bob money", "bob: accept", "bob: end"])
        try:
            assert "Session ended by bob at 0-0: level, nobody wins." in text, text
            assert (await service.state(1, SYSTEM)).over
        finally:
            await store.close()

    asyncio.run(go())


def test_a_forfeit_before_any_game_of_a_session_names_no_winner(tmp_path: Path) -> None:
    async def go() -> None:
        text, service, store = await _run(
            tmp_path / "g.sqlite3", ["alice: play bob money", "bob: accept", "alice: forfeit"]
        )
        try:
            assert "alice forfeits the session." in text and "Session ended by alice at 0-0" in text, text
            assert "bob wins" not in text
            state = await service.state(1, SYSTEM)
            assert state.over and state.score == (0, 0) and state.results == ()
        finally:
            await store.close()

    asyncio.run(go())
