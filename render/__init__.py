"""Board images: a pure function from a board snapshot to a PNG plus a one-line text alternative.

    from render import render_board
    board = render_board(snapshot)          # RenderedBoard(png, width, height, alt_text)

Themes (colours, width) come from the ``[render]`` section of config.toml (:mod:`render.theme`).
"""

from .board import RenderedBoard, default_theme, encode_png, layout_for, render_board, render_image
from .text import board_text
from .theme import Theme, load_config

__all__ = [
    "RenderedBoard",
    "Theme",
    "board_text",
    "default_theme",
    "encode_png",
    "layout_for",
    "load_config",
    "render_board",
    "render_image",
]
