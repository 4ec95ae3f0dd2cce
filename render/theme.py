"""Themes: colours by readable name and the image size, read from the ``[render]`` section of config.toml.

Like python-chess's ``chess.svg`` colours, a theme is one dict with readable keys ("point dark",
"checker light edge", "highlight"); a theme in config.toml lists only the colours it changes, the rest
come from :data:`CLASSIC`. The config section looks like::

    [render]
    theme = "classic"          # the theme used when the caller names none
    width = 840                # image width in pixels; the height follows from it
    compress_level = 1         # PNG zlib level
    palette_colors = 0         # 0: full colour; 2..256: fewer colours, smaller files

    [render.themes.high-contrast]
    width = 960                # a theme may have its own width
    field = "#000000"
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CLASSIC",
    "HIGH_CONTRAST",
    "DEFAULT_WIDTH",
    "MIN_WIDTH",
    "Theme",
    "RenderConfig",
    "ThemeError",
    "load_config",
    "default_config_path",
    "parse_color",
]

#: The built-in colours (the "classic" theme): a walnut board with a green cloth, ivory and ebony checkers.
CLASSIC: Mapping[str, str] = {
    "background": "#1e2124",
    "info": "#2b3035",
    "info on roll": "#35513f",
    "text": "#f3f3f1",
    "text dim": "#b4bcc2",
    "accent": "#ffd23f",
    "frame": "#6b4226",
    "frame edge": "#3e2514",
    "point number": "#f6e7c8",
    "field": "#2e6049",
    "point light": "#e3cf9f",
    "point dark": "#b0492f",
    "bar": "#5d3920",
    "tray": "#244c39",
    "tray edge": "#1a3829",
    "checker light": "#f6f1e7",
    "checker light edge": "#8e8474",
    "checker light text": "#202020",
    "checker dark": "#33343a",
    "checker dark edge": "#0b0b0d",
    "checker dark text": "#f6f6f6",
    "die light": "#fbf8f1",
    "die light pip": "#1c1c1c",
    "die dark": "#2a2b30",
    "die dark pip": "#f8f8f8",
    "cube": "#fcfcfa",
    "cube text": "#141414",
    "cube unavailable": "#8f8f8f",
    "highlight": "#ffd23f",
    "hit": "#ff3b30",
}

#: A high-contrast theme: black field, white and yellow-rimmed black checkers, bright markers.
HIGH_CONTRAST: Mapping[str, str] = {
    "background": "#000000",
    "info": "#000000",
    "info on roll": "#003c8f",
    "text": "#ffffff",
    "text dim": "#ffffff",
    "accent": "#ffff00",
    "frame": "#3d3d3d",
    "frame edge": "#ffffff",
    "point number": "#ffffff",
    "field": "#000000",
    "point light": "#8c8c8c",
    "point dark": "#595959",
    "bar": "#3d3d3d",
    "tray": "#000000",
    "tray edge": "#ffffff",
    "checker light": "#ffffff",
    "checker light edge": "#000000",
    "checker light text": "#000000",
    "checker dark": "#000000",
    "checker dark edge": "#ffff00",
    "checker dark text": "#ffff00",
    "die light": "#ffffff",
    "die light pip": "#000000",
    "die dark": "#000000",
    "die dark pip": "#ffff00",
    "cube": "#ffffff",
    "cube text": "#000000",
    "cube unavailable": "#7a7a7a",
    "highlight": "#00ffff",
    "hit": "#ff00ff",
}

DEFAULT_WIDTH = 840
MIN_WIDTH = 320
MAX_WIDTH = 2400

RGB = tuple[int, int, int]


class ThemeError(ValueError):
    """A theme or ``[render]`` setting that cannot be used; the message names it."""


def parse_color(text: str) -> RGB:
    """``"#rrggbb"`` (or ``"#rgb"``) as an RGB tuple."""
    raw = text.strip().lstrip("#")
    if len(raw) == 3:
        raw = "".join(c * 2 for c in raw)
    try:
        if len(raw) != 6:
            raise ValueError
        return int(raw[0:2], 16), int(raw[2:4], 16), int(raw[4:6], 16)
    except ValueError:
        raise ThemeError(f"{text!r} is not a colour: write it as #rrggbb") from None


@dataclass(frozen=True)
class Theme:
    """Colours and size of a board image. Hashable, so it keys the caches of static boards and sprites."""

    name: str = "classic"
    width: int = DEFAULT_WIDTH
    #: (key, "#rrggbb") pairs; every key of :data:`CLASSIC` is present.
    colors: tuple[tuple[str, str], ...] = tuple(CLASSIC.items())
    _rgb: dict[str, RGB] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not MIN_WIDTH <= self.width <= MAX_WIDTH:
            raise ThemeError(f"theme {self.name!r}: width must be {MIN_WIDTH}..{MAX_WIDTH} pixels, got {self.width}")
        rgb = {key: parse_color(value) for key, value in self.colors}
        missing = sorted(set(CLASSIC) - set(rgb))
        if missing:
            raise ThemeError(f"theme {self.name!r} lacks colours: {', '.join(missing)}")
        self._rgb.update(rgb)

    @classmethod
    def build(cls, name: str, overrides: Mapping[str, str] | None = None, *, width: int = DEFAULT_WIDTH) -> Theme:
        """A theme from :data:`CLASSIC` with ``overrides`` (unknown colour names are an error)."""
        colours = dict(CLASSIC)
        for key, value in (overrides or {}).items():
            if key not in CLASSIC:
                known = ", ".join(sorted(CLASSIC))
                raise ThemeError(f"theme {name!r}: unknown colour {key!r} (colours: {known})")
            if not isinstance(value, str):
                raise ThemeError(f'theme {name!r}: colour {key!r} must be a string like "#rrggbb"')
            parse_color(value)
            colours[key] = value
        return cls(name, int(width), tuple(colours.items()))

    def rgb(self, key: str) -> RGB:
        """The colour called ``key`` as an RGB tuple."""
        return self._rgb[key]

    def color_dict(self) -> dict[str, str]:
        """All colours by name (a copy)."""
        return dict(self.colors)


@dataclass(frozen=True)
class RenderConfig:
    """The ``[render]`` section: the themes by name, the default one, and PNG settings."""

    themes: Mapping[str, Theme]
    default: str = "classic"
    compress_level: int = 1
    #: 0 writes full-colour PNGs; 2..256 reduces the finished picture to that many colours first
    #: (about a third of the bytes and of the encoding time, at the cost of a quantisation step).
    palette_colors: int = 0

    def theme(self, name: str | None = None) -> Theme:
        """The theme called ``name`` (the default one when None)."""
        key = self.default if name is None else name
        try:
            return self.themes[key]
        except KeyError:
            have = ", ".join(sorted(self.themes))
            raise ThemeError(f"no board theme called {key!r}; themes: {have}") from None


def builtin_config() -> RenderConfig:
    """The themes that exist without any config file: classic and high-contrast."""
    return RenderConfig(
        {"classic": Theme.build("classic"), "high-contrast": Theme.build("high-contrast", HIGH_CONTRAST)}
    )


def default_config_path() -> Path:
    """The repository's config.toml (beside the ``render`` package)."""
    return Path(__file__).resolve().parents[1] / "config.toml"


