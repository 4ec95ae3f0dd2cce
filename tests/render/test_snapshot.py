"""engine.snapshot: the frozen board value renderers draw, and the snapshot_of helper."""

from __future__ import annotations

import pytest

from engine.position import Position
from engine.positionid import encode_position_id
from engine.snapshot import OPPONENT, VIEWER, BoardSnapshot, snapshot_of
from variants.backgammon import Backgammon

from .helpers import MIRRORED, ROTATED, snap


def test_snapshot_of_keeps_the_roller_frame_when_the_viewer_is_on_roll() -> None:
    v = Backgammon()
    pos = Position.parse("24:2 13:5 8:3 6:5 19:-5 17:-3 12:-5 1:-2")
    s = snapshot_of(v, pos, dice=(3, 1), names=("Ann", "Bob"))
    assert s.position == pos
    assert s.on_roll == VIEWER
    assert s.pips == (167, 167)
    assert s.position_id == encode_position_id(v, pos) == "4HPwATDgc/ABMA"
    assert s.geometry == v.geometry and s.checkers == 15 and s.display_name == "Backgammon"


def test_snapshot_of_flips_the_board_for_the_player_not_on_roll() -> None:
    v = Backgammon()
    pos = Position.parse("24:2 13:5 8:3 6:4 5:1 19:-5 17:-3 12:-5 1:-2")  # roller moved 6/5
    s = snapshot_of(v, pos, viewer_on_roll=False)
    assert s.position == v.flip(pos)
    assert s.on_roll == OPPONENT
    assert s.pips == (167, 166)  # viewer first: the viewer is the one not on roll
    # The Position ID is still written from the side on roll.
    assert s.position_id == encode_position_id(v, pos)


def test_snapshot_is_hashable_and_frozen() -> None:
    s = snap()
    assert hash(s) == hash(snap())
    with pytest.raises(AttributeError):
        s.cube_value = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    "fields",
    [
        {"dice": (0, 3)},
        {"opening_dice": (7, 1)},
        {"cube_value": 3},
        {"on_roll": 2},
        {"home": "top"},
        {"last_play": ((13, 7, False),)},  # no last_play_by
        {"last_play": ((26, 7, False),), "last_play_by": VIEWER},
        {"viewer_checkers": "red"},
        {"match_length": -1},
    ],
)
def test_snapshot_rejects_impossible_fields(fields: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        snap(**fields)


def test_last_play_is_translated_to_the_viewers_numbering() -> None:
    # The opponent played their 13/7* 8/7 and bar/22: in a mirrored geometry their q is my 25 - q.
    moves = ((25, 22, False), (13, 7, True), (8, 7, False))
    s = snap(last_play=moves, last_play_by=OPPONENT)
    assert s.last_play_for_viewer() == ((25, 3, False), (12, 18, True), (17, 18, False))
    # In a rotated geometry their q is my q + 12 (mod 24); bearing off stays off.
    r = snap("24:15 12:-15", geometry=ROTATED, last_play=((24, 18, False), (3, 0, False)), last_play_by=OPPONENT)
    assert r.last_play_for_viewer() == ((12, 6, False), (15, 0, False))
    mine = snap(last_play=moves, last_play_by=VIEWER)
    assert mine.last_play_for_viewer() == moves


def test_snapshot_stores_the_geometry_not_a_rule_set_name() -> None:
    s = BoardSnapshot(Position.parse("24:3 1:-3"), MIRRORED, 3, "x", "X")
    assert s.geometry.opposite[1] == 24
