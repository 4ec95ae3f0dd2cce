"""The console reaches every option: rule-set options in ``play`` and server default options as a string or JSON."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.service import SYSTEM
from tests.bot.console_session import typed

_session = typed  # lines typed into a fresh console; the caller closes the store


def test_play_sets_a_rule_set_option_and_match_options(tmp_path: Path) -> None:
    async def go() -> None:
        text, service, store = await _session(
            tmp_path / "g.sqlite3",
            ["alice: play bob longgammon 1 koks=on no-crawford opening=reroll", "bob: accept"],
        )
        try:
            assert "!" not in text, text
            state = await service.state(1, SYSTEM)
            assert state.variant.options["koks"] is True
            assert not state.options.crawford and str(state.options.opening) == "reroll"
        finally:
            await store.close()

    asyncio.run(go())


def test_a_server_default_of_jacoby_as_json_or_text_no_longer_crashes(tmp_path: Path) -> None:
    async def go() -> None:
        text, service, store = await _session(
            tmp_path / "g.sqlite3",
            [
                'alice: server default_options={"jacoby": true}',
                "alice: play bob money",
                "alice: play bob backgammon 3",  # a money-play default is left out of a match
                "alice: server default_length=0 default_options=jacoby beavers koks",
                "alice: server default_options=jacobi",
                "alice: play bob backgammon money jacoby",  # an option word is not taken for a rule set
            ],
        )
        try:
            said = [line for line in text.splitlines() if "type accept or decline" not in line]
            assert "default_options='jacoby'" in said[0]
            assert "for money (Jacoby)" in said[1]
            assert "3-point Backgammon match (game #2)" in said[2]
            assert "default_length=0" in said[3] and "default_options='jacoby beavers longgammon.koks'" in said[3]
            assert said[4] == "! default options: unknown option 'jacobi' — did you mean 'jacoby'?"
            assert "for money (Jacoby, beavers)" in said[5], said
            assert (await service.server_settings("console"))["default_options"] == {
                "jacoby": True,
                "beavers": True,
                "longgammon.koks": True,
            }
        finally:
            await store.close()

    asyncio.run(go())


def test_refusals_of_options_are_one_line(tmp_path: Path) -> None:
    async def go() -> None:
        text, _, store = await _session(
            tmp_path / "g.sqlite3",
            [
                "alice: play bob backgammon 3 holland crawford=off",
                "alice: play bob backgammon 1 koks=on",
                "alice: server default_options={jacoby",
            ],
        )
        await store.close()
        lines = text.splitlines()
        assert len(lines) == 3 and all(line.startswith("! ") for line in lines), lines
        assert "Crawford rule" in lines[0] and "koks is a Longgammon option" in lines[1] and "JSON" in lines[2]

    asyncio.run(go())
