"""Checkers waiting to enter (Acey-deucey's reserve) on boards: drawn in the side column without the owner's tray,
in pictures, text and ASCII, and a checker entering from them drawn with its line from there."""

from __future__ import annotations

from engine.ascii import ascii_board
from engine.match import MatchOptions, Move, OpeningRoll, Roll, apply, new_match
from engine.plugins import get_variant
from engine.position import RESERVE, Position
from engine.snapshot import board_snapshot, snapshot_of
from render.board import MAX_RESERVE, _reserve_slot, default_theme, layout_for, render_image
from render.text import board_text
from tests.render.helpers import close, pixel

AD = get_variant("aceydeucey")


def test_each_sides_waiting_checkers_are_drawn_in_the_column_without_its_tray() -> None:
    pos = Position.parse("24:2 19:-1 13:1 in:12/14")
    s = snapshot_of(AD, pos, names=("Ann", "Bob"))
    theme = default_theme()
    im = render_image(s, theme)
    L = layout_for(s, theme)
    light, dark = theme.rgb("checker light"), theme.rgb("checker dark")
    for side, colour in ((0, light), (1, dark)):
        rect = L.reserve_rect(side)
        assert rect[0] != L.trays[side][0] and rect[1] == L.trays[side][1]  # the other column, the tray's row
        for slot in range(MAX_RESERVE):
            x, y = _reserve_slot(L, side, slot)
            assert close(pixel(im, (x + int(L.d * 0.3), y)), colour), (side, slot)
    assert L.reserve_rect(0) != L.reserve_rect(1)
    rotated = layout_for(snapshot_of(get_variant("fevga"), get_variant("fevga").start_position()), theme)
    assert {rotated.reserve_rect(k) for k in (0, 1)}.isdisjoint(rotated.trays)


def test_the_text_and_ascii_boards_say_how_many_wait_to_enter() -> None:
    pos = Position.parse("24:2 19:-1 13:1 in:12/14")
    assert "waiting to enter Ann 12, Bob 14" in board_text(snapshot_of(AD, pos, names=("Ann", "Bob")))
    assert "waiting to enter: X 12  O 14" in ascii_board(AD, pos)


def test_a_checker_entering_from_the_reserve_is_drawn_as_the_last_play() -> None:
    state = new_match(AD, [["ann"], ["bob"]], MatchOptions(length=1))
    state = apply(apply(state, OpeningRoll("ann", (5, 2))), Roll("ann", (6, 3)))
    state = apply(state, Move("ann", ((RESERVE, 19, False), (RESERVE, 22, False))))
    for viewer in ("ann", "bob"):
        snap = board_snapshot(state, viewer)
        assert snap.last_play == ((RESERVE, 19, False), (RESERVE, 22, False))
        assert [m[0] for m in snap.last_play_for_viewer()] == [RESERVE, RESERVE]  # nobody's point: kept as it is
        render_image(snap)  # drawn from either side
    assert "last play ann in/22 in/19" in board_text(board_snapshot(state, "bob"))
