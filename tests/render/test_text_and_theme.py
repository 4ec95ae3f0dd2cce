"""The text alternative, themes from config.toml, and the rule that render/ never names a rule set."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.position import Position
from engine.snapshot import OPPONENT, VIEWER, snapshot_of
from render import board_text, get_theme, render_board
from render.theme import CLASSIC, HIGH_CONTRAST, Theme, ThemeError, config_from_mapping, load_config
from variants.backgammon import Backgammon

from .helpers import ROTATED, snap

RENDER = Path(__file__).resolve().parents[2] / "render"


def test_text_alternative_has_position_id_dice_pips_score_cube_and_last_play() -> None:
    v = Backgammon()
    pos = v.start_position()
    s = snapshot_of(
        v,
        pos,
        dice=(3, 1),
        names=("Ann", "Bob"),
        score=(2, 4),
        match_length=7,
        cube_value=2,
        cube_owner=OPPONENT,
        last_play=((24, 18, False), (13, 11, False)),
        last_play_by=OPPONENT,
    )
    text = board_text(s)
    assert "\n" not in text
    for part in (
        "Backgammon",
        "Position ID 4HPwATDgc/ABMA",
        "Ann to play 3-1",
        "pips Ann 167, Bob 167",
        "score Ann 2, Bob 4 (match to 7)",
        "cube 2 owned by Bob",
        "last play Bob 24/18 13/11",
    ):
        assert part in text
    assert render_board(s).alt_text == text


def test_text_alternative_without_a_gnubg_id_money_crawford_and_teams() -> None:
    s = snap("24:15 12:-15", geometry=ROTATED, on_roll=None, opening_dice=(6, 2), pips=(360, 360))
    text = board_text(s)
    assert "Position ID" not in text and "points numbered for You: You 15 on 24; Opponent 15 on 12" in text
    assert "opening roll You 6, Opponent 2" in text and "money game" in text
    c = board_text(snap(match_length=5, score=(4, 1), cube_unavailable="Crawford"))
    assert "cube unavailable (Crawford)" in c and "match to 5" in c
    t = board_text(snap(names=("Ann", "Bob"), team_names=("Foxes", "Owls"), on_roll=VIEWER, dice=(2, 2)))
    assert "Foxes · Ann to play 2-2" in t and "Owls · Bob" in t
    assert "doubles to 4" in board_text(snap(names=("Ann", "Bob"), cube_value=2, cube_offered_by=VIEWER))
    assert "cube" not in board_text(snap(uses_cube=False))


def test_config_toml_has_a_default_and_a_high_contrast_theme() -> None:
    config = load_config()
    default = config.theme()
    contrast = config.theme("high-contrast")
    assert default.width >= 600
    assert 0 <= config.compress_level <= 9
    assert default.color_dict() != contrast.color_dict()
    assert contrast.rgb("field") == (0, 0, 0)
    assert get_theme("high-contrast") == contrast and get_theme() == default
    with pytest.raises(ThemeError):
        get_theme("no-such-theme")


def test_a_theme_lists_only_what_it_changes() -> None:
    config = config_from_mapping({"theme": "night", "width": 700, "themes": {"night": {"field": "#000", "width": 900}}})
    night = config.theme()
    assert night.width == 900 and night.rgb("field") == (0, 0, 0)
    assert night.rgb("point dark") == Theme.build("classic").rgb("point dark")
    assert config.theme("classic").width == 700
    assert config.theme("high-contrast").rgb("highlight") == Theme.build("x", HIGH_CONTRAST).rgb("highlight")


@pytest.mark.parametrize(
    "section",
    [
        {"themes": {"bad": {"feild": "#000000"}}},
        {"themes": {"bad": {"field": "green"}}},
        {"theme": "nope"},
        {"width": 50},
        {"compress_level": 12},
        {"palette_colors": 1},
        {"palette_colors": 300},
    ],
)
def test_bad_render_settings_are_reported(section: dict[str, object]) -> None:
    with pytest.raises(ThemeError):
        config_from_mapping(section)


def test_a_config_file_with_a_theme(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[render]\ntheme = "mine"\n[render.themes.mine]\n"checker dark" = "#123456"\n')
    theme = load_config(path).theme()
    assert theme.name == "mine" and theme.rgb("checker dark") == (0x12, 0x34, 0x56)
    assert set(dict(theme.colors)) == set(CLASSIC)


def _names_compared(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare | ast.Match):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Attribute) and sub.attr in ("variant_name", "display_name", "name", "kind"):
                    found.append(sub.attr)
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and "gammon" in sub.value.lower():
                    found.append(sub.value)
    return found


def test_render_never_branches_on_a_rule_set_name() -> None:
    for path in sorted(RENDER.glob("*.py")):
        assert _names_compared(ast.parse(path.read_text())) == [], path.name


def test_text_says_who_is_on_roll_from_either_side() -> None:
    v = Backgammon()
    pos = Position.parse("24:2 13:5 8:3 6:5 19:-5 17:-3 12:-5 1:-2")
    s = snapshot_of(v, pos, viewer_on_roll=False, names=("Ann", "Bob"))
    assert "Bob to play" not in board_text(s) and "Bob on roll" in board_text(s)
