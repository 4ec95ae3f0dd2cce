"""The one font boards use: DejaVu Sans Bold, shipped in ``render/fonts`` with its licence, and the fallbacks that
draw what it has no glyph for (a player's name in Chinese, Japanese or Korean, an emoji).

DejaVu (Bitstream Vera licence, DejaVu changes public domain; see ``fonts/DejaVu-LICENSE.txt``) is
copied from Debian's ``fonts-dejavu-core``, so rendering never depends on the machine's fonts. If the file
is missing (a packaging mistake), Pillow's bundled font is used instead. The fallbacks, tried in order for each
character DejaVu lacks: Droid Sans Fallback (Chinese, Japanese, Korean; Apache 2.0, ``fonts/Droid-LICENSE.txt``) and
Symbola (symbols and emoji, drawn in the text's colour; free for any use, ``fonts/Symbola-LICENSE.txt``), both from
Debian's packages. A character none of them has is drawn as DejaVu's replacement character (never an empty box);
invisible joiners and variation selectors are left out. :func:`font` gives a font that does all this by itself
(measuring and drawing, anchors included), so every picture (boards, cards, brackets) shares it; text that DejaVu
covers is drawn exactly as before.

Font objects are kept per thread: renders in different worker threads never share one.

Labels are translated (``engine.i18n``), so their length is not known in advance: whatever is drawn in a box of its
own is made to fit it by :mod:`render.canvas` (a smaller size first, down to a least one, then cut with an ellipsis;
lines wrapped to a width), and every measure is the font's own (:func:`font`, :func:`text_width`). :func:`caps`
writes a label in capitals the way its language does (Turkish dotted İ, Greek capitals without accents).
"""

from __future__ import annotations

import math
import struct
import threading
import unicodedata
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageFont

from engine import i18n

__all__ = ["FONT_PATH", "font", "text_width", "caps"]

FONT_PATH = Path(__file__).resolve().parent / "fonts" / "DejaVuSans-Bold.ttf"
#: The fonts tried, in order, for a character the board font has no glyph for.
FALLBACK_PATHS = (
    Path(__file__).resolve().parent / "fonts" / "DroidSansFallback.ttf",
    Path(__file__).resolve().parent / "fonts" / "Symbola.ttf",
)
#: What is drawn for a character no font has.
REPLACEMENT = "\ufffd"

_local = threading.local()
_cmap_lock = threading.Lock()

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def font(size: int) -> ImageFont.FreeTypeFont:
    """The board font at ``size`` pixels (with its fallbacks: :class:`FallbackFont`), cached for the calling
    thread."""
    cache: dict[int, ImageFont.FreeTypeFont] | None = getattr(_local, "fonts", None)
    if cache is None:
        cache = {}
        _local.fonts = cache
    f = cache.get(size)
    if f is None:
        if FONT_PATH.exists():
            f = FallbackFont(size)
        else:  # pragma: no cover - only when the shipped font file is missing
            fallback = ImageFont.load_default(size)
            assert isinstance(fallback, ImageFont.FreeTypeFont)
            f = fallback
        cache[size] = f
    return f


@cache
def covered(path: Path) -> frozenset[int]:
    """The characters a TrueType font has glyphs for (read from its ``cmap`` table: formats 4 and 12)."""
    with _cmap_lock:
        return _read_cmap(path.read_bytes()) if path.exists() else frozenset()


def _read_cmap(data: bytes) -> frozenset[int]:
    tables = struct.unpack_from(">H", data, 4)[0]
    cmap = next(
        (struct.unpack_from(">I", data, 12 + 16 * i + 8)[0] for i in range(tables) if data[12 + 16 * i : 16 + 16 * i]
         == b"cmap"),
        None,
    )  # fmt: skip
    if cmap is None:
        return frozenset()
    out: set[int] = set()
    count = struct.unpack_from(">H", data, cmap + 2)[0]
    for k in range(count):
        platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * k)
        if platform not in (0, 3):
            continue
        at = cmap + offset
        kind = struct.unpack_from(">H", data, at)[0]
        if kind == 4:
            segments = struct.unpack_from(">H", data, at + 6)[0] // 2
            ends = struct.unpack_from(f">{segments}H", data, at + 14)
            starts = struct.unpack_from(f">{segments}H", data, at + 16 + 2 * segments)
            deltas = struct.unpack_from(f">{segments}h", data, at + 16 + 4 * segments)
            ranges_at = at + 16 + 6 * segments
            ranges = struct.unpack_from(f">{segments}H", data, ranges_at)
            for i, (first, last) in enumerate(zip(starts, ends, strict=True)):
                for c in range(first, min(last, 0xFFFE) + 1):
                    if ranges[i] == 0:
                        glyph = (c + deltas[i]) & 0xFFFF
                    else:
                        where = ranges_at + 2 * i + ranges[i] + 2 * (c - first)
                        glyph = struct.unpack_from(">H", data, where)[0]
                        glyph = (glyph + deltas[i]) & 0xFFFF if glyph else 0
                    if glyph:
                        out.add(c)
        elif kind == 12:
            groups = struct.unpack_from(">I", data, at + 12)[0]
            for g in range(groups):
                first, last, glyph = struct.unpack_from(">III", data, at + 16 + 12 * g)
                out.update(range(first, last + 1) if glyph else range(first + 1, last + 1))
    return frozenset(out)


def _ignorable(c: str) -> bool:
    """Characters that are not drawn: joiners, variation selectors, tags, bidi marks."""
    o = ord(c)
    return (
        0x200B <= o <= 0x200F or 0x2060 <= o <= 0x2064 or 0xFE00 <= o <= 0xFE0F or 0xE0000 <= o <= 0xE0FFF
        or o == 0x034F or 0x202A <= o <= 0x202E
    )  # fmt: skip


