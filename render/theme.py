"""Themes: colours by readable name and the image size, and the ``[render]`` settings that choose them.

Like python-chess's ``chess.svg`` colours, a theme is one dict with readable keys ("point dark",
"checker light edge", "highlight"); a theme in config.toml lists only the colours it changes, the rest
come from :data:`CLASSIC`.

The renderer never looks for a settings file itself: without one, :func:`builtin_config` (the
``classic`` and ``high-contrast`` themes, 840 pixels wide) is what it draws with. The bot reads
``config.toml`` once (``bot.config.load_settings``), and passes the :class:`RenderConfig` it built from
the ``[render]`` section (``settings.render_config()``) to whatever draws boards. The section looks like::

    [render]
    theme = "classic"          # the theme used when the caller names none
    width = 840                # image width in pixels (320..2400); the height follows from it
    compress_level = 1         # PNG zlib level (0..9)
    palette_colors = 0         # 0: full colour; 2..256: fewer colours, smaller files

    [render.themes.high-contrast]
    width = 960                # a theme may have its own width
    field = "#000000"

:func:`config_from_mapping` checks that section and raises :class:`ThemeError` with a one-line message
naming the key (``[render] width must be a whole number of pixels from 320 to 2400, not 1000000000``), in the active
language (:mod:`engine.i18n`); the keys, theme names and colours it quotes are as written in the file.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.i18n import _

__all__ = [
    "CLASSIC",
    "HIGH_CONTRAST",
    "DEFAULT_THEME",
    "DEFAULT_WIDTH",
    "MIN_WIDTH",
    "MAX_WIDTH",
    "RENDER_KEYS",
    "Theme",
    "RenderConfig",
    "ThemeError",
    "builtin_config",
    "config_from_mapping",
    "load_config",
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

#: The theme used when neither the caller nor the configuration names one.
DEFAULT_THEME = "classic"
DEFAULT_WIDTH = 840
MIN_WIDTH = 320
MAX_WIDTH = 2400
MAX_COMPRESS_LEVEL = 9
MAX_PALETTE_COLORS = 256
#: The keys of the ``[render]`` section.
RENDER_KEYS = ("theme", "width", "compress_level", "palette_colors", "themes")
#: What a player's ``theme`` setting holds to mean "the configured default".
DEFAULT_NAME = "default"
_THEME_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")

RGB = tuple[int, int, int]


class ThemeError(ValueError):
    """A theme or ``[render]`` setting that cannot be used; the message (one line) names it."""


def show(value: Any, limit: int = 60) -> str:
    """``value`` as it appears in an error message: its repr on one line, cut short when long."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def key_text(key: str) -> str:
    """A TOML key as written in a file: bare when it can be, else double-quoted with anything unprintable
    escaped (so a message stays one line), cut short when long."""
    if _BARE_KEY.fullmatch(key):
        return key
    body = "".join(_escape(c) for c in key[:60])
    return f'"{body}..."' if len(key) > 60 else f'"{body}"'


def _escape(c: str) -> str:
    if c in '"\\':
        return "\\" + c
    if c.isprintable():
        return c
    return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"


def parse_color(text: str) -> RGB:
    """``"#rrggbb"`` (or ``"#rgb"``) as an RGB tuple."""
    if not isinstance(text, str) or not _COLOUR.fullmatch(text):
        raise ThemeError(_("{value} is not a colour: write it as #rrggbb").format(value=show(text)))
    raw = text[1:]
    if len(raw) == 3:
        raw = "".join(c * 2 for c in raw)
    return int(raw[0:2], 16), int(raw[2:4], 16), int(raw[4:6], 16)


