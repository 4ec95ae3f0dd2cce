"""The one font boards use: DejaVu Sans Bold, shipped in ``render/fonts`` with its licence.

DejaVu (Bitstream Vera licence, DejaVu changes public domain; see ``fonts/DejaVu-LICENSE.txt``) is
copied from Debian's ``fonts-dejavu-core``, so rendering never depends on the machine's fonts. If the file
is missing (a packaging mistake), Pillow's bundled font is used instead.

Font objects are kept per thread: renders in different worker threads never share one.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PIL import ImageFont

__all__ = ["FONT_PATH", "font"]

FONT_PATH = Path(__file__).resolve().parent / "fonts" / "DejaVuSans-Bold.ttf"

_local = threading.local()

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def font(size: int) -> ImageFont.FreeTypeFont:
    """The board font at ``size`` pixels, cached for the calling thread."""
    cache: dict[int, ImageFont.FreeTypeFont] | None = getattr(_local, "fonts", None)
    if cache is None:
        cache = {}
        _local.fonts = cache
    f = cache.get(size)
    if f is None:
        if FONT_PATH.exists():
            f = ImageFont.truetype(str(FONT_PATH), size, layout_engine=ImageFont.Layout.BASIC)
        else:  # pragma: no cover - only when the shipped font file is missing
            fallback = ImageFont.load_default(size)
            assert isinstance(fallback, ImageFont.FreeTypeFont)
            f = fallback
        cache[size] = f
    return f
