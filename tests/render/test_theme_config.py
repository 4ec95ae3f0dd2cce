"""The [render] settings end to end: a file read by bot.config, handed to the renderer, honoured in the PNG.

The renderer never reads a file itself: without settings it draws with the built-in themes.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

import render
import render.theme
from bot.config import ConfigError, Settings, load_settings
from render.board import render_image
from render.theme import HIGH_CONTRAST, RenderConfig, Theme, ThemeError, builtin_config, load_config

from .helpers import snap

SNAP = snap("24:1 19:-5 18:-1 17:-3 13:5 12:-4 8:3 6:5 1:-2 bar:1/0", dice=(5, 2), cube_value=2)


def settings(tmp_path: Path, text: str) -> Settings:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_settings(path, environ={})


def config_of(tmp_path: Path, text: str) -> RenderConfig:
    return settings(tmp_path, text).render_config()


def png(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def same_pixels(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and a.convert("RGB").tobytes() == b.convert("RGB").tobytes()


def count(im: Image.Image, rgb: tuple[int, int, int]) -> int:
    data = im.convert("RGB").tobytes()
    needle = bytes(rgb)
    return sum(1 for i in range(0, len(data), 3) if data[i : i + 3] == needle)


# --- without settings: the built-in themes -----------------------------------------------------------------------


def test_the_renderer_reads_no_file_and_defaults_to_the_built_in_themes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "config.toml").write_text('[render]\ntheme = "high-contrast"\nwidth = 400\n')
    monkeypatch.chdir(tmp_path)
    assert load_config() == builtin_config() == Settings().render_config()
    assert not hasattr(render.theme, "default_config_path")
    assert render.default_theme() == Theme.build("classic") and render.default_theme().width == 840
    assert render.get_theme("high-contrast") == Theme.build("high-contrast", HIGH_CONTRAST)
    board = render.render_board(SNAP)
    assert (board.width, board.height) == (840, 684)
    assert same_pixels(png(board.png), render_image(SNAP, Theme.build("classic")))


def test_the_high_contrast_theme_is_always_there_to_choose() -> None:
    config = builtin_config()
    assert config.theme_names() == ["classic", "high-contrast"]
    assert config.has_theme("high-contrast") and config.has_theme("default") and not config.has_theme("neon")
    contrast = Theme.build("high-contrast", HIGH_CONTRAST)
    assert same_pixels(png(render.render_board(SNAP, "high-contrast", config=config).png), render_image(SNAP, contrast))


# --- each [render] key, end to end ----------------------------------------------------------------------------------


def test_theme_picks_the_default_board_colours(tmp_path: Path) -> None:
    config = settings(tmp_path, '[render]\ntheme = "high-contrast"\n').render_config()
    contrast = Theme.build("high-contrast", HIGH_CONTRAST)
    drawn = png(render.render_board(SNAP, config=config).png)
    assert same_pixels(drawn, render_image(SNAP, contrast))
    assert not same_pixels(drawn, render_image(SNAP, Theme.build("classic")))
    # A player's "default" is the configured one; a name picks that theme; a removed one falls back.
    assert same_pixels(png(render.render_board(SNAP, "default", config=config).png), drawn)
    assert same_pixels(png(render.render_board(SNAP, "removed-theme", config=config).png), drawn)
    classic = png(render.render_board(SNAP, "classic", config=config).png)
    assert same_pixels(classic, render_image(SNAP, Theme.build("classic")))
    assert config.theme("default") == config.theme() == contrast


def test_width_sets_the_image_size_of_every_theme(tmp_path: Path) -> None:
    config = settings(tmp_path, "[render]\nwidth = 480\n").render_config()
    for name in ("classic", "high-contrast"):
        board = render.render_board(SNAP, name, config=config)
        assert board.width == 480 and png(board.png).size == (480, board.height) and board.height < 684


def test_a_theme_may_set_its_own_width(tmp_path: Path) -> None:
    config = settings(tmp_path, "[render]\nwidth = 480\n[render.themes.big]\nwidth = 1000\n").render_config()
    assert (
        render.render_board(SNAP, "big", config=config).width == 1000
        and render.render_board(SNAP, config=config).width == 480
    )


def test_compress_level_sets_the_png_deflate_level(tmp_path: Path) -> None:
    stored = render.render_board(
        SNAP, config=settings(tmp_path, "[render]\ncompress_level = 0\nwidth = 400\n").render_config()
    )
    packed = render.render_board(
        SNAP, config=settings(tmp_path, "[render]\ncompress_level = 9\nwidth = 400\n").render_config()
    )
    assert len(stored.png) > stored.width * stored.height * 3  # level 0: stored blocks, no compression
    assert len(packed.png) < len(stored.png) / 4
    assert same_pixels(png(stored.png), png(packed.png))


def test_palette_colors_reduces_the_picture_to_that_many_colours(tmp_path: Path) -> None:
    full = png(
        render.render_board(SNAP, config=settings(tmp_path, "[render]\npalette_colors = 0\n").render_config()).png
    )
    few = png(
        render.render_board(SNAP, config=settings(tmp_path, "[render]\npalette_colors = 16\n").render_config()).png
    )
    assert full.mode == "RGB" and len(full.getcolors(1 << 20) or []) > 256
    assert few.mode == "P" and len(few.convert("RGB").getcolors(1 << 20) or []) <= 16


def test_a_custom_theme_colour_is_drawn(tmp_path: Path) -> None:
    s = settings(tmp_path, '[render]\ntheme = "mine"\n[render.themes.mine]\nfield = "#123456"\n')
    assert s.theme_names() == ["classic", "high-contrast", "mine"] and s.has_theme("mine")
    drawn = png(render.render_board(SNAP, config=s.render_config()).png)
    assert count(drawn, (0x12, 0x34, 0x56)) > 10_000
    assert count(png(render.render_board(SNAP, "classic", config=s.render_config()).png), (0x12, 0x34, 0x56)) == 0
    mine = s.render.theme("mine")
    assert mine.rgb("point dark") == Theme.build("classic").rgb("point dark")  # the rest: classic colours


def test_a_built_in_theme_can_be_changed(tmp_path: Path) -> None:
    s = settings(tmp_path, '[render.themes.high-contrast]\nhit = "#00ff00"\n')
    theme = s.render.theme("high-contrast")
    assert theme.rgb("hit") == (0, 255, 0) and theme.rgb("field") == (0x2E, 0x60, 0x49)  # from classic


@pytest.mark.parametrize("width", [320, 2400])
def test_the_width_bounds_render(width: int, tmp_path: Path) -> None:
    board = render.render_board(SNAP, config=settings(tmp_path, f"[render]\nwidth = {width}\n").render_config())
    assert board.width == width


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[render]\nwidth = 319\n", "[render] width must be a whole number of pixels from 320 to 2400, not 319"),
        ("[render]\nwidth = 2401\n", "[render] width must be"),
        ("[render]\nwidth = 800.0\n", "[render] width must be"),
        ("[render.themes.x]\nwidth = 100000\n", "[render.themes.x] width must be a whole number of pixels"),
        ('[render.themes.x]\nfield = "#12345"\n', '[render.themes.x] field must be a colour written "#rrggbb"'),
        ('[render.themes.x]\nfield = "123456"\n', "[render.themes.x] field must be a colour"),
        ('[render.themes.x]\nfield = " #123456"\n', "[render.themes.x] field must be a colour"),
        ('[render.themes.x]\nfield = "#+f+f+f"\n', "[render.themes.x] field must be a colour"),
        ("[render.themes.x]\nfield = 1193046\n", "[render.themes.x] field must be a colour"),
        ('[render]\nthemes = "dark"\n', "[render] themes must be a table of themes"),
        ("[render.themes]\nx = 1\n", "[render.themes.x] must be a table of colours"),
        ("[render]\npalette_colors = 257\n", "[render] palette_colors must be 0 (full colour) or a whole number"),
        ("[render]\npalette_colors = false\n", "[render] palette_colors must be"),
        ("[render]\ncompress_level = -1\n", "[render] compress_level must be a whole number from 0 to 9"),
        ("[render]\ntheme = 1\n", "[render] theme must name a theme"),
        ("render = 1\n", "render must be a section ([render])"),
    ],
)
def test_bad_render_settings_name_the_file_and_the_key(text: str, expected: str, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings(path, environ={})
    assert str(info.value).startswith(f"{path}: {expected}") and "\n" not in str(info.value)


# --- render.theme.load_config: for the gallery and the benchmark's --config ---------------------------------------


def test_load_config_reads_the_render_section_of_a_named_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[storage]\nurl = "sqlite://"\n[render]\ntheme = "high-contrast"\ncompress_level = 6\n')
    config = load_config(path)
    assert isinstance(config, RenderConfig) and config.default == "high-contrast" and config.compress_level == 6
    with pytest.raises(ThemeError, match="does not exist"):
        load_config(tmp_path / "absent.toml")
    path.write_text("[render]\nwidth = 5\n")
    with pytest.raises(ThemeError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: [render] width must be") and "\n" not in str(info.value)
    path.write_text("[render\n")
    with pytest.raises(ThemeError, match="cannot be read"):
        load_config(path)