@dataclass(frozen=True)
class Theme:
    """Colours and size of a board image. Hashable, so it keys the caches of static boards and sprites."""

    name: str = DEFAULT_THEME
    width: int = DEFAULT_WIDTH
    #: (key, "#rrggbb") pairs; every key of :data:`CLASSIC` is present.
    colors: tuple[tuple[str, str], ...] = tuple(CLASSIC.items())
    _rgb: dict[str, RGB] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if isinstance(self.width, bool) or not isinstance(self.width, int) or not MIN_WIDTH <= self.width <= MAX_WIDTH:
            raise ThemeError(
                _("theme {name}: width must be {low}..{high} pixels, got {value}").format(
                    name=repr(self.name), low=MIN_WIDTH, high=MAX_WIDTH, value=show(self.width)
                )
            )
        rgb = {key: parse_color(value) for key, value in self.colors}
        missing = sorted(set(CLASSIC) - set(rgb))
        if missing:
            raise ThemeError(
                _("theme {name} lacks colours: {colours}").format(name=repr(self.name), colours=", ".join(missing))
            )
        self._rgb.update(rgb)

    @classmethod
    def build(cls, name: str, overrides: Mapping[str, str] | None = None, *, width: int = DEFAULT_WIDTH) -> Theme:
        """A theme from :data:`CLASSIC` with ``overrides`` (unknown colour names are an error)."""
        colours = dict(CLASSIC)
        for key, value in (overrides or {}).items():
            if key not in CLASSIC:
                raise ThemeError(
                    _("theme {name}: unknown colour {key}{suggestion}").format(
                        name=repr(name), key=show(key), suggestion=_did_you_mean(key, CLASSIC)
                    )
                )
            if not isinstance(value, str) or not _COLOUR.fullmatch(value):
                raise ThemeError(
                    _("theme {name}: colour {key} must be written #rrggbb, not {value}").format(
                        name=repr(name), key=repr(key), value=show(value)
                    )
                )
            colours[key] = value
        return cls(name, width, tuple(colours.items()))

    def rgb(self, key: str) -> RGB:
        """The colour called ``key`` as an RGB tuple."""
        return self._rgb[key]

    def color_dict(self) -> dict[str, str]:
        """All colours by name (a copy)."""
        return dict(self.colors)


@dataclass(frozen=True)
class RenderConfig:
    """The ``[render]`` section: the themes by name, the default one, and PNG settings.

    This is what the bot hands to whatever draws boards (``settings.render_config()``, passed as
    ``render_board(snapshot, theme, config=...)``: a theme never draws); the renderer's
    own default is :func:`builtin_config`.
    """

    themes: Mapping[str, Theme]
    default: str = DEFAULT_THEME
    compress_level: int = 1
    #: 0 writes full-colour PNGs; 2..256 reduces the finished picture to that many colours first
    #: (about a third of the bytes and of the encoding time, at the cost of a quantisation step).
    palette_colors: int = 0

    def theme(self, name: str | None = None) -> Theme:
        """The theme called ``name`` (the default one when None or ``"default"``); ThemeError lists the names."""
        key = self.default if name is None or name == DEFAULT_NAME else name
        try:
            return self.themes[key]
        except KeyError:
            raise ThemeError(
                _("no board theme called {name}; themes: {names}").format(
                    name=show(key), names=", ".join(self.theme_names())
                )
            ) from None

    def theme_for(self, name: str | None) -> Theme:
        """A player's theme: the one called ``name`` when it exists, else the default one.

        For drawing: a player's saved setting may name a theme that a later config.toml removed.
        """
        return self.themes.get(name or self.default) or self.themes[self.default]

    def theme_names(self) -> list[str]:
        """The names a player's ``theme`` setting may take, sorted (``"default"`` is also accepted)."""
        return sorted(self.themes)

    def has_theme(self, name: str) -> bool:
        """Whether ``name`` is a theme (or ``"default"``): what a player's ``theme`` setting may hold."""
        return name == DEFAULT_NAME or name in self.themes


def builtin_config(width: int = DEFAULT_WIDTH) -> RenderConfig:
    """The themes that exist without any config file: classic and high-contrast."""
    return RenderConfig(
        {
            "classic": Theme.build("classic", width=width),
            "high-contrast": Theme.build("high-contrast", HIGH_CONTRAST, width=width),
        }
    )


def load_config(path: str | Path | None = None) -> RenderConfig:
    """The ``[render]`` section of the settings file ``path``; None gives :func:`builtin_config`.

    The renderer never looks for a file itself (an installed copy has none beside it). A file that is
    missing or unreadable, or a section that does not check out, is a :class:`ThemeError` naming the
    file. The bot does not use this: ``bot.config.load_settings`` reads the whole file once.
    """
    if path is None:
        return builtin_config()
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ThemeError(_("config file {file} does not exist").format(file=file)) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        raise ThemeError(
            _("{file}: cannot be read: {error}").format(file=file, error=" ".join(str(exc).split()))
        ) from None
    section = data.get("render", {})
    if not isinstance(section, Mapping):
        raise ThemeError(_("{file}: render must be a table ([render])").format(file=file))
    try:
        return config_from_mapping(section)
    except ThemeError as exc:
        raise ThemeError(f"{file}: {exc}") from None


