"""render.layout: where points, trays, dice and the cube go, from the width, geometry and orientation."""

from __future__ import annotations

import pytest

from engine.snapshot import OPPONENT, VIEWER
from render.layout import MAX_STACK, compute_layout

from .helpers import HALVES, MIRRORED, ROTATED


def inside(xy: tuple[int, int], rect: tuple[int, int, int, int]) -> bool:
    return rect[0] <= xy[0] < rect[2] and rect[1] <= xy[1] < rect[3]


@pytest.mark.parametrize("width", [420, 840, 1200])
def test_picture_has_the_requested_width_and_everything_fits(width: int) -> None:
    L = compute_layout(width, MIRRORED, "right")
    assert L.width == width
    assert 0.7 < L.height / width < 0.9
    for p in range(1, 25):
        for slot in range(MAX_STACK):
            x, y = L.checker_center(p, slot)
            assert L.field_top + L.d // 2 <= y <= L.field_bottom - L.d // 2
            assert L.left_x <= x < L.right_x + 6 * L.point_w
        # The fifth checker of a stack never reaches the dice row in the middle.
        _, y4 = L.checker_center(p, MAX_STACK - 1)
        assert abs(y4 - L.mid_y) >= L.d // 2 + L.die_size // 2


def test_viewer_points_run_counter_clockwise_with_home_bottom_right() -> None:
    L = compute_layout(840, MIRRORED, "right")
    xs = [L.point_x(p) for p in range(1, 13)]
    assert xs == sorted(xs, reverse=True)  # 1 at the right, 12 at the left, along the bottom
    top = [L.point_x(p) for p in range(13, 25)]
    assert top == sorted(top)  # 13 at the left, 24 at the right, along the top
    assert not L.is_top(1) and L.is_top(24)
    assert L.point_x(1) == L.point_x(24) and L.point_x(12) == L.point_x(13)


def test_home_left_mirrors_the_picture() -> None:
    right = compute_layout(840, MIRRORED, "right")
    left = compute_layout(840, MIRRORED, "left")
    for p in range(1, 25):
        assert abs(left.point_x(p) + right.point_x(p) - right.width) <= 2
    assert left.point_x(1) < left.point_x(6) < left.bar_x
    # Trays swap sides too.
    assert right.trays[VIEWER][0] > right.bar_x and left.trays[VIEWER][0] < left.bar_x


def test_trays_sit_beside_each_sides_point_one() -> None:
    m = compute_layout(840, MIRRORED, "right")
    # Mirrored: both trays on the home side, the viewer's at the bottom, the opponent's at the top.
    assert m.tray_top == (False, True)
    assert m.trays[VIEWER][0] > m.bar_x and m.trays[OPPONENT][0] > m.bar_x
    r = compute_layout(840, ROTATED, "right")
    # Rotated by 12 (both sides move the same way round): the opponent bears off at the top left.
    assert r.tray_top == (False, True)
    assert r.trays[VIEWER][0] > r.bar_x and r.trays[OPPONENT][2] < r.left_x
    # Any geometry works: one whose opponent's point 1 is my 12 puts both trays at the bottom.
    odd = compute_layout(840, HALVES, "right")
    assert odd.tray_top == (False, False) and odd.trays[OPPONENT][2] < odd.left_x


def test_dice_halves_and_cube_places() -> None:
    L = compute_layout(840, MIRRORED, "right")
    assert L.dice_x[VIEWER] > L.bar_x > L.dice_x[OPPONENT]
    assert L.cube_center(None) == (L.bar_center_x, L.mid_y)
    assert L.cube_center(VIEWER)[1] > L.mid_y > L.cube_center(OPPONENT)[1]
    # Checkers on the bar keep clear of the centred cube.
    assert L.bar_checker_center(VIEWER, 0)[1] + L.d // 2 <= L.mid_y - L.cube_size // 2
    assert L.bar_checker_center(OPPONENT, 0)[1] - L.d // 2 >= L.mid_y + L.cube_size // 2
