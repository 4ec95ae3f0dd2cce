"""render.gallery, and a rule set from an outside plugin drawn with no change to render/."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from PIL import Image

from engine import i18n
from engine.snapshot import OPPONENT, snapshot_of
from engine.variant import Variant
from render.board import render_image
from render.gallery import main, play_game, scenes, write_gallery
from render.layout import compute_layout
from render.theme import Theme
from variants.backgammon import Backgammon

from .helpers import HALVES, close, pixel

THEME = Theme.build("classic", width=480)


class Quarters(Variant):
    """An invented plugin rule set: 6 checkers, each half of the board mirrored, a bar, no cube, teams."""

    name = "quarters"
    display_name = "Quarters"
    checkers = 6
    start: ClassVar[dict[int, int]] = {24: 3, 20: 3}
    geometry = HALVES
    uses_cube = False
    team_size = 2


def test_a_plugin_rule_set_is_drawn_from_its_description() -> None:
    v = Quarters()
    s = snapshot_of(v, v.start_position(), dice=(4, 2))
    im = render_image(s, THEME)
    L = compute_layout(THEME.width, v.geometry, "right")
    light, dark = THEME.rgb("checker light"), THEME.rgb("checker dark")
    for point, n in v.start.items():
        assert close(pixel(im, L.checker_center(point, n - 1)), light)
        # The opponent's starting points, translated by the geometry.
        assert close(pixel(im, L.checker_center(v.geometry.my_point(point), n - 1)), dark)
    # Its opponent bears off beside their point 1, which is my 12: bottom left.
    assert L.trays[OPPONENT][2] < L.left_x and not L.tray_top[OPPONENT]
    assert s.position_id is not None  # gnubg-compatible by default: the caller decides, not the renderer


def test_generated_game_is_legal_and_deterministic() -> None:
    v = Backgammon()
    a = [(t.dice, t.play.moves) for t in play_game(v, seed=3, max_turns=30)]
    b = [(t.dice, t.play.moves) for t in play_game(v, seed=3, max_turns=30)]
    assert a == b and len(a) == 30
    for turn in play_game(v, seed=3, max_turns=30):
        assert turn.play in v.legal_plays(turn.before, turn.dice, turn.number < 2)


def test_scenes_cover_what_the_issue_lists() -> None:
    names = {name for name, _ in scenes(Backgammon())}
    assert {
        "opening",
        "contact",
        "bar",
        "bearoff",
        "cube-owned",
        "cube-offered",
        "crawford",
        "home-left",
        "opponent-view",
        "moving",
        "game-over",
    } <= names
    contact = dict(scenes(Backgammon()))["contact"]
    assert any(hit for _, _, hit in contact.last_play)
    quarter = {name for name, _ in scenes(Quarters())}
    assert "teams" in quarter and "cube-offered" not in quarter


def test_gallery_files_start_with_the_rule_set_name(tmp_path: Path) -> None:
    files = write_gallery(
        tmp_path, THEME, Theme.build("contrast", width=480), {"backgammon": Backgammon, "quarters": Quarters}, True
    )
    assert files and all(f.exists() for f in files)
    for f in files:
        assert f.name.split("-")[0] in ("backgammon", "quarters")
        with Image.open(f) as im:
            assert im.size[0] == 480
    assert (tmp_path / "backgammon-bearoff.png").exists()
    assert (tmp_path / "quarters-teams.png").exists()
    assert (tmp_path / "backgammon-contact-contrast.png").exists()


def test_gallery_command_line(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    import render.gallery as gallery

    monkeypatch.setattr(gallery, "registry", lambda: type("R", (), {"variants": {"quarters": Quarters}})())
    assert main([str(tmp_path / "out")]) == 0
    # Every shipped language by default, each in a folder of its own, with a match card and replay frames.
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(i18n.LANGUAGES)
    for lang in i18n.LANGUAGES:
        written = sorted(p.name for p in (tmp_path / "out" / lang).iterdir())
        assert {"quarters-opening.png", "quarters-long-result.png", "match-card.png", "replay-last.png"} <= set(written)
    out = capsys.readouterr().out
    assert "quarters-opening.png" in out and "Match card #12" in out and "Карточка матча #12" in out
    assert main([str(tmp_path / "one"), "--lang", "tr", "--quiet"]) == 0
    assert [p.name for p in (tmp_path / "one").iterdir()] == ["tr"]
    assert capsys.readouterr().out == ""
