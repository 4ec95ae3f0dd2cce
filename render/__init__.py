"""Board images: a pure function from a board snapshot to a PNG plus a one-line text alternative.

    from render import render_board
    board = render_board(snapshot)          # RenderedBoard(png, width, height, alt_text)

Themes (colours, width) come from the ``[render]`` section of config.toml (:mod:`render.theme`):
``render_board(snapshot, get_theme("high-contrast"))``. Rendering is pure and thread-safe; run it in a
worker thread (``asyncio.to_thread``) so the event loop never waits on Pillow.
"""

from .board import RenderedBoard, default_theme, encode_png, get_theme, layout_for, render_board, render_image
from .text import board_text
from .theme import Theme, load_config

__all__ = [
    "RenderedBoard",
    "Theme",
    "board_text",
    "default_theme",
    "encode_png",
    "get_theme",
    "layout_for",
    "load_config",
    "render_board",
    "render_image",
]