def _did_you_mean(key: str, known: Any) -> str:
    close = difflib.get_close_matches(key[:100], list(known), n=1)
    return _(" (did you mean {key}?)").format(key=key_text(close[0])) if close else ""


def _whole(where: str, key: str, value: Any, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ThemeError(
            _("{where} {key} must be {what}, not {value}").format(where=where, key=key, what=what, value=show(value))
        )
    return value


def _theme_table(name: str, table: Any, width: int) -> Theme:
    where = f"[render.themes.{key_text(name)}]"
    if not isinstance(table, Mapping):
        raise ThemeError(_("{where} must be a table of colours, not {value}").format(where=where, value=show(table)))
    overrides: dict[str, str] = {}
    for key, value in table.items():
        if key == "width":
            continue
        if key not in CLASSIC:
            raise ThemeError(
                _("{where} has no colour {key}{suggestion}").format(
                    where=where, key=show(key), suggestion=_did_you_mean(str(key), CLASSIC)
                )
            )
        if not isinstance(value, str) or not _COLOUR.fullmatch(value):
            raise ThemeError(
                _('{where} {key} must be a colour written "#rrggbb", not {value}').format(
                    where=where, key=key_text(key), value=show(value)
                )
            )
        overrides[key] = value
    own = _whole(where, "width", table.get("width", width), MIN_WIDTH, MAX_WIDTH, _width_text())
    return Theme.build(name, overrides, width=own)


def _width_text() -> str:
    # Translators: completes "[render] width must be ..., not 5".
    return _("a whole number of pixels from {low} to {high}").format(low=MIN_WIDTH, high=MAX_WIDTH)


def config_from_mapping(section: Mapping[str, Any]) -> RenderConfig:
    """A :class:`RenderConfig` from the parsed ``[render]`` table, checked key by key.

    Themes named in it are added to, or replace, the built-in ones, each starting from the classic
    colours. Anything unknown or out of range is a :class:`ThemeError` with a one-line message naming
    the key.
    """
    if not isinstance(section, Mapping):
        raise ThemeError(_("[render] must be a table, not {value}").format(value=show(section)))
    for key in section:
        if key not in RENDER_KEYS:
            raise ThemeError(
                _("[render] has no setting {key}{suggestion}").format(
                    key=show(key), suggestion=_did_you_mean(str(key), RENDER_KEYS)
                )
            )
    width = _whole("[render]", "width", section.get("width", DEFAULT_WIDTH), MIN_WIDTH, MAX_WIDTH, _width_text())
    level = _whole(
        "[render]",
        "compress_level",
        section.get("compress_level", 1),
        0,
        MAX_COMPRESS_LEVEL,
        # Translators: completes "[render] compress_level must be ..., not 12".
        _("a whole number from 0 to 9"),
    )
    colors = section.get("palette_colors", 0)
    if (
        isinstance(colors, bool)
        or not isinstance(colors, int)
        or not (colors == 0 or 2 <= colors <= MAX_PALETTE_COLORS)
    ):
        raise ThemeError(
            _("[render] palette_colors must be 0 (full colour) or a whole number from 2 to 256, not {value}").format(
                value=show(colors)
            )
        )
    themes = dict(builtin_config(width).themes)
    raw_themes = section.get("themes", {})
    if not isinstance(raw_themes, Mapping):
        raise ThemeError(
            _("[render] themes must be a table of themes ([render.themes.NAME]), not {value}").format(
                value=show(raw_themes)
            )
        )
    for name, table in raw_themes.items():
        if name == DEFAULT_NAME:
            raise ThemeError(_("[render.themes] a theme cannot be called 'default': a player's setting uses that word"))
        if not isinstance(name, str) or not _THEME_NAME.fullmatch(name):
            raise ThemeError(
                _("[render.themes] theme name {name} must be 1 to 32 lower-case letters, digits, '-' or '_'").format(
                    name=show(name)
                )
            )
        themes[name] = _theme_table(name, table, width)
    default = section.get("theme", DEFAULT_THEME)
    if not isinstance(default, str) or default not in themes:
        raise ThemeError(
            _("[render] theme must name a theme ({names}), not {value}").format(
                names=", ".join(sorted(themes)), value=show(default)
            )
        )
    return RenderConfig(themes, default, level, colors)
