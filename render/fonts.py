"""The one font boards use: DejaVu Sans Bold, shipped in ``render/fonts`` with its licence.

DejaVu (Bitstream Vera licence, DejaVu changes public domain; see ``fonts/DejaVu-LICENSE.txt``) is
copied from Debian's ``fonts-dejavu-core``, so rendering never depends on the machine's fonts. If the file
is missing (a packaging mistake), Pillow's bundled font is used instead.

Font objects are kept per thread: renders in different worker threads never share one.

Labels are translated (``engine.i18n``), so their length is not known in advance: whatever is drawn in a box of its
own goes through :func:`fit` (a smaller size first, down to a least one, then cut with an ellipsis), and every
measure is the font's own (:func:`text_width`). :func:`caps` writes a label in capitals the way its language does
(Turkish dotted İ, Greek capitals without accents).
"""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

from engine import i18n

__all__ = ["FONT_PATH", "font", "text_width", "ellipsize", "fit", "caps"]

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


@lru_cache(maxsize=4096)
def text_width(text: str, size: int) -> float:
    """The advance width of ``text`` in the board font at ``size`` pixels (cached: the key is the text itself, so a
    label in one language is never measured as another's)."""
    return font(size).getlength(text)


def ellipsize(text: str, size: int, limit: float) -> str:
    """``text`` at ``size`` cut short with "…" so that it is at most ``limit`` pixels wide (unchanged if it fits)."""
    if text_width(text, size) <= limit:
        return text
    while text and text_width(text + "…", size) > limit:
        text = text[:-1]
    return text.rstrip() + "…"


def fit(text: str, max_width: float, size: int, least: int | None = None) -> tuple[str, int]:
    """``text`` and the size to draw it at so that it is at most ``max_width`` pixels wide: ``size`` when it fits,
    else the largest size down to ``least`` (default: ``size``, no shrinking) at which it fits, else cut with an
    ellipsis at ``least``."""
    least = size if least is None else min(least, size)
    while size > least and text_width(text, size) > max_width:
        size -= 1
    return ellipsize(text, size, max_width), size


_GREEK_ACCENTS = frozenset("\u0300\u0301\u0313\u0314\u0342\u0345")


def _greek(c: str) -> bool:
    return "\u0370" <= c <= "\u03ff" or "\u1f00" <= c <= "\u1fff"


def caps(text: str, lang: str | None = None) -> str:
    """``text`` in capitals as ``lang`` (default: the active language) writes them: Turkish i/ı become İ/I, and
    Greek capitals drop their accents (ΚΡΌΦΟΡΝΤ is written ΚΡΟΦΟΡΝΤ; a diaeresis stays; other letters keep theirs)."""
    lang = lang or i18n.language()
    if lang == "tr":
        text = text.replace("i", "İ").replace("ı", "I")
    upper = text.upper()
    if not any(_greek(c) for c in upper):
        return upper
    out: list[str] = []
    base = ""
    for c in unicodedata.normalize("NFD", upper):
        if unicodedata.combining(c):
            if c in _GREEK_ACCENTS and _greek(base):
                continue
        else:
            base = c
        out.append(c)
    return unicodedata.normalize("NFC", "".join(out))
