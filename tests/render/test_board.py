"""render.board: the picture means what the snapshot says (sampled pixels, not bytes)."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image, ImageChops, ImageDraw

from engine.position import Position
from engine.snapshot import OPPONENT, VIEWER, snapshot_of
from render import sprites
from render.board import render_board, render_image
from render.layout import MAX_STACK, Layout, compute_layout
from render.theme import Theme
from variants.backgammon import Backgammon

from .helpers import MIRRORED, ROTATED, START, close, pixel, snap

THEME = Theme.build("classic", width=840)
LIGHT = THEME.rgb("checker light")
DARK = THEME.rgb("checker dark")


def layout(geometry=MIRRORED, home="right") -> Layout:  # type: ignore[no-untyped-def]
    return compute_layout(THEME.width, geometry, home)


def test_png_size_mode_and_weight() -> None:
    board = render_board(snap(dice=(3, 1)), THEME)
    im = Image.open(io.BytesIO(board.png))
    L = layout()
    assert im.size == (L.width, L.height) == (board.width, board.height) == (840, L.height)
    assert im.mode == "RGB"
    assert len(board.png) < 200_000
    assert board.alt_text.startswith("Testgammon")


def test_checkers_stand_where_the_position_puts_them() -> None:
    im = render_image(snap(), THEME)
    L = layout()
    pos = Position.parse(START)
    for p in range(1, 25):
        v = pos.board[p - 1]
        colour = pixel(im, L.checker_center(p, 0))
        if v > 0:
            assert close(colour, LIGHT), p
        elif v < 0:
            assert close(colour, DARK), p
        else:
            assert not close(colour, LIGHT) and not close(colour, DARK), p
        # Above the top checker of the stack there is no checker.
        n = abs(v)
        if n < MAX_STACK:
            above = pixel(im, L.checker_center(p, n))
            assert not close(above, LIGHT) and not close(above, DARK), p


def test_a_stack_over_five_shows_its_count() -> None:
    L = layout()
    five = render_image(snap("13:5 12:-5"), THEME)
    nine = render_image(snap("13:9 12:-5"), THEME)
    diff = ImageChops.difference(five, nine).getbbox()
    assert diff is not None
    x, y = L.checker_center(13, MAX_STACK - 1)
    r = L.d // 2
    # Only the outermost checker changes: it carries the count.
    assert x - r <= diff[0] and diff[2] <= x + r and y - r <= diff[1] and diff[3] <= y + r
    # Its count is written in the checker's text colour.
    crop = nine.crop((x - r // 2, y - r // 2, x + r // 2, y + r // 2))
    ink = THEME.rgb("checker light text")
    inked = [(i, j) for i in range(crop.width) for j in range(crop.height) if close(pixel(crop, (i, j)), ink, 40)]
    assert len(inked) > 10


def test_checkers_on_the_bar() -> None:
    im = render_image(snap("24:2 19:-5 6:5 1:-2 bar:2/1", checkers=9), THEME)
    L = layout()
    assert close(pixel(im, L.bar_checker_center(VIEWER, 0)), LIGHT)
    # The outermost bar checker carries the count, so sample beside its label.
    x, y = L.bar_checker_center(VIEWER, 1)
    assert close(pixel(im, (x + round(L.d * 0.38), y)), LIGHT)
    assert close(pixel(im, L.bar_checker_center(OPPONENT, 0)), DARK)
    assert not close(pixel(im, L.bar_checker_center(OPPONENT, 1)), DARK)


@pytest.mark.parametrize("geometry", [MIRRORED, ROTATED], ids=["mirrored", "rotated"])
def test_borne_off_checkers_fill_each_sides_tray(geometry) -> None:  # type: ignore[no-untyped-def]
    s = snap("6:3 13:-2 off:12/13", geometry=geometry, checkers=15)
    im = render_image(s, THEME)
    L = layout(geometry)
    slab = L.tray_slab_h(15)
    for side, colour in ((VIEWER, LIGHT), (OPPONENT, DARK)):
        x0, y0, x1, y1 = L.trays[side]
        pad = max(2, L.d // 12)
        y = y0 + pad + slab // 2 if L.tray_top[side] else y1 - pad - slab // 2
        assert close(pixel(im, ((x0 + x1) // 2, y)), colour), side
    # The opponent's tray: top right when mirrored, top left when rotated (beside their point 1).
    assert (L.trays[OPPONENT][0] < L.left_x) == (geometry is ROTATED)


def die_face(L: Layout, center: tuple[int, int]) -> tuple[int, int]:
    return center[0], center[1] - round(L.die_size * 0.38)


def test_dice_of_the_player_on_roll_in_their_colour() -> None:
    L = layout()
    im = render_image(snap(dice=(6, 2), on_roll=VIEWER), THEME)
    for c in L.dice_centers(VIEWER):
        assert close(pixel(im, die_face(L, c)), THEME.rgb("die light"))
    im = render_image(snap(dice=(6, 2), on_roll=OPPONENT), THEME)
    for c in L.dice_centers(OPPONENT):
        assert close(pixel(im, die_face(L, c)), THEME.rgb("die dark"))
    for c in L.dice_centers(VIEWER):
        assert not close(pixel(im, die_face(L, c)), THEME.rgb("die light"))


def test_opening_dice_one_per_player() -> None:
    L = layout()
    im = render_image(snap(on_roll=None, opening_dice=(4, 1)), THEME)
    assert close(pixel(im, die_face(L, L.dice_centers(VIEWER, 1)[0])), THEME.rgb("die light"))
    assert close(pixel(im, die_face(L, L.dice_centers(OPPONENT, 1)[0])), THEME.rgb("die dark"))


def cube_face(L: Layout, center: tuple[int, int]) -> tuple[int, int]:
    k = round(L.cube_size * 0.33)
    return center[0] - k, center[1] - k


def test_cube_centred_owned_offered_and_absent() -> None:
    L = layout()
    face = THEME.rgb("cube")
    centred = render_image(snap(), THEME)
    assert close(pixel(centred, cube_face(L, L.cube_center(None))), face)
    owned = render_image(snap(cube_value=2, cube_owner=VIEWER), THEME)
    assert close(pixel(owned, cube_face(L, L.cube_center(VIEWER))), face)
    assert not close(pixel(owned, cube_face(L, L.cube_center(None))), face)
    theirs = render_image(snap(cube_value=4, cube_owner=OPPONENT), THEME)
    assert close(pixel(theirs, cube_face(L, L.cube_center(OPPONENT))), face)
    offered = render_image(snap(cube_value=2, cube_owner=OPPONENT, cube_offered_by=OPPONENT), THEME)
    assert close(pixel(offered, cube_face(L, L.offered_cube_center(OPPONENT))), face)
    assert not close(pixel(offered, cube_face(L, L.cube_center(OPPONENT))), face)
    none = render_image(snap(uses_cube=False), THEME)
    for owner in (None, VIEWER, OPPONENT):
        assert not close(pixel(none, cube_face(L, L.cube_center(owner))), face)


def test_crawford_replaces_the_cube_with_a_tag() -> None:
    L = layout()
    im = render_image(snap(cube_unavailable="Crawford", match_length=5, score=(4, 2)), THEME)
    x, y = L.cube_center(None)
    tag = THEME.rgb("cube unavailable")
    column = [pixel(im, (x - L.bar_w // 4, yy)) for yy in range(y - L.d, y + L.d)]
    assert sum(close(c, tag) for c in column) > L.d  # a long plate down the middle of the bar
    assert not close(pixel(im, cube_face(L, (x, y))), THEME.rgb("cube"))


def ring_pixel(L: Layout, center: tuple[int, int]) -> tuple[int, int]:
    w = max(2, round(L.d * 0.1))
    return center[0], center[1] - L.d // 2 + w // 2


def test_last_play_marks_where_checkers_went_and_came_from() -> None:
    L = layout()
    after = "24:2 19:-5 17:-3 13:5 12:-5 8:2 6:4 5:2 1:-2"  # the viewer played 8/5 6/5
    plain = render_image(snap(after), THEME)
    marked = render_image(snap(after, last_play=((8, 5, False), (6, 5, False)), last_play_by=VIEWER), THEME)
    hi = THEME.rgb("highlight")
    for slot in (0, 1):
        assert close(pixel(marked, ring_pixel(L, L.checker_center(5, slot))), hi, 40)
        assert not close(pixel(plain, ring_pixel(L, L.checker_center(5, slot))), hi, 40)
    # Where the checkers left (the third slot of 8, the fifth of 6) a ghost is drawn; elsewhere nothing.
    for point, slot in ((8, 2), (6, 4)):
        c = L.checker_center(point, slot)
        assert pixel(marked, c) != pixel(plain, c)
    far = L.checker_center(24, 3)
    assert pixel(marked, far) == pixel(plain, far)


def test_a_hit_is_marked_in_the_hit_colour() -> None:
    L = layout()
    # The opponent hit on their 7 (my 18) coming from their 13 (my 12); my checker is on the bar.
    s = snap(
        "24:1 19:-5 18:-1 17:-3 13:5 12:-4 8:3 6:5 1:-2 bar:1/0",
        last_play=((13, 7, True),),
        last_play_by=OPPONENT,
    )
    im = render_image(s, THEME)
    assert close(pixel(im, ring_pixel(L, L.checker_center(18, 0))), THEME.rgb("hit"), 40)
    assert close(pixel(im, L.checker_center(18, 0)), DARK)
    assert close(pixel(im, L.bar_checker_center(VIEWER, 0)), LIGHT)


def test_the_player_on_roll_has_a_lit_name_row() -> None:
    L = layout()
    for side in (VIEWER, OPPONENT):
        im = render_image(snap(on_roll=side, dice=(5, 5)), THEME)
        x0, y0, x1, y1 = L.info_rect(side)
        other = L.info_rect(1 - side)
        assert close(pixel(im, (x0 + 1, (y0 + y1) // 2)), THEME.rgb("accent"))
        assert close(pixel(im, (int(x1 * 0.62), y0 + 2)), THEME.rgb("info on roll"))
        assert close(pixel(im, (int(other[2] * 0.62), other[1] + 2)), THEME.rgb("info"))


def test_each_player_sees_their_own_home_at_the_bottom() -> None:
    v = Backgammon()
    pos = Position.parse("24:2 13:5 8:3 6:4 5:1 19:-5 17:-3 12:-5 1:-2")
    L = layout()
    mine = render_image(snapshot_of(v, pos), THEME)
    theirs = render_image(snapshot_of(v, pos, viewer_on_roll=False, viewer_checkers="dark"), THEME)
    # The roller's 5-point blot: at the bottom for the roller; for the other player it is their 20-point.
    assert close(pixel(mine, L.checker_center(5, 0)), LIGHT)
    assert close(pixel(theirs, L.checker_center(20, 0)), LIGHT)
    # The other player's own checkers (dark for them) fill their 6-point at the bottom.
    assert close(pixel(theirs, L.checker_center(6, 0)), DARK)
    assert close(pixel(theirs, L.checker_center(6, 4)), DARK)


def test_home_left_draws_the_home_board_on_the_left() -> None:
    L = layout(home="left")
    im = render_image(snap("6:5 19:-5", home="left", checkers=5), THEME)
    x, y = L.checker_center(6, 0)
    assert x < L.bar_x and close(pixel(im, (x, y)), LIGHT)


def test_rotated_geometry_puts_the_heads_in_opposite_corners() -> None:
    L = layout(ROTATED)
    im = render_image(snap("24:15 12:-15", geometry=ROTATED, on_roll=None, opening_dice=(5, 3)), THEME)
    x24, y24 = L.checker_center(24, 0)
    x12, y12 = L.checker_center(12, 0)
    assert x24 > L.bar_x and y24 < L.mid_y and close(pixel(im, (x24, y24)), LIGHT)
    assert x12 < L.bar_x and y12 > L.mid_y and close(pixel(im, (x12, y12)), DARK)


def test_renders_are_identical_across_threads_even_from_cold_caches() -> None:
    cases = [
        snap(dice=(3, 1)),
        snap(cube_value=2, cube_owner=OPPONENT, on_roll=OPPONENT, dice=(6, 6)),
        snap("24:15 12:-15", geometry=ROTATED, home="left"),
        snap(cube_unavailable="Crawford", last_play=((24, 18, False),), last_play_by=OPPONENT),
    ]
    serial = [render_image(c, THEME).tobytes() for c in cases]
    sprites.static_board.cache_clear()
    sprites.checker.cache_clear()
    sprites.die.cache_clear()
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda c: render_image(c, THEME).tobytes(), cases * 4))
    assert results == serial * 4


def test_the_cached_static_board_is_never_drawn_on() -> None:
    L = layout()
    base = sprites.static_board(THEME, L)
    before = base.tobytes()
    render_image(snap(dice=(2, 1), last_play=((24, 18, False),), last_play_by=VIEWER), THEME)
    assert sprites.static_board(THEME, L).tobytes() == before


def test_theme_width_sets_the_picture_size() -> None:
    small = Theme.build("small", width=480)
    im = render_image(snap(), small)
    assert im.size == (480, compute_layout(480, MIRRORED, "right").height)


def test_palette_pngs_are_smaller_and_keep_the_picture() -> None:
    s = snap(dice=(4, 3), last_play=((24, 18, False),), last_play_by=OPPONENT)
    full = render_board(s, THEME, palette_colors=0)
    small = render_board(s, THEME, palette_colors=128)
    assert len(small.png) < len(full.png) * 0.6
    with Image.open(io.BytesIO(small.png)) as im:
        assert im.mode == "P"
        rgb = im.convert("RGB")
    L = layout()
    assert close(pixel(rgb, L.checker_center(24, 0)), LIGHT)
    assert close(pixel(rgb, L.checker_center(19, 0)), DARK)


def test_long_names_are_cut_before_the_match_label() -> None:
    L = layout()
    short = render_image(snap(names=("Ann", "Bob"), match_length=5), THEME)
    long = render_image(snap(names=("Ann " * 40, "Bartholomew " * 30), match_length=5), THEME)
    for side in (VIEWER, OPPONENT):
        x0, y0, x1, y1 = L.info_rect(side)
        centre = (x1 // 2 - L.d, y0, x1 // 2 + L.d, y1)  # inside the label in the middle of the row
        assert ImageChops.difference(short.crop(centre), long.crop(centre)).getbbox() is None
        # ... and the name really is longer there: the rows differ left of the label.
        left = (x0, y0, x1 // 2 - L.d, y1)
        assert ImageChops.difference(short.crop(left), long.crop(left)).getbbox() is not None


@pytest.mark.parametrize("anchor", ["mm", "lm", "rm", "la", "rs"])
@pytest.mark.parametrize("text", ["7", "15 pips", "3 pts   167 pips", "Bartholomew…", "doubles to 64", "Äpfel ŷ", ""])
def test_cached_text_masks_draw_the_same_pixels_as_draw_text(text: str, anchor: str) -> None:
    from render.board import _text
    from render.fonts import font

    base = render_image(snap(dice=(6, 5)), THEME).crop((0, 0, 300, 120))  # a busy background
    for size, xy in ((14, (150, 60)), (23, (4, 9)), (31, (296, 118))):  # near the edges too
        expected = base.copy()
        ImageDraw.Draw(expected).text(xy, text, fill=(250, 10, 120), font=font(size), anchor=anchor)
        got = base.copy()
        _text(got, xy, text, (250, 10, 120), size, anchor)
        assert ImageChops.difference(expected, got).getbbox() is None, (text, anchor, size)


def test_small_labels_stay_legible_on_a_phone(monkeypatch: pytest.MonkeyPatch) -> None:
    """An 840-wide board shown 390 wide (a phone): the point numbers and the "Match to N" label are at least 9
    pixels as shown (the names' size); the match card's footnote is drawn in its body size (issue 33, item 14)."""
    from render import board, card, sprites
    from render.theme import Theme

    theme = Theme.build("classic", width=840)
    s = snap(names=("Ann", "Bob"), score=(2, 4), match_length=7)
    L = board.layout_for(s, theme)
    shown = 390 / 840
    assert sprites.point_number_size(L) * shown >= 9.5
    drawn: dict[str, int] = {}
    real = board._text
    monkeypatch.setattr(
        board,
        "_text",
        lambda im, xy, text, colour, size, anchor: (
            drawn.setdefault(text, size) and real(im, xy, text, colour, size, anchor)
        ),
    )
    board.render_image(s, theme)
    assert drawn["Match to 7"] * shown >= 9
    assert card.FOOTNOTE_SIZE >= 14


@pytest.mark.parametrize("width", [390, 840])
def test_a_long_team_name_never_pushes_the_acting_players_name_off(width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Doubles: the team's name is shortened first, the acting member's name stays whole; names in scripts the board
    font lacks are drawn by a fallback font (issue 33, item 15)."""
    from render import board
    from render.fonts import FALLBACK_PATHS, FONT_PATH, covered
    from render.theme import Theme

    drawn: list[str] = []
    real = board._text
    monkeypatch.setattr(
        board,
        "_text",
        lambda im, xy, text, colour, size, anchor: drawn.append(text) or real(im, xy, text, colour, size, anchor),
    )
    teams = ("The Magnificent Backgammon Brigade of Thessaloniki", "田中太郎と山田花子の大冒険チーム 🎲")
    s = snap(names=("Charlotte", "王小明"), team_names=teams, on_roll=VIEWER, dice=(3, 1))
    board.render_image(s, Theme.build("classic", width=width))
    assert any(t.endswith("… · Charlotte") for t in drawn), drawn
    assert any(t.endswith("… · 王小明") for t in drawn), drawn
    # Every character drawn is in the board font or a fallback: nothing falls to an empty box.
    fonts = covered(FONT_PATH).union(*(covered(p) for p in FALLBACK_PATHS))
    assert all(ord(ch) in fonts for t in drawn for ch in t if not ch.isspace())
