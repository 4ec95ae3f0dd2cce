"""Injected dice and the match record: a scripted game replays exactly; state is a fold over the actions."""

from __future__ import annotations

import pytest

from engine.dice import DiceExhausted, RandomDice, ScriptedDice
from engine.match import (
    MatchOptions,
    OpeningRoll,
    Phase,
    Roll,
    apply,
    move_from_text,
    new_match,
    replay,
    roll_action,
    states,
)
from engine.plugins import get_variant

BG = get_variant("backgammon")


def test_scripted_dice_drive_an_exact_game_and_the_record_replays_it() -> None:
    dice = ScriptedDice([(2, 2), (1, 3), (6, 4), (5, 5)])
    s = new_match(BG, [["a"], ["b"]], MatchOptions(length=3))
    record = []
    for by, play in (("a", None), ("b", None), ("b", "8/5 6/5"), ("a", None), ("a", "24/14"), ("b", None)):
        action = roll_action(s, by, dice) if play is None else move_from_text(s, by, play)
        s = apply(s, action)
        record.append(action)
    # The tie is recorded; side 1 won the opening 3-1 and played it; then each rolled from the script.
    assert record[:2] == [OpeningRoll("a", (2, 2)), OpeningRoll("b", (1, 3))]
    assert record[3] == Roll("a", (6, 4)) and record[5] == Roll("b", (5, 5))
    assert s.phase is Phase.MOVE and s.dice == (5, 5) and dice.remaining == 0
    assert replay(s.setup, record) == s
    assert list(states(s.setup, record))[-1] == s
    with pytest.raises(DiceExhausted, match="ran out after 4 rolls"):
        dice()


def test_seeded_dice_repeat_and_are_fair_dice() -> None:
    a, b = RandomDice(5), RandomDice(5)
    rolls = [a() for _ in range(600)]
    assert rolls == [b() for _ in range(600)]
    faces = [d for roll in rolls for d in roll]
    assert set(faces) == {1, 2, 3, 4, 5, 6} and all(120 <= faces.count(f) <= 280 for f in range(1, 7))


def test_scripted_dice_refuse_impossible_rolls() -> None:
    with pytest.raises(ValueError, match="1 to 6"):
        ScriptedDice([(0, 3)])


def test_recorded_dice_are_checked() -> None:
    s = new_match(BG, [["a"], ["b"]])
    from engine.match import ActionError

    with pytest.raises(ActionError, match="two numbers from 1 to 6"):
        apply(s, OpeningRoll("a", (7, 1)))
