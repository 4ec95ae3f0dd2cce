"""config.toml reaches what it controls: ``[defaults]`` the challenges, ``[limits]`` the service's bounds,
``[ratings]`` the rating system, ``[render]`` the boards, and ``--config`` the command line (one-line errors)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from contextlib import redirect_stderr
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.cli import main
from bot.config import settings_from_mapping
from bot.service import GameService, Refused, Request, SeededDice, service_for
from bot.storage import Store

GUILD = "g1"
ALICE = Request("alice", "Alice", GUILD)
BOB = Request("bob", "Bob", GUILD)


def run_with(tmp_path: Path, data: dict[str, Any], body: Callable[[GameService], Awaitable[None]]) -> None:
    settings = settings_from_mapping(data, source="test.toml")
    tmp_path.mkdir(parents=True, exist_ok=True)

    async def go() -> None:
        store = await Store.open(f"sqlite:///{tmp_path / 'g.sqlite3'}")
        try:
            await body(service_for(store, settings, dice=SeededDice(3)))
        finally:
            await store.close()

    asyncio.run(go())


def test_defaults_decide_a_challenge_that_names_nothing(tmp_path: Path) -> None:
    async def body(svc: GameService) -> None:
        out = await svc.challenge(ALICE, BOB)
        assert (out.game.variant, out.game.length) == ("sprintgammon", 3)

    run_with(tmp_path, {"defaults": {"variant": "sprintgammon", "match_length": 3}}, body)


def test_defaults_without_a_file_are_5_point_backgammon(tmp_path: Path) -> None:
    async def body(svc: GameService) -> None:
        out = await svc.challenge(ALICE, BOB)
        assert (out.game.variant, out.game.length) == ("backgammon", 5)

    run_with(tmp_path, {}, body)


def test_limits_cap_open_challenges_and_the_length_of_a_typed_play(tmp_path: Path) -> None:
    async def body(svc: GameService) -> None:
        await svc.challenge(ALICE, BOB)
        with pytest.raises(Refused, match="already have 1 open challenges"):
            await svc.challenge(ALICE, BOB)
        game = (await svc.challenge(BOB, ALICE, variant="sprintgammon", length=1)).game
        await svc.accept(game.id, ALICE)
        with pytest.raises(Refused, match="at most 20 characters"):
            await svc.move(game.id, ALICE, "24/23 " * 10)

    data = {"limits": {"max_open_challenges_per_player": 1, "max_play_length": 20}}
    run_with(tmp_path, data, body)


def test_the_server_cap_counts_every_player_of_the_server(tmp_path: Path) -> None:
    async def body(svc: GameService) -> None:
        await svc.challenge(ALICE, BOB)
        await svc.challenge(BOB, ALICE)
        carol = Request("carol", "Carol", GUILD)
        with pytest.raises(Refused, match="this server has 2 open challenges"):
            await svc.challenge(carol, ALICE)
        # Another server has its own allowance.
        await svc.challenge(Request("carol", "Carol", "g2"), None)

    run_with(tmp_path, {"limits": {"max_open_challenges_per_server": 2}}, body)


def test_the_rating_system_is_the_one_the_configuration_names(tmp_path: Path) -> None:
    async def body(svc: GameService) -> None:
        assert svc.ratings.name == "fibs"

    run_with(tmp_path, {"ratings": {"system": "fibs"}}, body)


def pixels(rendered: Any) -> bytes:
    with Image.open(io.BytesIO(rendered.png)) as im:
        return im.convert("RGB").tobytes()


def test_the_render_theme_of_the_configuration_draws_the_boards(tmp_path: Path) -> None:
    seen: dict[str, bytes] = {}

    def body_for(key: str) -> Callable[[GameService], Awaitable[None]]:
        async def body(svc: GameService) -> None:
            game = (await svc.challenge(ALICE, BOB, variant="sprintgammon", length=1)).game
            await svc.accept(game.id, BOB)
            seen[key] = pixels(await svc.board(game.id, ALICE))
            # A player's own theme setting wins over the configured default.
            await svc.player_settings(ALICE, theme="classic")
            seen[key + " classic"] = pixels(await svc.board(game.id, ALICE))

        return body

    run_with(tmp_path / "a", {}, body_for("builtin"))
    run_with(tmp_path / "b", {"render": {"theme": "high-contrast"}}, body_for("contrast"))
    assert seen["builtin"] != seen["contrast"]
    assert seen["builtin"] == seen["builtin classic"] == seen["contrast classic"]


def test_a_missing_or_bad_config_file_is_one_line_at_start_up(tmp_path: Path) -> None:
    err = io.StringIO()
    with redirect_stderr(err):
        assert main(["console", "--config", str(tmp_path / "missing.toml")]) == 2
    assert len(err.getvalue().strip().splitlines()) == 1 and "missing.toml" in err.getvalue()
    bad = tmp_path / "bad.toml"
    bad.write_text('[defaults]\nmatch_length = "five"\n')
    err = io.StringIO()
    with redirect_stderr(err):
        assert main(["console", "--config", str(bad)]) == 2
    line = err.getvalue().strip()
    assert len(line.splitlines()) == 1 and "match_length" in line, line
