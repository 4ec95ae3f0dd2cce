"""Board snapshots of a match state, one per viewer."""

from __future__ import annotations

import pytest

from engine.match import (
    Double,
    MatchOptions,
    Move,
    OpeningRoll,
    Pass,
    RejectResignation,
    Resign,
    Roll,
    apply,
    new_match,
)
from engine.plugins import get_variant
from engine.snapshot import OPPONENT, VIEWER, board_snapshot


def test_each_viewer_sees_their_own_side() -> None:
    s = new_match(get_variant("backgammon"), [["a"], ["b"]], MatchOptions(length=5))
    s = apply(s, OpeningRoll("a", (3, 1)))
    s = apply(s, Move("a", ((8, 5, False), (6, 5, False))))
    s = apply(s, Double("b"))
    mine = board_snapshot(s, "a")
    theirs = board_snapshot(s, 1)
    assert mine.position == get_variant("backgammon").flip(theirs.position)
    assert mine.position.board[4] == 2  # a's 5-point made
    assert mine.names == ("a", "b") and theirs.names == ("b", "a")
    assert mine.cube_offered_by == OPPONENT and theirs.cube_offered_by == VIEWER
    assert mine.last_play_by == VIEWER and mine.last_play == ((8, 5, False), (6, 5, False))
    assert mine.match_length == 5 and mine.score == (0, 0) and mine.on_roll == OPPONENT
    assert theirs.position_id == "sGfwATDgc/ABMA"  # after 8/5 6/5, bob to act (rules.md §6.2)


def test_dice_and_cube_are_shown() -> None:
    s = new_match(get_variant("backgammon"), [["a"], ["b"]], MatchOptions(length=1))
    s = apply(s, OpeningRoll("b", (2, 6)))
    snap = board_snapshot(s, "b")
    assert snap.dice == (6, 2) and snap.on_roll == VIEWER and snap.cube_owner is None
    s = apply(s, Move("b", s.legal_plays()[0].moves))
    s = apply(s, Roll("a", (4, 4)))
    assert board_snapshot(s, "b").dice == (4, 4)


def test_a_resignation_offered_after_rolling_keeps_the_roll_on_the_board() -> None:
    """While it awaits an answer, and after a rejection; one offered before rolling shows no dice."""
    s = new_match(get_variant("backgammon"), [["a"], ["b"]], MatchOptions(length=5, auto_accept_resign=False))
    s = apply(s, OpeningRoll("b", (2, 6)))
    s = apply(s, Move("b", s.legal_plays()[0].moves))
    s = apply(s, Roll("a", (4, 4)))
    offered = apply(s, Resign("a", 1))
    assert board_snapshot(offered, "b").dice == (4, 4) and board_snapshot(offered, "a").dice == (4, 4)
    assert board_snapshot(apply(offered, RejectResignation("b")), "a").dice == (4, 4)
    s = apply(s, Move("a", s.legal_plays()[0].moves))
    assert board_snapshot(apply(s, Resign("b", 1)), "a").dice is None


def test_team_snapshot_names_acting_members_and_teams() -> None:
    s = new_match(get_variant("doubles"), [["ann", "cat"], ["bob", "dan"]], MatchOptions(length=3))
    snap = board_snapshot(s, "cat")
    assert snap.names == ("ann", "bob") and snap.team_names == ("ann & cat", "bob & dan")


def test_unknown_viewer_is_refused() -> None:
    s = new_match(get_variant("backgammon"), [["a"], ["b"]])
    with pytest.raises(ValueError, match="not playing"):
        board_snapshot(s, "zed")


def test_crawford_game_marks_the_cube_unavailable() -> None:
    from engine.match import AcceptResignation, Resign

    s = new_match(get_variant("backgammon"), [["a"], ["b"]], MatchOptions(length=3))
    s = apply(apply(apply(s, OpeningRoll("a", (3, 1))), Resign("a", 2)), AcceptResignation("b"))
    assert s.score == (0, 2) and s.crawford_game
    assert board_snapshot(s, "a").cube_unavailable == "Crawford"
    assert board_snapshot(s, "a").score == (0, 2) and board_snapshot(s, "b").score == (2, 0)


def test_a_new_game_shows_no_last_play() -> None:
    s = new_match(get_variant("backgammon"), [["a"], ["b"]], MatchOptions(length=3))
    s = apply(s, OpeningRoll("a", (3, 1)))
    s = apply(s, Move("a", ((8, 5, False), (6, 5, False))))
    s = apply(apply(s, Double("b")), Pass("a"))
    snap = board_snapshot(s, "a")
    assert s.game == 2 and snap.last_play == () and snap.last_play_by is None
    assert snap.position == get_variant("backgammon").start_position()
