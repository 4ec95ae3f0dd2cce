"""Snapshots and pixel helpers shared by the render tests (no rule-set registry needed)."""

from __future__ import annotations

from typing import Any

from PIL import Image

from engine.geometry import Geometry
from engine.position import Position
from engine.snapshot import BoardSnapshot
from render.theme import RGB

MIRRORED = Geometry.mirrored()
ROTATED = Geometry.rotated(12)
#: An invented geometry (an involution, like every real one): each half of the board mirrored on itself,
#: so the opponent's point 1 is my 12 (bottom left) and their 24 is my 13 (top left).
HALVES = Geometry(tuple([0] + [13 - p for p in range(1, 13)] + [37 - p for p in range(13, 25)]), True, "halves")

START = "24:2 19:-5 17:-3 13:5 12:-5 8:3 6:5 1:-2"


def snap(text: str = START, geometry: Geometry = MIRRORED, checkers: int = 15, **kw: Any) -> BoardSnapshot:
    """A snapshot of the position ``text`` (viewer's frame) with the given fields."""
    kw.setdefault("variant_name", "testgammon")
    kw.setdefault("display_name", "Testgammon")
    return BoardSnapshot(position=Position.parse(text), geometry=geometry, checkers=checkers, **kw)


def pixel(im: Image.Image, xy: tuple[int, int]) -> RGB:
    value = im.getpixel(xy)
    assert isinstance(value, tuple)
    return value[0], value[1], value[2]


def close(a: RGB, b: RGB, tol: int = 24) -> bool:
    """Whether two colours are within ``tol`` on every channel."""
    return all(abs(x - y) <= tol for x, y in zip(a, b))
