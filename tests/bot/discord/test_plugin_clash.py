"""The Discord bot starts beside a plugin that claims "bg", the alias of standard backgammon: that plugin is refused
with a warning naming it and what clashed, and every rule set, "bg" included, is served as before."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import plugins
from engine.plugins import build_plugin_manager, hookimpl
from engine.variant import Variant
from tests.bot.discord.helpers import said, world
from variants.backgammon import Backgammon


class Thief(Backgammon):
    name = "thief"
    display_name = "Thief"
    aliases = ("bg",)


class ThiefPlugin:
    @hookimpl
    def register_variants(self, register: Callable[[type[Variant]], None]) -> None:
        register(Thief)


@pytest.mark.asyncio
async def test_the_bot_starts_and_refuses_only_the_plugin_whose_alias_clashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="gammonbot.plugins"):
        _, reg = build_plugin_manager([("thief", ThiefPlugin())])
    monkeypatch.setattr(plugins, "_default", reg)  # the registry the bot starts with
    assert (
        "plugin 'thief' refused: it registers rule set 'bg', but plugin 'backgammon' already registered it for "
        "'backgammon'"
    ) in caplog.text
    async with world(tmp_path) as w:
        alice = w.people["alice"]
        r = await w.do(alice.slash(w.channel, "bg-info variants"))
        assert "Backgammon" in said(r) and "Thief" not in said(r)
        gid, _ = await w.start(variant="bg")
        assert (await w.view(gid)).display_name == "Backgammon"