class FallbackFont(ImageFont.FreeTypeFont):
    """DejaVu Sans Bold at one size, drawing each character it lacks with the first fallback font that has it.

    Text DejaVu covers takes Pillow's own path (the same pixels as before); other text is laid out as runs, one
    font each, on a common baseline, and measured, boxed and drawn as one line with the anchor asked for."""

    def __init__(self, size: int) -> None:
        super().__init__(str(FONT_PATH), size, layout_engine=ImageFont.Layout.BASIC)
        self._fallbacks: list[ImageFont.FreeTypeFont | None] = [None] * len(FALLBACK_PATHS)

    def _fallback(self, k: int) -> ImageFont.FreeTypeFont:
        f = self._fallbacks[k]
        if f is None:
            f = ImageFont.truetype(str(FALLBACK_PATHS[k]), self.size, layout_engine=ImageFont.Layout.BASIC)
            self._fallbacks[k] = f
        return f

    def runs(self, text: str) -> list[tuple[ImageFont.FreeTypeFont, str]] | None:
        """``text`` cut into (font, text) runs; None when the board font draws all of it."""
        mine = covered(FONT_PATH)
        if all(ord(c) in mine or c in "\n\r\t" for c in text):
            return None
        out: list[tuple[int, str]] = []
        for c in text:
            if _ignorable(c):
                continue
            o = ord(c)
            k = -1
            if o not in mine:
                k = next((i for i, path in enumerate(FALLBACK_PATHS) if o in covered(path)), -2)
                if k == -2:
                    k, c = -1, REPLACEMENT
            if out and out[-1][0] == k:
                out[-1] = (k, out[-1][1] + c)
            else:
                out.append((k, c))
        return [(self if k == -1 else self._fallback(k), part) for k, part in out]

    def getlength(self, text: Any, mode: str = "", *args: Any, **kwargs: Any) -> float:
        runs = self.runs(text) if isinstance(text, str) else None
        if runs is None:
            return super().getlength(text, mode, *args, **kwargs)
        return sum(ImageFont.FreeTypeFont.getlength(f, part, mode) for f, part in runs)

    def _anchor(self, anchor: str | None, width: float, box: tuple[float, float, float, float]) -> tuple[float, float]:
        """Where the anchor point lies, from the origin at the left end of the baseline."""
        anchor = anchor or "la"
        ascent, descent = self.getmetrics()
        x = {"l": 0.0, "m": width / 2, "r": width}.get(anchor[0], 0.0)
        y = {"a": -ascent, "m": (descent - ascent) / 2, "s": 0.0, "d": descent, "t": box[1], "b": box[3]}
        return x, y.get(anchor[1], -ascent)

    def getbbox(self, text: Any, mode: str = "", *args: Any, **kwargs: Any) -> tuple[float, float, float, float]:
        runs = self.runs(text) if isinstance(text, str) else None
        if runs is None:
            return super().getbbox(text, mode, *args, **kwargs)
        anchor = kwargs.get("anchor", args[5] if len(args) > 5 else None)
        x = 0.0
        box = [math.inf, math.inf, -math.inf, -math.inf]
        for f, part in runs:
            left, top, right, bottom = ImageFont.FreeTypeFont.getbbox(f, part, mode, anchor="ls")
            box = [min(box[0], x + left), min(box[1], top), max(box[2], x + right), max(box[3], bottom)]
            x += ImageFont.FreeTypeFont.getlength(f, part, mode)
        ax, ay = self._anchor(anchor, x, (box[0], box[1], box[2], box[3]))
        return (box[0] - ax, box[1] - ay, box[2] - ax, box[3] - ay)

    def getmask2(self, text: Any, mode: str = "", *args: Any, **kwargs: Any) -> tuple[Any, tuple[int, int]]:
        runs = self.runs(text) if isinstance(text, str) else None
        if runs is None:
            return super().getmask2(text, mode, *args, **kwargs)
        names = ("direction", "features", "language", "stroke_width", "anchor", "ink", "start")
        given = dict(zip(names, args, strict=False)) | {k: v for k, v in kwargs.items() if k in names}
        stroke = given.get("stroke_width", 0) or 0
        ink = given.get("ink", 0) or 0
        pieces: list[tuple[Image.Image, int, int]] = []
        x = 0.0
        for f, part in runs:
            core, (ox, oy) = ImageFont.FreeTypeFont.getmask2(f, part, mode, None, None, None, stroke, "ls", ink)
            pieces.append((Image.Image()._new(core), math.floor(x) + ox, oy))
            x += ImageFont.FreeTypeFont.getlength(f, part, mode)
        left = min(px for _im, px, _py in pieces)
        top = min(py for _im, _px, py in pieces)
        right = max(px + im.width for im, px, _py in pieces)
        bottom = max(py + im.height for im, _px, py in pieces)
        out = Image.new("RGBA" if mode == "RGBA" else "L", (max(1, right - left), max(1, bottom - top)), 0)
        for im, px, py in pieces:
            if im.width and im.height:
                if mode == "RGBA":
                    out.alpha_composite(im.convert("RGBA"), (px - left, py - top))
                else:
                    out.paste(255, (px - left, py - top, px - left + im.width, py - top + im.height), im.convert("L"))
        ax, ay = self._anchor(given.get("anchor"), x, (left, top, right, bottom))
        return out.im, (math.floor(left - ax), math.floor(top - ay))


@lru_cache(maxsize=4096)
def text_width(text: str, size: int) -> float:
    """The advance width of ``text`` in the board font at ``size`` pixels (cached: the key is the text itself, so a
    label in one language is never measured as another's)."""
    return font(size).getlength(text)


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
