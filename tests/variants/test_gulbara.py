"""Gul bara (rules-family §10): the doublet cascade as turn stages whose dice the rule set fixes, from each player's
fourth turn; a cascade cut short (the rest lost, or handed to the opponent with the option); the turn context the
rule set is given; and the stage state stored and read back."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Position
from engine.match import MatchState, Move, OpeningRoll, Phase, Roll, Stage, apply, new_match
from engine.plugins import get_variant
from engine.record import state_from_data, state_to_data
from engine.variant import NextStage, TurnContext, TurnStep, VariantOptionError

#: A position (Alice on roll, her fourth turn next) where 2-2 and then 3-3 are played in full and 4-4 only twice.
CUT_AT_FOUR = "21:-2 20:-2 19:4 18:-2 16:-1 14:-1 13:-4 10:1 8:-1 7:-1 5:4 4:3 3:-1 1:3"


def _start(**options: object) -> MatchState:
    state = new_match(get_variant("gulbara", **options), [["alice"], ["bob"]])
    return apply(state, OpeningRoll("alice", (2, 1)))  # Alice starts and throws both dice (opening=reroll)


def _play_first(state: MatchState) -> MatchState:
    assert state.roller is not None
    return apply(state, Move(state.acting_member(state.roller), state.legal_plays()[0].moves))


def _roll(state: MatchState, dice: tuple[int, int]) -> MatchState:
    assert state.phase is Phase.ROLL and state.roller is not None
    return apply(state, Roll(state.acting_member(state.roller), dice))


def _stages(state: MatchState, side: int) -> tuple[MatchState, list[tuple[tuple[int, int], int]]]:
    """Play every stage of ``side``'s turn with its first legal play: the state after, and each stage's dice and dice
    used."""
    seen = []
    while state.phase is Phase.MOVE and state.roller == side:
        assert state.dice is not None
        seen.append((state.dice, state.legal_plays().max_dice))
        state = _play_first(state)
    return state, seen


def test_a_doublet_cascades_from_the_fourth_turn_and_plays_normally_before() -> None:
    state = _start()
    rolls = [(6, 5), (6, 4), (3, 3), (5, 1), (6, 2), (4, 1)]  # Alice 1, Bob 1, Alice 2 (a doublet), ...
    for k, dice in enumerate(rolls):
        side = k % 2
        state = _roll(state, dice)
        assert state.turns[side] == k // 2 + 1 and state.turn_context().turn == k // 2 + 1
        state, seen = _stages(state, side)
        assert seen == [(dice, 4 if dice[0] == dice[1] else 2)]  # the 3-3 of turn 2: four 3s, and the turn passes
        assert state.roller == 1 - side and state.phase is Phase.ROLL
    state = _roll(state, (2, 2))  # Alice's fourth turn
    assert state.turn_context().turn == 4
    played = []
    while state.roller == 0 and state.phase is Phase.MOVE:
        assert state.dice is not None
        played.append(state.dice)
        assert state.stage is (Stage.NONE if state.dice == (2, 2) else Stage.FIXED)
        assert [d for d, _count, _used in state.stages] == played[:-1]
        state = _play_first(state)
    assert played == [(2, 2), (3, 3), (4, 4), (5, 5), (6, 6)]
    assert state.roller == 1 and state.phase is Phase.ROLL and state.stages == ()
    assert state.last_move is not None and state.last_move[1] == (6, 6)


def _before_cut(**options: object) -> MatchState:
    state = _start(**options)
    pos = Position.parse(CUT_AT_FOUR)
    return replace(state, position=pos, turns=(3, 3), moved=(True, True), _plays=None)


def test_a_stage_that_cannot_be_played_in_full_ends_the_cascade_and_the_rest_is_lost() -> None:
    state, seen = _stages(_roll(_before_cut(), (2, 2)), 0)
    assert seen == [((2, 2), 4), ((3, 3), 4), ((4, 4), 2)]
    assert state.roller == 1 and state.phase is Phase.ROLL and state.stage is Stage.NONE


def test_with_rest_to_opponent_the_unplayed_dice_and_later_stages_go_to_the_opponent() -> None:
    state, seen = _stages(_roll(_before_cut(rest_to_opponent=True), (2, 2)), 0)
    assert seen == [((2, 2), 4), ((3, 3), 4), ((4, 4), 2)]
    # Bob plays the two 4s left, then 5-5 and 6-6 (as far as he can), before his own roll.
    assert state.roller == 1 and state.phase is Phase.MOVE and state.stage is Stage.HANDED
    assert (state.dice, state.count) == ((4, 4), 2)
    assert state.legal_plays().max_dice <= 2 and state.draft().remaining == (4, 4)
    data = state_to_data(state)
    assert state_from_data(state.setup, data) == state
    state, handed = _stages(state, 1)
    assert handed[0] == ((4, 4), 2)
    dice = [d for d, _used in handed]
    assert dice == [(4, 4), (5, 5), (6, 6)][: len(dice)]
    assert state.roller == 1 and state.phase is Phase.ROLL and state.stage is Stage.NONE
    assert state.turns == (4, 3)  # the dice handed over are not a turn of Bob's
    state = _roll(state, (6, 5))
    assert state.turns == (4, 4)


def test_a_stage_in_progress_is_stored_and_read_back() -> None:
    state = _roll(_before_cut(), (2, 2))
    state = _play_first(state)
    assert state.stage is Stage.FIXED and state.dice == (3, 3)
    data = state_to_data(state)
    assert data["stage"] == "fixed" and data["stages"] == [[[2, 2], None, 4]] and data["turns"] == [4, 3]
    assert state_from_data(state.setup, data) == state


@pytest.mark.parametrize(
    ("dice", "used", "context", "expected"),
    [
        ((3, 3), 4, TurnContext(turn=3), None),
        ((3, 3), 4, TurnContext(turn=4), NextStage.fixed((4, 4))),
        ((6, 6), 4, TurnContext(turn=9), None),
        ((4, 4), 2, TurnContext(turn=9), None),
        ((5, 3), 2, TurnContext(turn=9), None),
        ((4, 4), 4, TurnContext(turn=1, handed=True), NextStage.fixed((5, 5))),
        ((4, 4), 2, TurnContext(turn=1, handed=True, count=2), NextStage.fixed((5, 5))),
    ],
)
def test_the_cascade_rule(dice: tuple[int, int], used: int, context: TurnContext, expected: object) -> None:
    assert get_variant("gulbara").next_stage(dice, used, context) == expected


def test_options_cascade_from_and_rest_to_opponent() -> None:
    early = get_variant("gulbara", cascade_from=1)
    assert early.next_stage((2, 2), 4, TurnContext(turn=1)) == NextStage.fixed((3, 3))
    rest = get_variant("gulbara", rest_to_opponent=True)
    assert rest.next_stage((4, 4), 1, TurnContext(turn=5)) == NextStage(TurnStep.TO_OPPONENT, (4, 4), 3)
    with pytest.raises(VariantOptionError):
        get_variant("gulbara", cascade_from=0)


def test_fevgas_rules_are_options_off_by_default() -> None:
    plain = get_variant("gulbara")
    start = plain.start_position()
    assert plain.turn_rules(start, (6, 5), True) is None
    ruled = get_variant("gulbara", first_checker=True, own_quarter=True, block_rule="prohibit")
    assert ruled.turn_rules(start, (6, 5), True) is not None
    # Fevga's first-checker rule: only one checker leaves the start in the first turn.
    assert len(plain.legal_plays(start, (6, 5), True)) > len(ruled.legal_plays(start, (6, 5), True))
    assert get_variant("fevga", own_quarter=False).turn_rules(start, (6, 5), True) is not None
