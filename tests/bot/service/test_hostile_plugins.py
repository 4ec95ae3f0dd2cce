"""Hostile plugins through the service (issue 34, item 3): a rating system or a bot player whose method raises
during play. The match plays on and ends (a broken rating system leaves it unrated), the players read what
happened, and the log names the plugin and the hook."""

from __future__ import annotations

import asyncio
import logging
import random
from pathlib import Path
from typing import Any

import pytest

from bot.service import GameService, Request, SeededDice
from bot.storage import Store
from engine.match import MatchState
from engine.movegen import Play
from engine.players import PlayerSpec, RandomBot
from engine.plugins import registry
from engine.ratings import FibsRatings, Rating
from tests.bot.service.playing import next_action
from tests.bot.service.test_community import match

GUILD = "g"
ANN, BEN = Request("ann", "Ann", GUILD), Request("ben", "Ben", GUILD)


class BrokenRatings(FibsRatings):
    name = "broken"
    display_name = "Broken ratings"

    def update(self, winner: Rating, loser: Rating, length: int) -> tuple[Rating, Rating]:
        raise ZeroDivisionError("no ratings today")


def test_a_rating_system_that_raises_leaves_the_match_ended_and_unrated(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(registry().rating_system_owners, "broken", "brokenratings")

    async def go() -> Any:
        store = await Store.open(f"sqlite:///{tmp_path / 'r.sqlite3'}")
        try:
            svc = GameService(store, dice=SeededDice(8))
            svc.ratings = BrokenRatings()
            out = await match(svc, ANN, BEN, "backgammon", 1)
            return out, await svc.history(ANN), await svc.leaderboard(ANN, "backgammon")
        finally:
            await store.close()

    with caplog.at_level(logging.ERROR, logger="gammonbot.plugins"):
        out, history, board = asyncio.run(go())
    assert out.game.status == "finished"
    said = [e.text for e in out.events if e.kind == "ratings"]
    assert said and "not rated" in said[0] and "brokenratings" in said[0] and "update" in said[0]
    assert history[0]["rated"] is False and board == []
    logged = [r.getMessage() for r in caplog.records]
    assert any("brokenratings" in m and "update" in m and "ZeroDivisionError" in m for m in logged)


class BrokenBot(RandomBot):
    """A bot player whose every play raises."""

    def choose_play(self, state: MatchState, time_cap: float | None = None) -> Play:
        raise RuntimeError("cannot think")


def test_a_bot_player_that_raises_is_played_for_and_the_match_ends(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    reg = registry()
    saved = reg._save()
    reg.register_player(
        PlayerSpec("brokenbot", "Broken bot", "broken", lambda seed: BrokenBot(random.Random(seed))), "brokenbots"
    )

    async def go() -> list[Any]:
        store = await Store.open(f"sqlite:///{tmp_path / 'b.sqlite3'}")
        try:
            svc = GameService(store, dice=SeededDice(3))
            out = await svc.challenge(ANN, None, variant="backgammon", length=1, bot="brokenbot")
            events = list(out.events)
            for _ in range(500):
                if out.game.status != "active":
                    break
                out = await next_action(svc, out.game, ANN)
                events.extend(out.events)
            assert out.game.status == "finished"
            return events
        finally:
            await store.close()

    try:
        with caplog.at_level(logging.ERROR, logger="gammonbot.plugins"):
            events = asyncio.run(go())
    finally:
        reg._restore(saved)
    failed = [e.text for e in events if e.kind == "bot-failed"]
    assert failed and all("brokenbots" in t and "choose_play" in t and "game goes on" in t for t in failed)
    logged = [r.getMessage() for r in caplog.records]
    assert any("brokenbots" in m and "choose_play" in m and "cannot think" in m for m in logged)
