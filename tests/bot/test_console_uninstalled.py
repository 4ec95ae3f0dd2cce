"""The console with a game of a rule set whose plugin is then left out (``GAMMONBOT_PLUGINS``): ``games`` lists it
as not installed, ``board`` and turn commands say so in words, nothing crashes; with the plugin back it plays on."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from bot.console import Console
from bot.service import GameService, SeededDice
from bot.storage import Store
from engine.plugins import DEFAULT_PLUGINS, reset_registry


async def _session(db: Path, lines: list[str]) -> str:
    """The console's output for ``lines``, typed into a fresh console (a restarted bot) on the database ``db``."""
    store = await Store.open(f"sqlite:///{db}")
    try:
        out = io.StringIO()
        console = Console(GameService(store, dice=SeededDice(15)), out)
        for line in lines:
            assert await console.handle(line)
        return out.getvalue()
    finally:
        await store.close()


def test_the_console_lists_a_game_of_an_uninstalled_rule_set_and_plays_it_on_when_it_is_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "games.sqlite3"
    monkeypatch.delenv("GAMMONBOT_PLUGINS", raising=False)
    reset_registry()
    try:
        first = asyncio.run(_session(db, ["alice: play bob nackgammon 3", "bob: accept", "bob: roll", "bob: games"]))
        assert "#1 Nackgammon 3-point match, alice vs bob, score 0-0" in first

        monkeypatch.setenv("GAMMONBOT_PLUGINS", ",".join(name for name, _ in DEFAULT_PLUGINS))
        reset_registry()
        away = asyncio.run(
            _session(db, ["bob: games", "bob: board 1", "bob: board", "bob: move 13/7 8/7", "alice: play bob 1"])
        )
        assert "#1 nackgammon 3-point match, alice vs bob, score 0-0: rule set nackgammon is not installed" in away
        assert away.count("! game #1 is a game of nackgammon, which is not installed on this bot") == 3
        assert "#2" in away, "the rest of the bot works on"

        monkeypatch.delenv("GAMMONBOT_PLUGINS")
        reset_registry()
        back = asyncio.run(_session(db, ["bob: games", "alice: games", "bob: plays", "bob: board 1"]))
        assert "not installed" not in back and "#1 Nackgammon 3-point match" in back
        assert "! " not in back
        legal = back.split("legal plays: ")[-1].split(",")[0].strip()
        played = asyncio.run(_session(db, [f"bob: move {legal}", "bob: games"]))
        assert f"bob played {legal}." in played and "! " not in played
    finally:
        reset_registry()