def load_config(path: str | Path | None = None) -> RenderConfig:
    """Read the ``[render]`` section of ``path`` (default :func:`default_config_path`).

    A missing file or section gives the built-in themes; themes named in the file are added to, or
    replace, the built-in ones, each starting from the classic colours.
    """
    file = Path(path) if path is not None else default_config_path()
    if not file.exists():
        if path is not None:
            raise ThemeError(f"config file {file} does not exist")
        return builtin_config()
    with file.open("rb") as f:
        data = tomllib.load(f)
    return config_from_mapping(data.get("render", {}))


def config_from_mapping(section: Mapping[str, Any]) -> RenderConfig:
    """A :class:`RenderConfig` from the parsed ``[render]`` table."""
    base = builtin_config()
    width = section.get("width", DEFAULT_WIDTH)
    level = section.get("compress_level", base.compress_level)
    if not isinstance(level, int) or not 0 <= level <= 9:
        raise ThemeError(f"[render] compress_level must be 0..9, got {level!r}")
    if not isinstance(width, int):
        raise ThemeError(f"[render] width must be a whole number of pixels, got {width!r}")
    colors = section.get("palette_colors", 0)
    if not isinstance(colors, int) or not (colors == 0 or 2 <= colors <= 256):
        raise ThemeError(f"[render] palette_colors must be 0 (full colour) or 2..256, got {colors!r}")
    themes: dict[str, Theme] = {}
    builtin_colours = {"classic": {}, "high-contrast": dict(HIGH_CONTRAST)}
    for name, colours in builtin_colours.items():
        themes[name] = Theme.build(name, colours, width=width)
    raw_themes = section.get("themes", {})
    if not isinstance(raw_themes, Mapping):
        raise ThemeError("[render.themes] must be a table of themes")
    for name, table in raw_themes.items():
        if not isinstance(table, Mapping):
            raise ThemeError(f"[render.themes.{name}] must be a table")
        overrides = {k: v for k, v in table.items() if k != "width"}
        theme_width = table.get("width", width)
        if not isinstance(theme_width, int):
            raise ThemeError(f"[render.themes.{name}] width must be a whole number of pixels")
        themes[name] = Theme.build(name, overrides, width=theme_width)
    default = section.get("theme", "classic")
    if default not in themes:
        raise ThemeError(f"[render] theme = {default!r}, but no such theme exists ({', '.join(sorted(themes))})")
    return RenderConfig(themes, default, level, colors)
