"""The worked example of docs/plugins.md, run as written: its plugin loads beside the built-in ones, keeps the
contract with and without its option, scores a backgammon as its option says, and players set the option in the
one options string."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

from engine.options import parse, settle
from engine.plugins import build_plugin_manager
from engine.position import Position
from engine.testing import check_plugin, check_variant
from engine.variant import Variant

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def _example() -> types.ModuleType:
    """The guide's ``gammonbot_clubgammon/__init__.py``, as a module."""
    blocks = re.findall(r"```python\n(# gammonbot_clubgammon/__init__\.py\n.*?)```", GUIDE.read_text(), re.S)
    assert len(blocks) == 1, "the guide's worked example is one python block starting with its file name"
    module = types.ModuleType("gammonbot_clubgammon")
    exec(compile(blocks[0], str(GUIDE), "exec"), module.__dict__)
    return module


@pytest.fixture(scope="module")
def club() -> type[Variant]:
    (cls,) = check_plugin(_example(), "clubgammon")
    return cls


def test_the_example_keeps_the_contract_with_and_without_its_option(club: type[Variant]) -> None:
    check_variant(club, matches=2)
    check_variant(club, matches=2, options={"backgammons": True})


def test_a_backgammon_counts_as_a_gammon_unless_backgammons_are_on(club: type[Variant]) -> None:
    # Everything borne off; the loser still has a checker in the winner's home board: a backgammon.
    pos = Position.parse("1:-1 12:-14 off:15/0")
    assert club().game_result(pos) == 2 and club().results == {1: "single game", 2: "gammon"}
    assert club(backgammons=True).game_result(pos) == 3 and club(backgammons=True).max_result == 3
    assert club().aliases == ("club",) and club.name == "clubgammon"


def test_players_set_the_option_in_the_options_string(club: type[Variant]) -> None:
    _, reg = build_plugin_manager([("clubgammon", _example())], load_entry_points=False, strict=True)
    cls = reg.find("club")
    _, rule_options = settle(cls, 3, parse("backgammons=on no-crawford", list(reg.variants.values()), rule_set=cls))
    assert cls(**rule_options).max_result == 3


def test_the_guides_whole_match_tests_pass_on_the_example(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(# tests/test_match\.py\n.*?)```", GUIDE.read_text(), re.S)
    assert len(blocks) == 1, "the guide's play_through example is one python block starting with its file name"
    monkeypatch.setitem(sys.modules, "gammonbot_clubgammon", _example())
    tests: dict[str, object] = {}
    exec(compile(blocks[0], str(GUIDE), "exec"), tests)
    for name in ("test_a_club_match_never_scores_a_backgammon", "test_the_heuristic_bot_plays_it"):
        test = tests[name]
        assert callable(test), name
        test()
