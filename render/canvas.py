"""The drawing toolkit every picture shares: a :class:`Canvas`, and the text primitives that make a label fit its room.

Labels are translated, so their length is not known in advance. Whatever is drawn in a box of its own is made to fit
it here, measured in the board font (:func:`render.fonts.font`, with its fallbacks for the scripts it lacks):

* :func:`ellipsize`: cut short with "…" (unchanged if it fits);
* :func:`fit`: a smaller size first, down to a least one, then cut short;
* :func:`wrap`: words (or items) in lines at most so wide, greedily;
* :meth:`Canvas.name`: a name on one line, smaller, else on two lines, else cut short.

Each primitive has a form that takes the measure itself (``shrink``, ``ellipsize_by``, ``wrap``), so a canvas drawn in
its own units (the match card's) measures the same way. Pure and thread-safe, like :mod:`render.fonts`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from PIL import Image, ImageDraw

from .fonts import font, text_width
from .theme import RGB, Theme

__all__ = [
    "Canvas",
    "NAME_SMALLEST",
    "NAME_TWO_LINES",
    "ellipsize",
    "ellipsize_by",
    "fit",
    "measure",
    "shrink",
    "two_lines",
    "wrap",
]

#: A name is set down to this size on one line before it takes two lines, set from that size down to the next.
NAME_SMALLEST = 18
NAME_TWO_LINES = 13

Measure = Callable[[str], float]
S = TypeVar("S", int, float)


def measure(size: int) -> Measure:
    """The width of a text in the board font at ``size`` pixels, as a function of the text."""
    return lambda text: text_width(text, size)


def ellipsize_by(text: str, limit: float, width: Measure, *, strip: bool = True) -> str:
    """``text`` cut short with "…" so that ``width`` of it is at most ``limit`` (unchanged if it fits). ``strip``
    drops the spaces before the "…" (a replay's caption keeps them)."""
    if width(text) <= limit:
        return text
    while text and width(text + "…") > limit:
        text = text[:-1]
    return (text.rstrip() if strip else text) + "…"


def ellipsize(text: str, size: int, limit: float) -> str:
    """``text`` at ``size`` cut short with "…" so that it is at most ``limit`` pixels wide (unchanged if it fits)."""
    return ellipsize_by(text, limit, measure(size))


def shrink(text: str, limit: float, size: S, least: S, width: Callable[[str, S], float], step: S) -> S:
    """The size, from ``size`` down to ``least`` by ``step``, at which ``width`` of ``text`` is at most ``limit``
    (``least`` if none is)."""
    while size > least and width(text, size) > limit:
        size = max(least, size - step)
    return size


def fit(text: str, max_width: float, size: int, least: int | None = None) -> tuple[str, int]:
    """``text`` and the size to draw it at so that it is at most ``max_width`` pixels wide: ``size`` when it fits,
    else the largest size down to ``least`` (default: ``size``, no shrinking) at which it fits, else cut with an
    ellipsis at ``least``."""
    least = size if least is None else min(least, size)
    size = shrink(text, max_width, size, least, text_width, 1)
    return ellipsize(text, size, max_width), size


def wrap(text: str, limit: float, width: Measure, *, sep: str = " ", most: int | None = None) -> list[str]:
    """``text`` in lines at most ``limit`` wide (as ``width`` measures), greedily: its words (or, with ``sep``, its
    items: "a · b · c"), as many on a line as fit. A word wider than that has a line of its own. With ``most``, the
    items that do not fit in that many lines go on the last one (for the caller to cut short)."""
    lines: list[str] = []
    for word in text.split() if sep == " " else text.split(sep):
        if lines and (width(lines[-1] + sep + word) <= limit or len(lines) == most):
            lines[-1] += sep + word
        else:
            lines.append(word)
    return lines


def _breaks(text: str) -> list[int]:
    """Where a name breaks between words: at a space, or after a hyphen."""
    return [i for i, ch in enumerate(text) if ch == " " or (i and text[i - 1] == "-" and ch != " ")]


def two_lines(text: str, splits: Iterable[int], width: Measure) -> tuple[str, str] | None:
    """``text`` cut in two before one of ``splits`` (a space there is dropped) so that the longer line is shortest."""
    best: tuple[float, str, str] | None = None
    for i in splits:
        first, second = (text[:i], text[i + 1 :]) if text[i] == " " else (text[:i], text[i:])
        longer = max(width(first), width(second))
        if best is None or longer < best[0]:
            best = (longer, first, second)
    return None if best is None else (best[1], best[2])


class Canvas:
    """A picture being drawn in a theme's colours, in units of ``scale`` pixels (1: pixels), with text fitted to
    its room. ``smallest`` is the least font size in pixels, ``step`` how much a label that does not fit is set
    smaller at a time (in units), ``mode`` the drawing mode ("RGBA" blends colours with an alpha over the picture)."""

    def __init__(
        self,
        theme: Theme,
        width: int,
        height: int,
        *,
        scale: float = 1.0,
        smallest: int = 1,
        step: float = 1,
        mode: str | None = None,
    ) -> None:
        self.t = theme
        self.width = width
        self.height = height
        self.k = scale
        self.smallest = smallest
        self.step = step
        self.im = Image.new("RGB", (width, height), theme.rgb("background"))
        self.draw = ImageDraw.Draw(self.im, mode)

    def p(self, v: float) -> int:
        """``v`` units in pixels."""
        return round(v * self.k)

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
        return self.p(x0), self.p(y0), self.p(x1) - 1, self.p(y1) - 1

    def rgb(self, key: str) -> RGB:
        return self.t.rgb(key)

    def text(self, xy: tuple[float, float], text: str, colour: RGB, size: float, anchor: str = "la") -> float:
        """Write ``text`` at ``size`` units; returns its width in units."""
        f = font(max(self.smallest, self.p(size)))
        self.draw.text((self.p(xy[0]), self.p(xy[1])), text, fill=colour, font=f, anchor=anchor)
        return f.getlength(text) / self.k

    def length(self, text: str, size: float) -> float:
        """The width of ``text`` at ``size``, in units."""
        return font(max(self.smallest, self.p(size))).getlength(text) / self.k

    def measure(self, size: float) -> Measure:
        """The width of a text at ``size``, in units, as a function of the text."""
        return lambda text: self.length(text, size)

    def fit(self, text: str, size: float, limit: float) -> str:
        """``text`` cut short with an ellipsis so it is at most ``limit`` units wide."""
        return ellipsize_by(text, limit, self.measure(size))

    def fitted(self, text: str, size: float, limit: float, least: float = 14) -> tuple[str, float]:
        """``text`` and a size for it at most ``limit`` units wide: the size shrinks by the canvas's ``step`` (to
        ``least``) before the text is cut short (a label in a language that needs more letters)."""
        size = shrink(text, limit, size, least, self.length, self.step)
        return self.fit(text, size, limit), size

    def wrap(self, text: str, size: float, limit: float) -> list[str]:
        """``text``'s words in lines at most ``limit`` units wide at ``size``."""
        return wrap(text, limit, self.measure(size))

    def name(self, xy: tuple[float, float], text: str, colour: RGB, room: float, size: int = 26) -> list[str]:
        """A name drawn left-aligned on the line through ``xy``, within ``room`` units: at ``size`` if it fits, else
        smaller, else on two lines (at a space or after a hyphen, else between two letters, wherever the longer line is
        shortest), set from :data:`NAME_SMALLEST` down to :data:`NAME_TWO_LINES`, else cut short. Returns the lines
        drawn."""
        x, y = xy
        for s in range(size, NAME_SMALLEST - 1, -1):
            if self.length(text, s) <= room:
                self.text((x, y), text, colour, s, "lm")
                return [text]
        text = " ".join(text.split())
        for splits in (_breaks(text), range(1, len(text))):
            for s in range(NAME_SMALLEST, NAME_TWO_LINES - 1, -1):
                lines = two_lines(text, splits, self.measure(s))
                if lines is not None and max(self.length(line, s) for line in lines) <= room:
                    return self._two(x, y, lines, colour, s, room)
        lines = two_lines(text, range(1, len(text)), self.measure(NAME_TWO_LINES)) or (text, "")
        return self._two(x, y, lines, colour, NAME_TWO_LINES, room)

    def _two(self, x: float, y: float, lines: tuple[str, str], colour: RGB, size: int, room: float) -> list[str]:
        gap = round(size * 0.56)
        shown = [self.fit(lines[0], size, room), self.fit(lines[1], size, room)]
        self.text((x, y - gap), shown[0], colour, size, "lm")
        self.text((x, y + gap), shown[1], colour, size, "lm")
        return shown
