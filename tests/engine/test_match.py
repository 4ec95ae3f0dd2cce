"""The match state machine: turn order, cube, optional rules and scoring, each rule a named test (rules.md §1)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.match import (
    AcceptResignation,
    ActionError,
    Beaver,
    Cube,
    Double,
    EndReason,
    Forfeit,
    MatchOptionError,
    MatchOptions,
    MatchState,
    Move,
    OpeningRoll,
    OpeningRule,
    Pass,
    Phase,
    Raccoon,
    RejectResignation,
    Resign,
    Roll,
    Take,
    Timeout,
    TimeoutPolicy,
    apply,
    move_from_text,
    new_match,
)
from engine.plugins import get_variant
from engine.position import Position
from variants.backgammon import Backgammon

BG = get_variant("backgammon")
A, B = "alice", "bob"
WHO = (A, B)


def start(**options: object) -> MatchState:
    return new_match(BG, [[A], [B]], MatchOptions(**options))  # type: ignore[arg-type]


def open_for(state: MatchState, side: int, dice: tuple[int, int] = (3, 1)) -> MatchState:
    """The opening roll, won by ``side`` with ``dice`` (higher die first)."""
    hi, lo = max(dice), min(dice)
    return apply(state, OpeningRoll(WHO[side], (hi, lo) if side == 0 else (lo, hi)))


def play_first(state: MatchState) -> MatchState:
    """The roller plays the first legal play."""
    assert state.roller is not None
    return apply(state, Move(WHO[state.roller], state.legal_plays()[0].moves))


def turn(state: MatchState, dice: tuple[int, int] = (5, 2)) -> MatchState:
    """The player on roll rolls and plays."""
    assert state.roller is not None
    return play_first(apply(state, Roll(WHO[state.roller], dice)))


def concede(state: MatchState, loser: int, level: int = 1) -> MatchState:
    """A whole game: the loser wins the opening, then resigns ``level`` and the winner accepts."""
    state = open_for(state, loser)
    state = apply(state, Resign(WHO[loser], level))
    if state.phase is Phase.RESIGNED:
        state = apply(state, AcceptResignation(WHO[1 - loser]))
    return state


def ready_to_bear_off(state: MatchState, board: str) -> MatchState:
    """Side 0 on roll with 6-5 in the given position (roller's frame)."""
    state = open_for(state, 0)
    return replace(state, position=Position.parse(board), dice=(6, 5), _plays=None)


# --- opening roll ------------------------------------------------------------------------------------
def test_opening_roll_tie_is_recorded_and_thrown_again() -> None:
    s = apply(start(), OpeningRoll(A, (4, 4)))
    assert s.phase is Phase.OPENING and s.opening_ties == 1 and s.cube == Cube()
    s = apply(s, OpeningRoll(B, (2, 5)))
    assert s.phase is Phase.MOVE and s.roller == 1 and s.opening_ties == 1


def test_opening_winner_plays_both_numbers() -> None:
    s = open_for(start(), 1, (6, 1))
    assert s.roller == 1 and sorted(s.dice or ()) == [1, 6]
    assert "13/7 8/7" in {p.notation for p in s.legal_plays()}
    s = apply(s, move_from_text(s, B, "13/7 8/7"))
    assert s.phase is Phase.ROLL and s.roller == 0


def test_opening_winner_cannot_double_before_the_first_move() -> None:
    s = open_for(start(length=5), 0)
    with pytest.raises(ActionError, match="already rolled"):
        apply(s, Double(A))


# --- turn order --------------------------------------------------------------------------------------
def test_wrong_player_is_refused_naming_who_acts() -> None:
    s = play_first(open_for(start(), 0))
    with pytest.raises(ActionError, match="not your turn to roll: bob must act now"):
        apply(s, Roll(A, (3, 3)))


def test_must_roll_before_moving() -> None:
    s = play_first(open_for(start(), 0))
    with pytest.raises(ActionError, match="must roll first"):
        apply(s, Move(B, ((24, 21, False),)))


def test_stranger_is_refused() -> None:
    with pytest.raises(ActionError, match="'carol' is not playing in this match"):
        apply(start(), OpeningRoll("carol", (3, 1)))


def test_illegal_play_is_refused_naming_the_rule() -> None:
    s = open_for(start(), 0, (6, 5))
    with pytest.raises(ActionError, match="both dice"):
        apply(s, Move(A, ((24, 18, False),)))


def test_dance_passes_the_turn_at_once() -> None:
    s = open_for(start(), 0)
    closed = "24:-2 23:-2 22:-2 21:-2 20:-2 19:-2 6:14 1:-3 bar:1/0"
    s = replace(s, position=Position.parse(closed), phase=Phase.ROLL, dice=None, _plays=None)
    s = apply(s, Roll(A, (6, 6)))
    assert s.phase is Phase.ROLL and s.roller == 1
    assert s.last_move == (0, (6, 6), ())


def test_action_after_match_end_is_refused() -> None:
    s = concede(start(length=1), 1)
    assert s.over and s.winner == 0
    with pytest.raises(ActionError, match="match is over"):
        apply(s, OpeningRoll(A, (3, 1)))


# --- cube --------------------------------------------------------------------------------------------
def test_take_doubles_the_cube_and_gives_it_to_the_taker() -> None:
    s = play_first(open_for(start(length=7), 0))
    s = apply(apply(s, Double(B)), Take(A))
    assert s.cube == Cube(2, 0) and s.phase is Phase.ROLL and s.roller == 1


def test_cube_owner_may_redouble_and_the_other_may_not() -> None:
    s = play_first(open_for(start(length=7), 0))
    s = apply(apply(s, Double(B)), Take(A))
    s = turn(s)  # bob plays; alice on roll and owns the cube
    s = apply(apply(s, Double(A)), Take(B))
    assert s.cube == Cube(4, 1)
    s = turn(s)  # alice plays; bob owns it
    s = turn(s)  # bob plays; alice on roll without the cube
    with pytest.raises(ActionError, match="cube is not yours: bob owns it"):
        apply(s, Double(A))


def test_drop_pays_the_value_before_the_double() -> None:
    s = play_first(open_for(start(length=7), 0))
    s = apply(apply(s, Double(B)), Take(A))  # cube 2, alice's
    s = turn(s)
    s = apply(apply(s, Double(A)), Pass(B))
    assert s.results[-1].points == 2 and s.results[-1].reason is EndReason.PASS
    assert s.score == (2, 0) and s.game == 2


def test_cube_limit_stops_doubling() -> None:
    s = play_first(open_for(start(length=7, max_cube=2), 0))
    s = apply(apply(s, Double(B)), Take(A))
    s = turn(s)
    with pytest.raises(ActionError, match="limit of 2"):
        apply(s, Double(A))


def test_no_answer_other_than_to_the_double() -> None:
    s = apply(play_first(open_for(start(length=7), 0)), Double(B))
    with pytest.raises(ActionError, match="double is pending"):
        apply(s, Roll(B, (3, 1)))
    with pytest.raises(ActionError, match="cannot resign while a double is pending"):
        apply(s, Resign(B, 1))
    with pytest.raises(ActionError, match="not your turn to take"):
        apply(s, Take(B))


def test_rule_set_without_cube_refuses_doubles() -> None:
    class NoCube(Backgammon):
        name = "nocube"
        display_name = "No-cube backgammon"
        uses_cube = False

    s = new_match(NoCube(), [[A], [B]], MatchOptions(length=3))
    s = play_first(open_for(s, 0))
    with pytest.raises(ActionError, match="played without the doubling cube"):
        apply(s, Double(B))


def test_cube_switched_off_by_option() -> None:
    s = play_first(open_for(start(length=3, cube=False), 0))
    with pytest.raises(ActionError, match="switched off"):
        apply(s, Double(B))


# --- Crawford ----------------------------------------------------------------------------------------
def test_crawford_game_allows_no_double() -> None:
    s = concede(start(length=3), 1, 2)  # alice 2-0: one point from winning
    assert s.score == (2, 0) and s.crawford_game and s.post_crawford
    s = play_first(open_for(s, 0))
    with pytest.raises(ActionError, match="Crawford game"):
        apply(s, Double(B))


def test_post_crawford_trailer_may_double() -> None:
    s = concede(start(length=3), 1, 2)
    s = concede(s, 0, 1)  # Crawford game: bob wins 1 -> 2-1
    assert s.score == (2, 1) and not s.crawford_game and s.post_crawford
    s = play_first(open_for(s, 0))
    s = apply(s, Double(B))
    assert s.phase is Phase.DOUBLED and s.responder == 0


def test_crawford_is_played_once_only() -> None:
    s = concede(start(length=5), 1, 3)  # 3-0
    assert not s.crawford_game
    s = concede(s, 1, 1)  # 4-0: Crawford
    assert s.crawford_game
    s = concede(s, 0, 3)  # 4-3 after the Crawford game
    assert not s.crawford_game and s.post_crawford
    s = concede(s, 0, 1)  # 4-4: both at match point, still no second Crawford game
    assert not s.crawford_game


def test_no_crawford_when_both_reach_match_point_together() -> None:
    # GNU Backgammon: Crawford only when exactly one side is at length - 1 (a 1-point match never has one).
    assert not start(length=1).crawford_game


def test_crawford_off_by_option() -> None:
    s = concede(start(length=3, crawford=False), 1, 2)
    assert not s.crawford_game
    s = play_first(open_for(s, 0))
    assert apply(s, Double(B)).phase is Phase.DOUBLED


# --- Holland -----------------------------------------------------------------------------------------
def post_crawford_holland(**options: object) -> MatchState:
    s = concede(start(length=3, holland=True, **options), 1, 2)
    return concede(s, 0, 1)  # 2-1, post-Crawford; bob trails


def test_holland_trailer_may_not_double_before_two_rolls_each() -> None:
    s = play_first(open_for(post_crawford_holland(), 0))  # alice's opening counts as her first roll
    with pytest.raises(ActionError, match="Holland rule"):
        apply(s, Double(B))
    s = turn(turn(s))  # bob 1 roll, alice 2
    with pytest.raises(ActionError, match="Holland rule"):
        apply(s, Double(B))
    s = turn(turn(s))  # bob 2, alice 3
    assert apply(s, Double(B)).phase is Phase.DOUBLED


def test_holland_opening_roll_not_counted_when_configured() -> None:
    s = play_first(open_for(post_crawford_holland(holland_counts_opening=False), 0))
    s = turn(turn(s))
    s = turn(turn(s))  # bob 2 rolls, alice 2 (opening not counted)
    assert s.rolls == (2, 2)
    assert apply(s, Double(B)).phase is Phase.DOUBLED


def test_holland_is_match_play_only() -> None:
    with pytest.raises(MatchOptionError, match="Holland"):
        start(holland=True)


# --- Jacoby, beavers, raccoons, automatic doubles ------------------------------------------------------------
GAMMON = "1:1 19:-15 off:14/0"  # the opponent has borne off nothing and is out of my home board
BACKGAMMON = "1:1 19:-14 3:-1 off:14/0"


def test_jacoby_voids_a_gammon_while_the_cube_is_centred() -> None:
    s = ready_to_bear_off(start(jacoby=True), GAMMON)
    s = apply(s, move_from_text(s, A, "1/off"))
    assert s.results[-1].level == 1 and s.score == (1, 0)


def test_jacoby_gammon_counts_once_the_cube_is_turned() -> None:
    s = replace(ready_to_bear_off(start(jacoby=True), GAMMON), cube=Cube(2, 0))
    s = apply(s, move_from_text(s, A, "1/off"))
    assert s.results[-1].level == 2 and s.score == (4, 0)


def test_gammon_and_backgammon_count_without_jacoby() -> None:
    s = ready_to_bear_off(start(), GAMMON)
    assert apply(s, move_from_text(s, A, "1/off")).score == (2, 0)
    s = replace(ready_to_bear_off(start(), BACKGAMMON), cube=Cube(4, 1))
    assert apply(s, move_from_text(s, A, "1/off")).score == (12, 0)


def test_jacoby_is_money_only() -> None:
    with pytest.raises(MatchOptionError, match="money play only"):
        start(length=5, jacoby=True)


def test_beaver_keeps_the_cube_with_the_beavering_side_at_4() -> None:
    s = play_first(open_for(start(beavers=True), 0))
    s = apply(s, Double(B))
    s = apply(s, Beaver(A))
    assert s.cube == Cube(2, 0) and s.responder == 1
    s = apply(s, Take(B))
    assert s.cube == Cube(4, 0) and s.phase is Phase.ROLL and s.roller == 1


def test_dropping_a_beaver_pays_the_value_after_the_double() -> None:
    s = apply(apply(play_first(open_for(start(beavers=True), 0)), Double(B)), Beaver(A))
    s = apply(s, Pass(B))
    assert s.results[-1].winner == 0 and s.results[-1].points == 2


def test_raccoon_redoubles_again_and_the_cube_stays_with_the_beaverer() -> None:
    s = apply(apply(play_first(open_for(start(beavers=True), 0)), Double(B)), Beaver(A))
    s = apply(s, Raccoon(B))
    assert s.cube == Cube(4, 0) and s.responder == 0
    s = apply(s, Take(A))
    assert s.cube == Cube(8, 0)


def test_raccoon_then_drop_pays_four_times() -> None:
    s = apply(apply(play_first(open_for(start(beavers=True), 0)), Double(B)), Beaver(A))
    s = apply(apply(s, Raccoon(B)), Pass(A))
    assert s.results[-1].winner == 1 and s.results[-1].points == 4


def test_beaver_limit_stops_raccoons() -> None:
    s = apply(play_first(open_for(start(beavers=True, beaver_limit=1), 0)), Double(B))
    s = apply(s, Beaver(A))
    with pytest.raises(ActionError, match="no more redoubles"):
        apply(s, Raccoon(B))


def test_beaver_and_raccoon_answer_the_right_offer() -> None:
    s = apply(play_first(open_for(start(beavers=True), 0)), Double(B))
    with pytest.raises(ActionError, match="raccoon answers a beaver"):
        apply(s, Raccoon(A))
    s = apply(s, Beaver(A))
    with pytest.raises(ActionError, match="beaver answers a double"):
        apply(s, Beaver(B))


def test_beavers_are_refused_when_off_and_in_matches() -> None:
    s = apply(play_first(open_for(start(), 0)), Double(B))
    with pytest.raises(ActionError, match="beavers are off"):
        apply(s, Beaver(A))
    with pytest.raises(MatchOptionError, match="money play only"):
        start(length=5, beavers=True)


def test_automatic_doubles_up_to_the_limit_cube_stays_centred() -> None:
    s = start(auto_doubles=1)
    s = apply(s, OpeningRoll(A, (2, 2)))
    assert s.cube == Cube(2, None)
    s = apply(s, OpeningRoll(A, (5, 5)))
    assert s.cube == Cube(2, None) and s.opening_ties == 2
    s = apply(s, OpeningRoll(A, (5, 1)))
    s = play_first(s)
    s = apply(apply(s, Double(B)), Pass(A))
    assert s.score == (0, 2)


def test_automatic_doubles_do_not_unlock_gammons_under_jacoby() -> None:
    s = apply(start(auto_doubles=2, jacoby=True), OpeningRoll(A, (3, 3)))
    s = replace(ready_to_bear_off(s, GAMMON), cube=s.cube)
    s = apply(s, move_from_text(s, A, "1/off"))
    assert s.results[-1].level == 1 and s.score == (2, 0)


# --- resignations ------------------------------------------------------------------------------------
def test_resignation_accepted_pays_level_times_cube() -> None:
    s = play_first(open_for(start(length=9), 0))
    s = apply(apply(s, Double(B)), Take(A))  # cube 2
    s = apply(s, Resign(B, 2))
    assert s.phase is Phase.RESIGNED and s.responder == 0
    s = apply(s, AcceptResignation(A))
    assert s.score == (4, 0) and s.results[-1].reason is EndReason.RESIGN


def test_rejected_resignation_allows_only_a_higher_offer() -> None:
    s = play_first(open_for(start(length=9), 0))
    s = apply(apply(s, Resign(B, 1)), RejectResignation(A))
    assert s.phase is Phase.ROLL and s.roller == 1
    with pytest.raises(ActionError, match="only offer more"):
        apply(s, Resign(B, 1))
    assert apply(s, Resign(B, 2)).phase is Phase.RESIGNED


def test_resignation_only_on_your_own_turn() -> None:
    s = play_first(open_for(start(length=9), 0))
    with pytest.raises(ActionError, match="on your own turn"):
        apply(s, Resign(A, 1))


def test_resignation_auto_accepted_when_nothing_more_can_be_won() -> None:
    # The resigner has borne a checker off: no gammon possible, a single resignation concedes everything.
    s = open_for(start(length=9), 0)
    s = replace(s, position=Position.parse("1:1 19:-14 off:14/1"), _plays=None)
    s = apply(s, Resign(A, 1))
    assert s.results[-1].winner == 1 and s.score == (0, 1)
    # A backgammon resignation always concedes the most.
    assert concede(start(length=9), 0, 3).score == (0, 3)


def test_resignation_auto_accepted_when_it_wins_the_match() -> None:
    s = apply(open_for(start(length=1), 0), Resign(A, 1))
    assert s.over and s.winner == 1


def test_resignation_auto_accept_can_be_switched_off() -> None:
    s = apply(open_for(start(length=9, auto_accept_resign=False), 0), Resign(A, 3))
    assert s.phase is Phase.RESIGNED


# --- timeouts and forfeits -----------------------------------------------------------------------------
def test_timeout_ibf_credits_the_opponent_what_they_need() -> None:
    s = concede(start(length=7), 1, 2)  # 2-0
    s = play_first(open_for(s, 0))
    s = apply(s, Timeout(B))
    assert s.over and s.winner == 0 and s.score == (7, 0) and s.results[-1].reason is EndReason.TIMEOUT


def test_timeout_only_of_the_player_due_to_act() -> None:
    s = play_first(open_for(start(length=7), 0))
    with pytest.raises(ActionError, match="bob must act now"):
        apply(s, Timeout(A))
    with pytest.raises(ActionError, match="no clock is running"):
        apply(start(length=7), Timeout(A))


def test_timeout_in_money_loses_the_game_at_the_cube_value() -> None:
    s = play_first(open_for(start(games=3), 0))
    s = apply(apply(s, Double(B)), Take(A))
    s = turn(s)
    s = apply(s, Timeout(A))
    assert not s.over and s.score == (0, 2) and s.game == 2


def test_timeout_policy_game_keeps_the_match_going() -> None:
    s = play_first(open_for(start(length=7, timeout_policy=TimeoutPolicy.GAME), 0))
    s = apply(s, Timeout(B))
    assert not s.over and s.score == (1, 0)


def test_forfeit_ends_the_match_at_any_moment() -> None:
    s = apply(start(length=5), Forfeit(A))
    assert s.over and s.winner == 1 and s.score == (0, 5)
    s = apply(play_first(open_for(start(games=10), 0)), Forfeit(B))
    assert s.over and s.winner == 0 and s.score == (1, 0)


# --- match end -------------------------------------------------------------------------------------
def test_match_ends_when_a_side_reaches_the_length_with_overshoot() -> None:
    s = concede(start(length=2), 1, 3)
    assert s.over and s.winner == 0 and s.score == (3, 0)


def test_money_session_ends_after_its_games_and_may_tie() -> None:
    s = concede(concede(start(games=2), 0), 1)
    assert s.over and s.score == (1, 1) and s.winner is None


def test_options_are_checked() -> None:
    with pytest.raises(MatchOptionError, match="power of two"):
        start(max_cube=48)
    with pytest.raises(MatchOptionError, match="game count is for money"):
        start(length=5, games=3)
    with pytest.raises(MatchOptionError, match="seated twice"):
        new_match(BG, [[A], [A]])
    with pytest.raises(MatchOptionError, match="sides have 1 player"):
        new_match(BG, [[A, "carol"], [B]])


def test_resignation_never_pays_more_than_could_be_won() -> None:
    s = open_for(start(jacoby=True), 0)
    s = apply(s, Resign(A, 3))  # Jacoby, centred cube: a single game is the most bob can win
    assert s.results[-1].level == 1 and s.score == (0, 1)


# --- how games start -------------------------------------------------------------------------------------
def test_reroll_opening_decides_the_starter_who_then_rolls_both_dice() -> None:
    s = start(length=5, opening=OpeningRule.REROLL)
    s = apply(s, OpeningRoll(A, (2, 5)))
    assert s.phase is Phase.ROLL and s.roller == 1 and s.dice is None
    s = apply(s, Roll(B, (6, 6)))  # a doublet on the first move is possible under this rule
    assert s.phase is Phase.MOVE and s.dice == (6, 6)


def test_previous_winner_starts_the_next_game_without_an_opening_roll() -> None:
    s = start(length=5, opening=OpeningRule.PREVIOUS_WINNER)
    assert s.phase is Phase.OPENING  # the first game starts as IBF
    s = concede(s, 0)  # bob wins game 1
    assert s.game == 2 and s.phase is Phase.ROLL and s.roller == 1
    with pytest.raises(ActionError, match="not started|must roll first"):
        apply(s, OpeningRoll(A, (3, 1)))
    assert apply(s, Roll(B, (4, 4))).dice == (4, 4)
