"""Undo within a turn: the immutable turn draft (add a checked submove, undo, confirm into a play action)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.match import ActionError, MatchOptions, Move, OpeningRoll, Phase, apply, confirm, new_match
from engine.plugins import get_variant
from engine.position import Position
from engine.turn import TurnDraft, TurnError, check_moves

BG = get_variant("backgammon")


def opening(dice: tuple[int, int] = (3, 1)):  # type: ignore[no-untyped-def]
    s = new_match(BG, [["a"], ["b"]], MatchOptions(length=3))
    return apply(s, OpeningRoll("a", dice))


def test_draft_builds_confirms_and_enters_the_record() -> None:
    s = opening()
    d = s.draft().add(8, 5)
    assert not d.complete and d.remaining == (1,)
    d = d.add(6, 5)
    assert d.complete and d.notation == "8/5 6/5"
    s2 = apply(s, confirm(s, d, "a"))
    assert s2.phase is Phase.ROLL and s2.roller == 1
    assert s2.last_move == (0, (3, 1), ((8, 5, False), (6, 5, False)))


def test_undo_takes_back_the_last_submove_only() -> None:
    d = opening().draft().add(24, 21).add(21, 20)
    assert d.undo().moves == ((24, 21, False),)
    assert d.undo().undo().moves == ()
    assert d.undo().add(8, 7).complete
    with pytest.raises(TurnError, match="nothing to undo"):
        d.undo().undo().undo()


def test_drafts_are_immutable_values() -> None:
    d0 = opening().draft()
    d1 = d0.add(8, 5)
    assert d0.moves == () and d1.moves == ((8, 5, False),)


def test_a_submove_legal_alone_but_leading_to_no_legal_play_is_refused() -> None:
    # rules.md §1.5 vector 2: only 24/18 is legal with 6-3 (24/21 is playable alone but illegal).
    pos = Position.from_points({24: 1, 2: 7, 1: 7}, {15: 2})
    d = TurnDraft(BG, pos, (6, 3))
    with pytest.raises(TurnError, match="no legal play continues"):
        d.add(24, 21)
    assert d.add(24, 18).complete
    assert d.options() == [(24, 18)]


def test_blocked_submove_names_the_rule() -> None:
    d = opening((6, 5)).draft()
    with pytest.raises(TurnError, match="blocked"):
        d.add(13, 7).add(24, 19).undo().add(6, 1)  # 6/1 lands on the opponent's 2 checkers
    with pytest.raises(TurnError, match="cannot be made with one of the dice"):
        d.add(13, 9)


def test_confirm_refuses_an_unfinished_draft() -> None:
    s = opening()
    with pytest.raises(ActionError, match="not finished"):
        confirm(s, s.draft().add(8, 5), "a")


def test_draft_of_another_roll_is_refused() -> None:
    s = opening()
    other = replace(s.draft(), dice=(4, 2))
    with pytest.raises(ActionError, match="does not belong"):
        confirm(s, other, "a")


def test_options_list_every_first_submove_of_the_opening_31() -> None:
    d = opening().draft()
    firsts = set(d.options())
    assert (8, 5) in firsts and (24, 21) in firsts and (6, 5) in firsts and (24, 23) in firsts
    # Every option leads to a legal play: adding then completing in some way is always possible.
    for src, dst in firsts:
        nxt = d.add(src, dst)
        assert nxt.complete or nxt.options()


def test_check_moves_accepts_any_legal_order_and_recomputes_hits() -> None:
    pos = Position.parse("24:2 13:5 8:3 6:5 20:-1 19:-4 17:-3 12:-5 1:-2")
    plays = BG.legal_plays(pos, (4, 1))
    moves, after = check_moves(BG, pos, (4, 1), [(24, 23), (24, 20)], plays)
    assert moves == ((24, 23, False), (24, 20, True))
    assert after.bar == (0, 1)


def test_move_action_needs_the_maximal_play() -> None:
    s = opening((6, 5))
    with pytest.raises(ActionError, match="both dice"):
        apply(s, Move("a", ((13, 7, False),)))
    with pytest.raises(ActionError, match="no dice left"):
        apply(s, Move("a", ((13, 7, False), (13, 8, False), (8, 3, False))))


def test_draft_checks_longgammon_six_block_after_every_submove() -> None:
    # rules.md §2.6: 24/21/20 is not a legal order (24/21 blocks all 15 mid-turn), 24/23/20 is.
    from engine.plugins import find_variant

    try:
        lg = find_variant("longgammon")()
    except LookupError:
        pytest.skip("variants/longgammon.py is not registered")
    pos = Position.from_points({24: 10, 20: 1, 19: 1, 18: 1, 17: 1, 16: 1}, {12: 15})
    d = TurnDraft(lg, pos, (3, 1))
    with pytest.raises(TurnError, match="block of six"):
        d.add(24, 21)
    assert d.add(24, 23).add(23, 20).complete
    with pytest.raises(TurnError, match="block of six"):
        check_moves(lg, pos, (3, 1), [(24, 21), (21, 20)], lg.legal_plays(pos, (3, 1)))
