"""Pins on boards (Plakoto): the pinned checker drawn under its pinners, in pictures, text and ASCII; rule-ended games.

The pixel tests sample the centres of the checker slots the layout computes: the edge slot of a pinned point holds
the pinned checker (its own colour at the rim, a pin's head at the centre), the next slot the first pinner.
"""

from __future__ import annotations

from dataclasses import replace

from engine.ascii import ascii_board
from engine.match import MatchOptions, Move, OpeningRoll, Phase, apply, new_match
from engine.plugins import get_variant
from engine.position import Position
from engine.snapshot import GameEnd, board_snapshot, snapshot_of
from render.board import default_theme, layout_for, render_image
from render.text import board_text, result_lines
from render.theme import Theme
from tests.render.helpers import close, pixel

PLAKOTO = get_variant("plakoto")
#: My checker pinned on 20 under one of his, his pinned on 13 under mine, and his two on my pinned one on 6.
PINNED = "24:10 20:-1p 17:1 13:1p 9:-1 7:1 6:-2p 5:-3 1:-7"


def _rim(im: object, centre: tuple[int, int], d: int) -> tuple[int, int]:
    """A point on a checker's face, between its centre and its rim."""
    return centre[0] + int(d * 0.3), centre[1]


def test_a_pinned_checker_is_drawn_at_the_edge_under_its_pinners_with_a_pin_head() -> None:
    pos = Position.parse(PINNED)
    PLAKOTO.validate_position(pos)
    s = snapshot_of(PLAKOTO, pos, names=("Ann", "Bob"))
    theme: Theme = default_theme()
    im = render_image(s, theme)
    L = layout_for(s, theme)
    light, dark = theme.rgb("checker light"), theme.rgb("checker dark")
    hit = theme.rgb("hit")
    for point, under, over in ((20, light, dark), (13, dark, light), (6, light, dark)):
        edge, first = L.checker_center(point, 0), L.checker_center(point, 1)
        assert close(pixel(im, _rim(im, edge, L.d)), under), point  # the pinned checker, in its own colour
        assert close(pixel(im, _rim(im, first, L.d)), over), point  # its first pinner just above it
        head = pixel(im, (edge[0] + int(L.d * 0.2), edge[1]))  # the pin's head: the hit colour round it
        assert close(head, hit, 60) or close(head, over), point
    # Two pinners on 6 and nothing more: the slot above them is empty board.
    assert not close(pixel(im, _rim(im, L.checker_center(6, 3), L.d)), dark)


def test_board_text_and_the_ascii_board_show_the_pins() -> None:
    pos = Position.parse(PINNED)
    s = snapshot_of(PLAKOTO, pos, names=("Ann", "Bob"))
    words = board_text(s)
    assert s.position_id is None
    # In words a screen reader can speak: no signed counts, no bare "p" (issue 33, item 12).
    assert "Ann 10 on 24, 1 on 17, 1 on 13, 1 on 7; Bob 1 on 20, 1 on 9, 2 on 6, 3 on 5, 7 on 1" in words
    assert "pinned: a checker of Ann on 20, a checker of Bob on 13, a checker of Ann on 6" in words
    assert "-1" not in words and "1p" not in words
    text = ascii_board(PLAKOTO, pos)
    assert "pinned (*): X on 20, O on 13, X on 6" in text
    top = text.splitlines()[2]  # the row at the top edge: 13..18 left, 19..24 right
    assert top.split("|")[1].split()[0] == "*O" and top.split("|")[3].split()[0] == "*X"


def test_a_pin_made_by_the_last_play_is_marked_like_a_hit_and_the_board_is_drawn_from_either_side() -> None:
    start = Position.parse("24:10 20:-1p 17:2 13:-1 9:1p 6:-2p 5:-3 1:-7")
    play = PLAKOTO.check_play(start, (4, 2), "17/13* 9/7")
    assert play.notation == "17/13* 9/7" and str(play.position) == PINNED
    for viewer_on_roll in (True, False):
        s = snapshot_of(
            PLAKOTO, play.position, viewer_on_roll=viewer_on_roll, on_roll=False, last_play=play.moves, last_play_by=0
        )
        render_image(s)  # drawn without error from both sides
        assert s.position.pins and PLAKOTO.flip(s.position) != s.position


def test_a_mother_pin_and_a_draw_end_the_game_with_a_banner_that_says_how() -> None:
    state = new_match(PLAKOTO, [["ann"], ["bob"]], MatchOptions(length=5))
    state = apply(state, OpeningRoll("ann", (5, 2)))
    pos = Position.parse("22:-14 10:12 5:2 3:1 1:-1")
    state = replace(state, phase=Phase.MOVE, dice=(4, 2), position=pos)
    before = state
    state = apply(state, Move("ann", ((5, 1, True), (3, 1, False))))
    ended = replace(before, position=PLAKOTO.apply(pos, ((5, 1, True), (3, 1, False))))
    snap = board_snapshot(ended, "ann", ended=state.results[-1])
    assert snap.result is not None and snap.result.reason == "rule" and "mother" in snap.result.how
    assert result_lines(snap)[0] == "ann wins 2 points: a mother is pinned (the last checker on its starting point)"
    draw = GameEnd(0, 0, "", "draw", how="both mothers are pinned")
    assert result_lines(replace(snap, result=draw))[0] == "A draw: both mothers are pinned, nobody scores"


def test_a_pinner_wears_a_pin_badge_not_the_red_hit_badge() -> None:
    """Landing on a lone checker in Plakoto pins it: the pinner's badge is a pin (no red cross, no red ring), while a
    hit in backgammon keeps the red cross."""
    from render import sprites

    pos = Position.parse(PINNED)
    s = replace(snapshot_of(PLAKOTO, pos, names=("Ann", "Bob")), last_play=((24, 13, True),), last_play_by=0)
    theme: Theme = default_theme()
    im = render_image(s, theme)
    L = layout_for(s, theme)
    cx, cy = L.checker_center(13, 1)
    size = max(10, round(L.d * 0.42))
    r = L.d // 2
    bx, by = cx + r - size // 3, cy - r + size // 3
    region = im.crop((bx - size // 2, by - size // 2, bx + size // 2, by + size // 2))
    hit = theme.rgb("hit")
    colours = [c for _n, c in region.getcolors(size * size)]  # type: ignore[union-attr]
    assert not any(close(c, hit, 40) for c in colours)
    assert any(close(c, theme.rgb("highlight"), 30) for c in colours)
    # The pinner's ring is the ordinary highlight, not the hit colour.
    assert not close(pixel(im, (cx + int(L.d * 0.45), cy)), hit, 60)
    assert sprites.pin_badge(theme, size).tobytes() != sprites.hit_badge(theme, size).tobytes()
