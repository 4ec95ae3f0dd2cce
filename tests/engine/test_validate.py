"""Checking a submitted play: any legal order is accepted; an illegal play is refused naming the rule."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalPlay, Position, format_plain
from engine.plugins import get_variant
from tests.engine.strategies import dice, game_positions

BG = get_variant("backgammon")
START = BG.start_position()


def theirs_own(mine: dict[int, int], theirs: dict[int, int], bar: tuple[int, int] = (0, 0)) -> Position:
    mirrored = {25 - q: n for q, n in theirs.items()}
    on = (sum(mine.values()) + bar[0], sum(theirs.values()) + bar[1])
    return Position.from_points(mine, mirrored, bar=bar, off=(15 - on[0], 15 - on[1]))


def refused(pos: Position, roll: tuple[int, int], text: str) -> str:
    with pytest.raises(IllegalPlay) as info:
        BG.check_play(pos, roll, text)
    return str(info.value)


def test_a_legal_play_is_accepted_in_either_written_order() -> None:
    a = BG.check_play(START, (3, 1), "8/5 6/5")
    b = BG.check_play(START, (3, 1), "6/5 8/5")
    assert a.position == b.position and a.notation == "8/5 6/5"


def test_a_move_through_an_intermediate_point_may_use_the_dice_either_way() -> None:
    assert BG.check_play(START, (6, 5), "24/13").notation == "24/13"
    assert BG.check_play(START, (6, 5), "24/18/13").notation == "24/13"
    assert "point 19 is blocked" in refused(START, (6, 5), "24/19/13")


def test_blocked_point_is_named() -> None:
    assert "point 19 is blocked" in refused(START, (5, 1), "24/19 8/7")


def test_checkers_on_the_bar_must_enter_first() -> None:
    pos = theirs_own({13: 5, 8: 3, 6: 6}, {13: 5, 8: 3, 6: 5, 24: 2}, bar=(1, 0))
    assert "checkers on the bar must enter first" in refused(pos, (3, 1), "13/10 6/5")


def test_must_use_both_dice() -> None:
    assert "you must use both dice" in refused(START, (3, 1), "8/5")


def test_must_use_the_higher_die() -> None:
    pos = theirs_own({24: 1, 2: 7, 1: 7}, {10: 2})
    assert "the higher one, the 6" in refused(pos, (6, 3), "24/21")


def test_must_play_as_many_of_a_doublet_as_possible() -> None:
    assert "you must play 4 of your four 6s" in refused(START, (6, 6), "24/18 13/7")


def test_cannot_bear_off_yet() -> None:
    assert "cannot bear off while a checker is outside your home board" in refused(START, (6, 5), "6/off 6/1")


def test_bear_off_with_a_larger_die_only_from_the_highest_point() -> None:
    pos = theirs_own({5: 1, 3: 1}, {1: 2})
    assert "only when no checker stands higher" in refused(pos, (6, 1), "3/off 5/4")


def test_no_checker_on_that_point() -> None:
    assert "no checker on point 7" in refused(START, (3, 1), "7/4 6/5")


def test_dice_that_cannot_make_the_distance() -> None:
    assert "13/8 is 5 pips, which your dice 3-1 cannot make" in refused(START, (3, 1), "13/8")


def test_an_explicit_hit_mark_chooses_between_hitting_and_not_hitting_on_the_way() -> None:
    # A blot on my 19 (their 6) and an open 18: 24/13 with 6-5 may hit on the way (via 19) or not (via 18).
    pos = theirs_own({24: 2, 13: 5, 8: 3, 6: 5}, {6: 1, 13: 5, 8: 3, 24: 2, 5: 4})
    quiet = BG.check_play(pos, (6, 5), "24/13")
    hitting = BG.check_play(pos, (6, 5), "24/19*/13")
    assert quiet.position.bar == (0, 0) and quiet.notation == "24/13"
    assert hitting.position.bar == (0, 1) and hitting.notation == "24/19*/13"


def test_a_pass_is_accepted_only_when_nothing_can_move() -> None:
    shut = theirs_own({13: 5, 8: 3, 6: 5}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2}, bar=(2, 0))
    assert BG.check_play(shut, (6, 6), "").position == shut
    assert "you must move" in refused(START, (6, 6), "")
    assert "no legal play with 6-6" in refused(shut, (6, 6), "bar/19")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=game_positions(BG), roll=dice, seed=st.integers(0, 2**16))
def test_any_submove_order_of_a_legal_play_is_accepted(pos: Position, roll: tuple[int, int], seed: int) -> None:
    plays = BG.legal_plays(pos, roll)
    play = random.Random(seed).choice(plays.plays)
    moves = list(play.moves)
    random.Random(seed).shuffle(moves)
    text = " ".join(format_plain([m]) for m in moves)
    assert BG.check_play(pos, roll, text, plays=plays).position == play.position


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=game_positions(BG), roll=dice, data=st.data())
def test_a_play_that_is_not_legal_is_refused_with_a_reason(
    pos: Position, roll: tuple[int, int], data: st.DataObject
) -> None:
    plays = BG.legal_plays(pos, roll)
    mine = [p for p in range(1, 26) if (pos.board[p - 1] > 0 if p < 25 else pos.bar[0] > 0)]
    n = data.draw(st.integers(1, 4))
    moves = []
    for _ in range(n):
        src = data.draw(st.sampled_from(mine))
        dst = data.draw(st.integers(0, src - 1))
        moves.append(f"{src}/{dst}")
    text = " ".join(moves)
    try:
        play = BG.check_play(pos, roll, text, plays=plays)
    except IllegalPlay as exc:
        assert len(str(exc)) > 10
    else:
        assert play in plays.plays


def test_a_hit_mark_where_nothing_is_hit_is_refused_and_an_unmarked_hit_is_played() -> None:
    """Issue 33, item 4: the README says a play whose marks are wrong is refused; marks stay optional."""
    assert (
        refused(START, (6, 1), "13/7* 8/7") == "7* marks a hit, but no checker is hit on 7: leave the * out (13/7 8/7)"
    )
    blot = theirs_own({13: 5, 8: 3, 6: 5, 24: 2}, {13: 5, 8: 3, 6: 4, 24: 2, 20: 1})  # their blot on our 5 point
    assert BG.check_play(blot, (3, 1), "8/5* 6/5").notation == BG.check_play(blot, (3, 1), "8/5 6/5").notation
