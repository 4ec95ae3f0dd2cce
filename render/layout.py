"""Where everything goes on the picture: pure arithmetic from the width, the geometry and the orientation.

The picture, with the viewer's home board on the right (``home="right"``)::

    +------------------------------------------------------------------+
    |  opponent's name row (name, team, pips, score)                   |
    +----+----------------------+-----+----------------------+----+----+
    |    | 13 14 15 16 17 18    |     | 19 20 21 22 23 24    |    |    <- point numbers (viewer's)
    |tray|  v  v  v  v  v  v    | bar |  v  v  v  v  v  v    |tray|
    |    |                      |     |                      |    |
    |    |  ^  ^  ^  ^  ^  ^    |     |  ^  ^  ^  ^  ^  ^    |    |
    |    | 12 11 10  9  8  7    |     |  6  5  4  3  2  1    |    |
    +----+----------------------+-----+----------------------+----+----+
    |  viewer's name row                                               |
    +------------------------------------------------------------------+

The viewer's points run 24 (top right) to 13 (top left), 12 (bottom left) to 1 (bottom right): the
viewer moves counter-clockwise and bears off at the bottom right. ``home="left"`` mirrors the picture
left to right. The opponent's checkers are wherever the position puts them; only the opponent's
borne-off tray needs the geometry: it sits beside the opponent's own point 1, so in a mirrored
geometry it is top right and in a rotated one (Longgammon) top left. Checkers waiting to enter (a reserve, as in
Acey-deucey) wait in the other side column, in the same row as their owner's tray. Nothing here names a rule set.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.geometry import Geometry
from engine.snapshot import OPPONENT, VIEWER, Home

__all__ = ["Layout", "Rect", "compute_layout", "MAX_STACK", "MAX_BAR_STACK"]

Rect = tuple[int, int, int, int]

#: Checkers drawn on one point; a taller stack shows its count on the outermost checker.
MAX_STACK = 5
#: Checkers drawn on one side of the bar before a count is shown.
MAX_BAR_STACK = 3


@dataclass(frozen=True)
class Layout:
    """Pixel positions for one (width, geometry, orientation). Every length is an int in pixels."""

    width: int
    height: int
    home: Home
    #: Checker diameter: the unit of every other length.
    d: int
    point_w: int
    frame: int
    bar_w: int
    info_h: int
    number_h: int
    gap: int
    #: The playing field (points area) top and bottom, and its vertical middle.
    field_top: int
    field_bottom: int
    mid_y: int
    #: x of the left edge of the left half, the bar, and the right half.
    left_x: int
    bar_x: int
    right_x: int
    #: Borne-off trays (viewer's, opponent's) as rectangles.
    trays: tuple[Rect, Rect]
    #: Whether each tray is in the top row (viewer's, opponent's).
    tray_top: tuple[bool, bool]
    #: Side columns (left, right) as rectangles: where trays may be.
    side_columns: tuple[Rect, Rect]
    #: x centre of the half where each side's dice are drawn (viewer's, opponent's).
    dice_x: tuple[int, int]
    cube_size: int
    die_size: int
    has_bar: bool

    # --- points -------------------------------------------------------------------------------
    def column(self, point: int) -> int:
        """Column 0..11 from the left of the viewer's ``point`` (1..24)."""
        c = 12 - point if point <= 12 else point - 13
        return 11 - c if self.home == "left" else c

    def is_top(self, point: int) -> bool:
        """Whether the viewer's ``point`` is in the top row."""
        return point > 12

    def point_x(self, point: int) -> int:
        """x centre of the viewer's ``point``."""
        c = self.column(point)
        x0 = self.left_x + c * self.point_w if c < 6 else self.right_x + (c - 6) * self.point_w
        return x0 + self.point_w // 2

    def point_rect(self, point: int) -> Rect:
        """The rectangle of a point's column (its triangle and the checkers standing on it)."""
        x = self.point_x(point) - self.point_w // 2
        if self.is_top(point):
            return (x, self.field_top, x + self.point_w, self.mid_y)
        return (x, self.mid_y, x + self.point_w, self.field_bottom)

    def checker_center(self, point: int, slot: int) -> tuple[int, int]:
        """Centre of the ``slot``-th checker (0 = at the edge) on the viewer's ``point``."""
        r = self.d // 2
        x = self.point_x(point)
        if self.is_top(point):
            return x, self.field_top + r + slot * self.d
        return x, self.field_bottom - r - slot * self.d

    # --- bar ----------------------------------------------------------------------------------
    @property
    def bar_center_x(self) -> int:
        return self.bar_x + self.bar_w // 2

    def bar_checker_center(self, side: int, slot: int) -> tuple[int, int]:
        """Centre of a checker of ``side`` on the bar: the viewer's above the middle, the opponent's below.

        A checker on the bar waits beside the half of the board where it must enter.
        """
        clear = self.bar_clear + self.d // 2
        if side == VIEWER:
            return self.bar_center_x, self.mid_y - clear - slot * self.d
        return self.bar_center_x, self.mid_y + clear + slot * self.d

    @property
    def bar_clear(self) -> int:
        """Half the length kept free in the middle of the bar for the cube or the Crawford tag."""
        return round(self.d * 1.2)

    # --- cube and dice ------------------------------------------------------------------------
    def cube_center(self, owner: int | None) -> tuple[int, int]:
        """Where the cube stands: centred on the bar, or at the owner's end of the bar."""
        if owner is None:
            return self.bar_center_x, self.mid_y
        pad = max(3, self.d // 8) + self.cube_size // 2
        if owner == VIEWER:
            return self.bar_center_x, self.field_bottom - pad
        return self.bar_center_x, self.field_top + pad

    def offered_cube_center(self, side: int) -> tuple[int, int]:
        """Where a cube being offered by ``side`` is shown: in that side's dice half, left of centre
        (its "doubles to N" label follows it)."""
        return self.dice_x[side] - round(self.d * 1.3), self.mid_y

    def dice_centers(self, side: int, count: int = 2) -> list[tuple[int, int]]:
        """Centres of ``count`` dice of ``side`` (1 for an opening die, 2 for a roll)."""
        x = self.dice_x[side]
        if count == 1:
            return [(x, self.mid_y)]
        step = self.die_size + max(4, self.d // 5)
        return [(x - step // 2, self.mid_y), (x + step - step // 2, self.mid_y)]

    # --- trays --------------------------------------------------------------------------------
    def tray_slab_h(self, checkers: int) -> int:
        """Height of one borne-off checker (seen edge-on) so that all of them fit in a tray."""
        _, top, _, bottom = self.trays[0]
        usable = bottom - top - 2 * max(2, self.d // 12) - self.d // 2
        return max(3, min(self.d // 3, usable // max(1, checkers)))

    def reserve_rect(self, side: int) -> Rect:
        """Where ``side``'s checkers waiting to enter are drawn: the side column without its tray, in its tray's row
        (both sides' trays share a column in a mirrored geometry, and sit in opposite ones in a rotated one, so the
        two reserves never meet a tray or each other)."""
        x0, y0, x1, y1 = self.trays[side]
        left, right = self.side_columns
        column = right if (x0, x1) == (left[0], left[2]) else left
        return (column[0], y0, column[2], y1)

    # --- the result banner -------------------------------------------------------------------
    def result_rect(self) -> Rect:
        """The banner saying how a game ended: across the playing field (both halves and the bar), centred on the
        middle line, tall enough for two lines of text."""
        half = round(self.d * 1.15)
        x0 = self.left_x - self.point_w // 4
        x1 = self.right_x + 6 * self.point_w + self.point_w // 4
        return (x0, self.mid_y - half, x1, self.mid_y + half)

    # --- rows ---------------------------------------------------------------------------------
    def info_rect(self, side: int) -> Rect:
        """The name row of ``side``: the opponent's above the board, the viewer's below."""
        if side == OPPONENT:
            return (0, 0, self.width, self.info_h)
        return (0, self.height - self.info_h, self.width, self.height)


@lru_cache(maxsize=64)
def compute_layout(width: int, geometry: Geometry, home: Home) -> Layout:
    """The layout of a picture ``width`` pixels wide for a rule set's ``geometry`` and orientation."""
    d = int(width / 17.2)
    point_w = round(d * 1.04)
    bar_w = round(d * 1.2)
    frame = max(4, round(d * 0.22))
    side_total = width - 4 * frame - 12 * point_w - bar_w
    side_left = side_total // 2  # the right column takes the odd pixel
    info_h = round(d * 0.95)
    number_h = round(d * 0.52)
    gap = round(d * 1.3)
    field_h = 10 * d + gap
    height = 2 * info_h + 2 * number_h + field_h
    field_top = info_h + number_h
    field_bottom = field_top + field_h
    mid_y = field_top + field_h // 2
    left_col = (frame, field_top, frame + side_left, field_bottom)
    left_x = 2 * frame + side_left
    bar_x = left_x + 6 * point_w
    right_x = bar_x + bar_w
    right_col = (right_x + 6 * point_w + frame, field_top, width - frame, field_bottom)
    probe = Layout(
        width, height, home, d, point_w, frame, bar_w, info_h, number_h, gap, field_top, field_bottom, mid_y,
        left_x, bar_x, right_x, ((0, 0, 0, 0), (0, 0, 0, 0)), (False, True), (left_col, right_col), (0, 0),
        0, 0, geometry.has_bar,
    )  # fmt: skip

    tray_h = 5 * d
    trays: list[Rect] = []
    tray_top: list[bool] = []
    # Each side bears off beside its own point 1; the opponent's point 1 is found through the geometry.
    for first_point in (1, geometry.my_point(1)):
        col = left_col if probe.column(first_point) < 6 else right_col
        top = probe.is_top(first_point)
        y0 = field_top if top else field_bottom - tray_h
        trays.append((col[0], y0, col[2], y0 + tray_h))
        tray_top.append(top)
    # The viewer's dice are in the half holding the viewer's home board, the opponent's in the other half.
    home_x = probe.point_x(1)
    left_centre = left_x + 3 * point_w
    right_centre = right_x + 3 * point_w
    viewer_dice = right_centre if home_x >= right_x else left_centre
    other_dice = left_centre if viewer_dice == right_centre else right_centre
    return Layout(
        width, height, home, d, point_w, frame, bar_w, info_h, number_h, gap, field_top, field_bottom, mid_y,
        left_x, bar_x, right_x, (trays[0], trays[1]), (tray_top[0], tray_top[1]), (left_col, right_col),
        (viewer_dice, other_dice), round(d * 0.86), round(d * 0.82), geometry.has_bar,
    )  # fmt: skip
