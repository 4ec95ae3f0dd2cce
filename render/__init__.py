"""Board images: a pure function from a board snapshot to a PNG plus a one-line text alternative.

    from render import render_board
    board = render_board(snapshot)          # RenderedBoard(png, width, height, alt_text)

Themes (colours, width) and PNG settings are a :class:`~render.theme.RenderConfig`. The renderer reads
no file: by itself it draws with the built-in ``classic`` and ``high-contrast`` themes
(``render_board(snapshot, get_theme("high-contrast"))``). The bot reads the ``[render]`` section of its
config.toml once (``bot.config.load_settings``) and draws with that:
``render_board(snapshot, "high-contrast", config=settings.render_config())``. Rendering is pure and thread-safe;
run it in a worker thread (``asyncio.to_thread``) so the event loop never waits on Pillow.

Labels and text alternatives are in the active language of :mod:`engine.i18n` (a worker thread started with
``asyncio.to_thread`` keeps the request's; a board posted in a game thread is drawn inside ``i18n.shared()``).
``python -m render.gallery OUTDIR`` draws every rule set's boards, a match card and replay frames in every language.
"""

from .board import RenderedBoard, default_theme, encode_png, get_theme, layout_for, render_board, render_image
from .text import board_text
from .theme import RenderConfig, Theme, builtin_config, load_config

__all__ = [
    "RenderConfig",
    "RenderedBoard",
    "Theme",
    "board_text",
    "builtin_config",
    "default_theme",
    "encode_png",
    "get_theme",
    "layout_for",
    "load_config",
    "render_board",
    "render_image",
]
