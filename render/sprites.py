"""Pieces drawn once and reused: the static board and small RGBA sprites (checkers, dice, cube, markers).

Everything here is drawn at a larger scale and shrunk, so edges are smooth. Results are cached per theme
and size (``functools.lru_cache``) and are never modified afterwards: a render copies the static board
and pastes sprites onto the copy, so concurrent renders share nothing mutable.

Nothing cached here is translated by the cache itself: the sprites without text (checkers, dice, the static board
with its point numbers) are the same in every language, and those with text (:func:`text_mask`,
:func:`vertical_label`, :func:`cube`) take the text, already translated by the caller, as part of their key. So a
picture drawn for one language is never handed out for another.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.snapshot import Colour

from .canvas import ellipsize
from .fonts import font, text_width
from .layout import Layout
from .theme import RGB, Theme

__all__ = [
    "static_board",
    "checker",
    "checker_icon",
    "die",
    "spent_die",
    "cube",
    "ring",
    "ghost",
    "hit_badge",
    "pin_badge",
    "vertical_label",
    "text_mask",
    "text_length",
]

SS = 4  # supersampling factor for sprites

RGBA = tuple[int, int, int, int]


def _shrink(im: Image.Image, size: tuple[int, int]) -> Image.Image:
    out = im.resize(size, Image.Resampling.LANCZOS)
    out.load()
    return out


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


@lru_cache(maxsize=64)
def checker(theme: Theme, colour: Colour, d: int) -> Image.Image:
    """A checker seen from above: a disc with a rim and an inner ring."""
    big = d * SS
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    face = theme.rgb(f"checker {colour}")
    edge = theme.rgb(f"checker {colour} edge")
    inset = SS  # one pixel of air between neighbours
    draw.ellipse((inset, inset, big - inset - 1, big - inset - 1), fill=edge)
    rim = max(SS, round(big * 0.06))
    draw.ellipse((inset + rim, inset + rim, big - inset - rim - 1, big - inset - rim - 1), fill=face)
    ring = round(big * 0.2)
    ring_colour = _mix(face, edge, 0.35)
    draw.ellipse((ring, ring, big - ring - 1, big - ring - 1), outline=ring_colour, width=max(SS, round(big * 0.035)))
    return _shrink(im, (d, d))


@lru_cache(maxsize=16)
def checker_icon(theme: Theme, colour: Colour, size: int) -> Image.Image:
    """A small checker for the name rows."""
    return checker(theme, colour, size)


def _pip_spots(value: int) -> list[tuple[float, float]]:
    lo, mid, hi = 0.27, 0.5, 0.73
    spots = {
        1: [(mid, mid)],
        2: [(lo, lo), (hi, hi)],
        3: [(lo, lo), (mid, mid), (hi, hi)],
        4: [(lo, lo), (hi, lo), (lo, hi), (hi, hi)],
        5: [(lo, lo), (hi, lo), (mid, mid), (lo, hi), (hi, hi)],
        6: [(lo, lo), (hi, lo), (lo, mid), (hi, mid), (lo, hi), (hi, hi)],
    }
    return spots[value]


@lru_cache(maxsize=64)
def die(theme: Theme, colour: Colour, value: int, size: int) -> Image.Image:
    """A die showing ``value`` in the colours of the ``colour`` player."""
    big = size * SS
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    face = theme.rgb(f"die {colour}")
    pip = theme.rgb(f"die {colour} pip")
    edge = _mix(face, (0, 0, 0), 0.45) if sum(face) > 300 else _mix(face, (255, 255, 255), 0.55)
    radius = round(big * 0.18)
    draw.rounded_rectangle((SS, SS, big - SS - 1, big - SS - 1), radius, fill=edge)
    w = max(SS, round(big * 0.05))
    draw.rounded_rectangle((SS + w, SS + w, big - SS - w - 1, big - SS - w - 1), radius - w, fill=face)
    r = big * 0.085
    for fx, fy in _pip_spots(value):
        cx, cy = fx * big, fy * big
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=pip)
    return _shrink(im, (size, size))


@lru_cache(maxsize=32)
def spent_die(theme: Theme, colour: Colour, value: int, size: int) -> Image.Image:
    """A die whose number has been played this turn: the die, faint."""
    im = die(theme, colour, value, size).copy()
    im.putalpha(im.getchannel("A").point(lambda a: a * 3 // 10))
    return im


@lru_cache(maxsize=64)
def cube(theme: Theme, text: str, size: int, outline: RGB | None = None) -> Image.Image:
    """The doubling cube showing ``text`` (its value), optionally outlined (an offered cube)."""
    pad = max(2, size // 10) if outline else 0
    full = size + 2 * pad
    big = full * SS
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    radius = round(size * SS * 0.16)
    if outline:
        draw.rounded_rectangle((0, 0, big - 1, big - 1), radius + pad * SS, fill=outline)
    face = theme.rgb("cube")
    ink = theme.rgb("cube text")
    o = pad * SS
    draw.rounded_rectangle((o, o, o + size * SS - 1, o + size * SS - 1), radius, fill=_mix(face, ink, 0.55))
    w = max(SS, round(size * SS * 0.05))
    draw.rounded_rectangle((o + w, o + w, o + size * SS - w - 1, o + size * SS - w - 1), radius - w, fill=face)
    fsize = round(size * SS * (0.56 if len(text) <= 2 else 0.42 if len(text) == 3 else 0.32))
    draw.text((big / 2, big / 2), text, fill=ink, font=font(fsize), anchor="mm")
    return _shrink(im, (full, full))


@lru_cache(maxsize=32)
def vertical_label(theme: Theme, text: str, width: int, length: int) -> Image.Image:
    """``text`` written bottom to top on a rounded plate ``width`` x ``length`` (the bar's Crawford tag)."""
    big_w, big_l = width * SS, length * SS
    im = Image.new("RGBA", (big_l, big_w), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.rounded_rectangle((0, 0, big_l - 1, big_w - 1), big_w // 4, fill=theme.rgb("cube unavailable"))
    fsize = round(big_w * 0.5)
    f = font(fsize)
    while fsize > SS * 6 and f.getlength(text) > big_l * 0.9:
        fsize -= SS
        f = font(fsize)
    text = ellipsize(text, fsize, big_l * 0.9)  # a long word in another language: cut, never over the plate's ends
    draw.text((big_l / 2, big_w / 2), text, fill=theme.rgb("cube text"), font=f, anchor="mm")
    return _shrink(im.rotate(90, expand=True), (width, length))


@lru_cache(maxsize=32)
def ring(colour: RGB, d: int) -> Image.Image:
    """A ring around a checker (the last play's arrivals)."""
    big = d * SS
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    w = max(2 * SS, round(big * 0.1))
    draw.ellipse((0, 0, big - 1, big - 1), outline=(*colour, 255), width=w)
    return _shrink(im, (d, d))


@lru_cache(maxsize=32)
def ghost(theme: Theme, colour: Colour, d: int) -> Image.Image:
    """Where a checker left from: a faint, smaller checker with a dashed rim in the highlight colour."""
    big = d * SS
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    face = theme.rgb(f"checker {colour}")
    inset = round(big * 0.1)
    draw.ellipse((inset, inset, big - inset - 1, big - inset - 1), fill=(*face, 110))
    accent = theme.rgb("highlight")
    w = max(2 * SS, round(big * 0.06))
    for start in range(0, 360, 45):
        draw.arc((inset, inset, big - inset - 1, big - inset - 1), start, start + 30, fill=(*accent, 255), width=w)
    return _shrink(im, (d, d))


@lru_cache(maxsize=32)
def hit_badge(theme: Theme, size: int) -> Image.Image:
    """A small round badge with a cross: a checker was hit here."""
    big = size * SS
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.ellipse((0, 0, big - 1, big - 1), fill=(*theme.rgb("hit"), 255))
    w = max(SS, round(big * 0.14))
    a, b = big * 0.3, big * 0.7
    white = (255, 255, 255, 255)
    draw.line((a, a, b, b), fill=white, width=w)
    draw.line((a, b, b, a), fill=white, width=w)
    return _shrink(im, (size, size))


@lru_cache(maxsize=32)
def pin_badge(theme: Theme, size: int) -> Image.Image:
    """A small round badge with a pushpin (Plakoto): this checker pinned the one under it. Not the hit badge's red
    cross: a pinner captures nothing."""
    big = size * SS
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    ink = (*theme.rgb("frame edge"), 255)
    draw.ellipse((0, 0, big - 1, big - 1), fill=(*theme.rgb("highlight"), 255), outline=ink, width=max(1, SS))
    cx = big / 2
    head = big * 0.2
    top = big * 0.18
    draw.ellipse((cx - head, top, cx + head, top + 2 * head), fill=ink)  # the pin's head
    w = max(SS, round(big * 0.1))
    draw.line((cx - head * 1.4, top + 2 * head, cx + head * 1.4, top + 2 * head), fill=ink, width=w)  # its collar
    draw.line((cx, top + 2 * head, cx, big * 0.86), fill=ink, width=w)  # the needle, down into the checker
    return _shrink(im, (size, size))


@lru_cache(maxsize=32)
def pin_head(theme: Theme, colour: Colour, d: int) -> Image.Image:
    """The head of a pin on a pinned checker: a small disc in the pinner's colours, ringed in the hit colour."""
    size = max(6, round(d * 0.46))
    big = size * SS
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.ellipse((0, 0, big - 1, big - 1), fill=(*theme.rgb("hit"), 255))
    w = max(SS, round(big * 0.16))
    draw.ellipse((w, w, big - w - 1, big - w - 1), fill=(*theme.rgb(f"checker {colour} edge"), 255))
    r = max(2 * SS, round(big * 0.24))
    draw.ellipse((r, r, big - r - 1, big - r - 1), fill=(*theme.rgb(f"checker {colour}"), 255))
    return _shrink(im, (size, size))


# --- the static board ---------------------------------------------------------------------------


def point_number_size(L: Layout) -> int:
    """The point numbers' size: as large as their row allows (about 10 pixels when an 840-wide board is shown 390
    wide on a phone), never below 9 pixels."""
    return max(9, min(round(L.d * 0.46), L.number_h - 2))


@lru_cache(maxsize=32)
def static_board(theme: Theme, layout: Layout) -> Image.Image:
    """Everything that never changes for a (theme, layout): frame, cloth, points, numbers, bar, trays.

    Cached; callers must copy it before drawing.
    """
    scale = 3
    L = layout
    W, H = L.width * scale, L.height * scale
    im = Image.new("RGB", (W, H), theme.rgb("background"))
    draw = ImageDraw.Draw(im)

    def box(r: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        return (r[0] * scale, r[1] * scale, r[2] * scale - 1, r[3] * scale - 1)

    for side in (0, 1):
        draw.rectangle(box(L.info_rect(side)), fill=theme.rgb("info"))
    board = (0, L.info_h, L.width, L.height - L.info_h)
    draw.rectangle(box(board), fill=theme.rgb("frame"), outline=theme.rgb("frame edge"), width=scale * 2)
    bar_rect = (L.bar_x, L.info_h + L.frame // 2, L.bar_x + L.bar_w, L.height - L.info_h - L.frame // 2)
    draw.rectangle(box(bar_rect), fill=theme.rgb("bar"), outline=theme.rgb("frame edge"), width=scale)
    edge_w = max(scale, scale * L.d // 40)
    for x0 in (L.left_x, L.right_x):
        half = (x0, L.field_top, x0 + 6 * L.point_w, L.field_bottom)
        draw.rectangle(box(half), fill=theme.rgb("field"))
    tri_len = round(L.d * 4.6)
    for point in range(1, 25):
        x = L.point_x(point) - L.point_w // 2
        c = L.column(point)
        colour = theme.rgb("point dark" if (c + (1 if L.is_top(point) else 0)) % 2 == 0 else "point light")
        inset = max(1, L.point_w // 24)
        xa, xb = (x + inset) * scale, (x + L.point_w - inset) * scale
        xm = (x + L.point_w / 2) * scale
        if L.is_top(point):
            y0, y1 = L.field_top * scale, (L.field_top + tri_len) * scale
        else:
            y0, y1 = L.field_bottom * scale, (L.field_bottom - tri_len) * scale
        draw.polygon([(xa, y0), (xb, y0), (xm, y1)], fill=colour)
    for x0 in (L.left_x, L.right_x):
        half = (x0, L.field_top, x0 + 6 * L.point_w, L.field_bottom)
        draw.rectangle(box(half), outline=theme.rgb("frame edge"), width=edge_w)
    for tray in L.trays:
        draw.rounded_rectangle(
            box(tray), radius=scale * L.d // 8, fill=theme.rgb("tray"), outline=theme.rgb("tray edge"), width=edge_w
        )
    im = im.resize((L.width, L.height), Image.Resampling.LANCZOS)

    draw = ImageDraw.Draw(im)
    f = font(point_number_size(L))
    ink = theme.rgb("point number")
    for point in range(1, 25):
        x = L.point_x(point)
        y = L.field_top - L.number_h // 2 if L.is_top(point) else L.field_bottom + L.number_h // 2
        draw.text((x, y), str(point), fill=ink, font=f, anchor="mm")
    im.load()
    return im


@lru_cache(maxsize=1024)
def text_mask(text: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """``text`` in the board font at ``size`` as a coverage mask, and where the mask's top-left corner lies
    relative to the ``anchor`` point: ``im.paste(colour, (x + dx, y + dy), mask)`` draws exactly the
    pixels of ``ImageDraw.text((x, y), text, colour, font(size), anchor)`` for whole-pixel x and y,
    without asking FreeType again for labels seen before (pips, scores, names, counts)."""
    f = font(size)
    box = f.getbbox(text, anchor=anchor)
    left, top = math.floor(box[0]) - 1, math.floor(box[1]) - 1  # a pixel of margin around the ink box
    right, bottom = math.ceil(box[2]) + 1, math.ceil(box[3]) + 1
    mask = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=f, anchor=anchor)
    mask.load()
    return mask, left, top


def text_length(text: str, size: int) -> float:
    """The advance width of ``text`` in the board font at ``size`` (cached: :func:`render.fonts.text_width`)."""
    return text_width(text, size)
