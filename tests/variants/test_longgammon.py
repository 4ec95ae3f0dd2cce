"""Longgammon (rules.md §2): one named test per rule, with the §2.5–2.6 examples, and properties of random games."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalPlay, Position, PositionError, VariantOptionError
from engine.plugins import find_variant, get_variant
from tests.engine.strategies import dice
from variants.longgammon import Longgammon, LonggammonTurn

LG = get_variant("longgammon")


def position(mine: dict[int, int], theirs_own: dict[int, int], off: tuple[int, int] = (0, 0)) -> Position:
    """A position from my checkers (my numbering) and the opponent's, given in the opponent's own numbering."""
    theirs = {LG.geometry.my_point(q): n for q, n in theirs_own.items()}
    return Position.from_points(mine, theirs, off=off)


def results(pos: Position, roll: tuple[int, int], first_move: bool = False, variant: Longgammon = LG) -> set[str]:
    """The legal plays as the positions they leave, in the one-line text form."""
    return {str(p.position) for p in variant.legal_plays(pos, roll, first_move)}


def after(pos: Position, play: str, roll: tuple[int, int], first_move: bool = False) -> str:
    return str(LG.check_play(pos, roll, play, first_move).position)


# --- the board ------------------------------------------------------------------------------------------
def test_the_rule_set_is_registered_under_its_names_and_aliases() -> None:
    assert find_variant("longgammon") is Longgammon
    assert find_variant("Long-Nardy") is Longgammon
    assert LG.gnubg_compatible is False and LG.mat_variation == "Longgammon"
    assert LG.uses_cube and not LG.hitting and LG.point_blocked_by == 1


def test_all_fifteen_checkers_start_on_the_head_and_the_heads_are_in_opposite_corners() -> None:
    start = LG.start_position()
    assert start == Position.parse("24:15 12:-15")
    assert LG.flip(start) == start
    LG.validate_position(start)


def test_the_opponents_numbering_is_mine_turned_by_twelve_points() -> None:
    for mine in range(1, 25):
        assert LG.geometry.their_point(mine) == ((mine + 11) % 24) + 1
        assert LG.geometry.their_point(LG.geometry.their_point(mine)) == mine
    assert LG.geometry.their_point(24) == 12 and LG.geometry.their_point(13) == 1
    assert not LG.geometry.has_bar


def test_pip_counts_measure_each_players_own_route() -> None:
    assert LG.pips(LG.start_position()) == (360, 360)


# --- a single checker blocks a point ---------------------------------------------------------------------
def test_a_single_opposing_checker_blocks_a_point() -> None:
    # The opponent's checker on his 6-point stands on my 18.
    pos = position({24: 15}, {24: 14, 6: 1})
    assert pos.theirs(18) == 1
    # 24/18/17 is barred, so the only play is 24/23/17.
    assert results(pos, (6, 1)) == {str(position({24: 14, 17: 1}, {24: 14, 6: 1}))}
    with pytest.raises(IllegalPlay, match="a single opposing checker holds a point"):
        LG.check_play(pos, (6, 1), "24/18/17")


def test_nothing_is_ever_hit_and_there_is_no_bar() -> None:
    pos = position({24: 14, 20: 1}, {24: 14, 13: 1})
    for roll in [(a, b) for a in range(1, 7) for b in range(a, 7)]:
        for play in LG.legal_plays(pos, roll):
            assert not any(hit for _, _, hit in play.moves)
            assert play.position.bar == (0, 0)
            assert play.position.checkers()[1] == 15
    with pytest.raises(PositionError, match="no bar"):
        LG.validate_position(Position.parse("24:14 12:-15 bar:1/0"))
    with pytest.raises(IllegalPlay, match="no bar"):
        LG.check_play(pos, (3, 1), "bar/22")


# --- the head rule ----------------------------------------------------------------------------------------
def test_only_one_checker_may_leave_the_head_per_turn() -> None:
    pos = position({24: 13, 20: 1, 19: 1}, {24: 14, 23: 1})
    for play in LG.legal_plays(pos, (5, 3)):
        assert play.position.mine(24) >= 12
    with pytest.raises(IllegalPlay, match="only one checker may leave the head this turn"):
        LG.check_play(pos, (5, 3), "24/19 24/21")
    assert after(pos, "24/16", (5, 3)) == str(position({24: 12, 20: 1, 19: 1, 16: 1}, {24: 14, 23: 1}))


def test_later_turn_six_six_plays_only_one_six_from_the_head() -> None:
    # rules.md §2.5: own 24:13, 18:2; opponent 13 on his head, one each on his 20 and 19; 6-6.
    pos = position({24: 13, 18: 2}, {24: 13, 20: 1, 19: 1})
    plays = LG.legal_plays(pos, (6, 6))
    assert plays.max_dice == 1
    assert results(pos, (6, 6)) == {str(position({24: 12, 18: 3}, {24: 13, 20: 1, 19: 1}))}


# The second player's first turn: the opponent opened 6-5 with 24/13.
SECOND_PLAYER = position({24: 15}, {24: 14, 13: 1})


@pytest.mark.parametrize(
    ("roll", "plays"),
    [
        ((6, 6), ["24/18(2)"]),
        ((4, 4), ["24/16(2)"]),
        ((3, 3), ["24/18(2)", "24/15 24/21"]),
        ((5, 5), ["24/4"]),
        ((2, 2), ["24/16"]),
        ((6, 5), ["24/13"]),
    ],
)
def test_first_turn_plays_of_the_second_player(roll: tuple[int, int], plays: list[str]) -> None:
    """rules.md §2.5: 6-6, 4-4 and 3-3 let two checkers leave the head on the first turn, nothing else does."""
    expected = {after(SECOND_PLAYER, play, roll, first_move=True) for play in plays}
    assert results(SECOND_PLAYER, roll, first_move=True) == expected


def test_the_first_turn_exception_is_for_the_first_turn_only() -> None:
    assert results(SECOND_PLAYER, (6, 6), first_move=False) == {str(position({24: 14, 18: 1}, {24: 14, 13: 1}))}
    with pytest.raises(IllegalPlay, match="only one checker may leave the head this turn"):
        LG.check_play(SECOND_PLAYER, (4, 4), "24/16(2)")


def test_never_more_than_two_checkers_leave_the_head_even_on_the_first_turn() -> None:
    with pytest.raises(IllegalPlay, match="only two checkers may leave the head"):
        LG.check_play(SECOND_PLAYER, (3, 3), "24/21(3) 21/18", first_move=True)


def test_the_doublets_of_the_head_exception_are_an_option() -> None:
    every_doublet = Longgammon(first_turn_doublets=(1, 2, 3, 4, 5, 6))
    five_five = results(SECOND_PLAYER, (5, 5), first_move=True, variant=every_doublet)
    assert str(position({24: 13, 14: 2}, {24: 14, 13: 1})) in five_five
    assert Longgammon(first_turn_doublets=[3]).options["first_turn_doublets"] == (3,)
    with pytest.raises(VariantOptionError, match="die numbers 1 to 6"):
        Longgammon(first_turn_doublets=(7,))


# --- the six-block rule -----------------------------------------------------------------------------------
# rules.md §2.6: own 24:10 and one each on 20, 19, 18, 17, 16; the opponent has all 15 on his head.
PRIME = position({24: 10, 20: 1, 19: 1, 18: 1, 17: 1, 16: 1}, {24: 15})


def test_a_block_of_six_with_no_opposing_checker_in_front_is_not_a_legal_submove_order() -> None:
    with pytest.raises(IllegalPlay, match=r"block of six points \(21, 20, 19, 18, 17, 16\) with no opposing checker"):
        LG.check_play(PRIME, (3, 1), "24/21/20")


def test_the_same_position_reached_without_a_block_on_the_way_is_legal() -> None:
    reached = LG.check_play(PRIME, (3, 1), "24/23/20").position
    assert reached == position({24: 9, 20: 2, 19: 1, 18: 1, 17: 1, 16: 1}, {24: 15})
    assert LG.check_play(PRIME, (3, 1), "24/20").position == reached
    assert reached in LG.legal_plays(PRIME, (3, 1)).positions


def test_a_final_position_is_legal_when_some_order_of_its_submoves_is() -> None:
    # 24/21 first would block six points; 16/15 first opens the run, and then 24/21 is fine.
    reached = LG.check_play(PRIME, (3, 1), "16/15 24/21").position
    assert reached == position({24: 9, 21: 1, 20: 1, 19: 1, 18: 1, 17: 1, 15: 1}, {24: 15})
    assert reached in LG.legal_plays(PRIME, (3, 1)).positions


def test_no_legal_play_ever_leaves_a_forbidden_block() -> None:
    for roll in [(a, b) for a in range(1, 7) for b in range(a, 7)]:
        for play in LG.legal_plays(PRIME, roll):
            LG.validate_position(play.position)


def test_a_block_is_allowed_once_an_opposing_checker_is_in_front_of_it() -> None:
    # One opposing checker on his 2-point (my 14) is past my 21..16.
    pos = position({24: 10, 20: 1, 19: 1, 18: 1, 17: 1, 16: 1}, {24: 14, 2: 1})
    assert after(pos, "24/21/20", (3, 1)) == str(position({24: 9, 20: 2, 19: 1, 18: 1, 17: 1, 16: 1}, {24: 14, 2: 1}))
    # 24/21 15/14... with the 1 elsewhere keeps six points in a row: legal now.
    six = LG.check_play(pos, (3, 1), "24/21 16/15").position
    assert [six.mine(p) for p in (21, 20, 19, 18, 17, 15)] == [1] * 6
    LG.validate_position(six)


def test_a_block_is_allowed_once_the_opponent_has_borne_off_a_checker() -> None:
    pos = position({24: 10, 20: 1, 19: 1, 18: 1, 17: 1, 16: 1}, {24: 14}, off=(0, 1))
    assert after(pos, "24/21/20", (3, 1)) == str(position({24: 9, 20: 2, 19: 1, 18: 1, 17: 1, 16: 1}, {24: 14}, (0, 1)))


# Through my 1/24 corner: my 3, 2, 1, 24, 23 are consecutive on the opponent's route (his 15..11).
CORNER = position({24: 11, 23: 1, 3: 1, 2: 1, 1: 1}, {24: 14, 18: 1})


def test_a_block_through_my_1_24_corner_counts() -> None:
    with pytest.raises(IllegalPlay, match=r"block of six points \(3, 2, 1, 24, 23, 22\)"):
        LG.check_play(CORNER, (2, 1), "24/22/21")
    assert after(CORNER, "24/23/21", (2, 1)) == str(position({24: 10, 23: 1, 21: 1, 3: 1, 2: 1, 1: 1}, {24: 14, 18: 1}))


def test_whether_the_corner_joins_a_block_is_an_option() -> None:
    seam_breaks = Longgammon(block_across_corner=False)
    reached = seam_breaks.check_play(CORNER, (2, 1), "24/22/21").position
    assert reached == position({24: 10, 23: 1, 21: 1, 3: 1, 2: 1, 1: 1}, {24: 14, 18: 1})


def test_a_run_through_my_12_13_seam_is_not_a_block() -> None:
    # My 16..13 and 12, 11 are the two ends of the opponent's route (his 4..1 and 24, 23), not one run.
    pos = position({24: 10, 16: 1, 15: 1, 14: 1, 12: 1, 11: 1}, {18: 15})
    reached = LG.check_play(pos, (6, 5), "24/18/13").position
    assert all(reached.mine(p) == 1 for p in (16, 15, 14, 13, 12, 11))


def test_the_block_rule_is_checked_after_every_submove_of_a_doublet_in_any_order() -> None:
    # 8/6 first would close 10..4 (seven points) for a moment; 5/3 first keeps the run at five.
    pos = Position.parse("22:1 20:1 19:1 17:1 12:-15 11:1 10:2 9:1 8:4 5:1 4:1 2:1")
    reached = Position.parse("22:1 20:1 19:1 17:1 12:-15 10:2 9:1 8:3 7:1 6:1 4:1 3:1 2:1")
    assert reached in LG.legal_plays(pos, (2, 2)).positions
    assert LG.check_play(pos, (2, 2), "5/3 11/7 8/6").position == reached


def test_a_position_holding_a_forbidden_block_is_refused_as_input() -> None:
    bad = position({24: 9, 21: 1, 20: 1, 19: 1, 18: 1, 17: 1, 16: 1}, {24: 15})
    with pytest.raises(PositionError, match="block of six points"):
        LG.validate_position(bad)
    with pytest.raises(PositionError, match="the opponent has a block"):
        LG.validate_position(LG.flip(bad))


# --- bearing off and the result ---------------------------------------------------------------------------
def test_bearing_off_is_as_in_backgammon() -> None:
    pos = position({6: 1, 2: 1}, {24: 15}, off=(13, 0))
    # 6/off 2/1, or 6/5/off (written 6/off, the way GNU Backgammon writes one checker's moves).
    assert {str(p.position) for p in LG.legal_plays(pos, (6, 1))} == {
        str(position({1: 1}, {24: 15}, off=(14, 0))),
        str(position({2: 1}, {24: 15}, off=(14, 0))),
    }
    pos = position({5: 1, 20: 1}, {24: 15}, off=(13, 0))
    with pytest.raises(IllegalPlay, match="outside your home board"):
        LG.check_play(pos, (5, 1), "5/off 20/19")


def test_a_single_game_scores_one_and_a_mars_two() -> None:
    won = Position.parse("12:-14 off:15/1")
    assert LG.game_result(won) == 1
    mars = Position.parse("12:-15 off:15/0")
    assert LG.game_result(mars) == 2


def test_koks_is_off_by_default_and_scores_three_as_an_option() -> None:
    # The loser's checker on my 8 stands on his 20: still in his first quarter.
    koks_position = Position.parse("18:-14 8:-1 off:15/0")
    assert LG.geometry.their_point(8) == 20
    assert LG.game_result(koks_position) == 2
    assert Longgammon(koks=True).game_result(koks_position) == 3
    # All of the loser's checkers out of his first quarter: a mars, not a koks.
    assert Longgammon(koks=True).game_result(Position.parse("18:-15 off:15/0")) == 2
    assert Longgammon(koks=True).game_result(Position.parse("8:-14 off:15/1")) == 1


def test_bad_options_get_a_clear_message() -> None:
    with pytest.raises(VariantOptionError, match="has no option 'kokz'"):
        Longgammon(kokz=True)
    with pytest.raises(VariantOptionError, match="true or false"):
        Longgammon(koks="yes")


# --- cheap turn rules -------------------------------------------------------------------------------------
def test_no_turn_rules_are_needed_once_neither_rule_can_bind() -> None:
    late = position({6: 5, 5: 5, 24: 1}, {20: 5}, off=(4, 10))
    assert LG.turn_rules(late, (6, 5), False) is None
    assert isinstance(LG.turn_rules(LG.start_position(), (6, 5), False), LonggammonTurn)


# --- properties of random games ---------------------------------------------------------------------------
def _random_position(seed: int, turns: int) -> tuple[Position, bool]:
    """The position after up to ``turns`` random plays, and whether it is its roller's first turn."""
    rng = random.Random(seed)
    pos = LG.start_position()
    played = 0
    while played < turns:
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        nxt = rng.choice(LG.legal_plays(pos, roll, played < 2).plays).position
        if nxt.off[0] == LG.checkers:
            break
        pos = LG.flip(nxt)
        played += 1
    return pos, played < 2


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(0, 90), roll=dice)
def test_every_legal_play_keeps_every_rule(seed: int, turns: int, roll: tuple[int, int]) -> None:
    pos, first = _random_position(seed, turns)
    LG.validate_position(pos)
    plays = LG.legal_plays(pos, roll, first)
    assert len(plays) >= 1
    limit = 2 if first and roll[0] == roll[1] and roll[0] in (6, 4, 3) else 1
    for play in plays:
        after_play = play.position
        assert after_play.totals() == (15, 15)
        # The opponent's checkers never move or vanish: nothing is hit.
        assert [min(v, 0) for v in after_play.board] == [min(v, 0) for v in pos.board]
        assert pos.mine(24) - after_play.mine(24) <= limit
        LG.validate_position(after_play)
        assert LG.check_play(pos, roll, play.notation, first).position == after_play


# --- the fast rules agree with the rules.md definitions, checked naively --------------------------------
def _block_ok(b: list[int], their_off: int) -> bool:
    """rules.md §2.6 ``block_ok``, word for word: every run of six along the opponent's route has one past it."""
    if their_off > 0:
        return True
    mine_at = [False] + [b[LG.geometry.my_point(q)] > 0 for q in range(1, 25)]
    theirs_at = [False] + [b[LG.geometry.my_point(q)] < 0 for q in range(1, 25)]
    q = 1
    while q <= 24:
        if not mine_at[q]:
            q += 1
            continue
        lo = q
        while q < 24 and mine_at[q + 1]:
            q += 1
        if q - lo + 1 >= 6 and not any(theirs_at[1:lo]):
            return False
        q += 1
    return True


def _naive_plays(pos: Position, roll: tuple[int, int], first: bool) -> set[Position]:
    """Every order of every die, the head rule, ``block_ok`` after each submove; then most dice, most pips."""
    dice_left = (roll[0],) * 4 if roll[0] == roll[1] else roll
    head_limit = 2 if first and roll[0] == roll[1] and roll[0] in (6, 4, 3) else 1
    ends: dict[tuple[int, ...], tuple[int, int]] = {}
    seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()

    def explore(b: list[int], left: tuple[int, ...]) -> None:
        if (tuple(b), left) in seen:
            return
        seen.add((tuple(b), left))
        moved = False
        for d in set(left):
            rest = list(left)
            rest.remove(d)
            for s in range(1, 25):
                if b[s] <= 0 or (s == 24 and pos.mine(24) - b[24] >= head_limit):
                    continue
                t = s - d
                if t > 0 and b[t] < 0:
                    continue
                if t <= 0:
                    if any(b[p] > 0 for p in range(7, 25)) or (t < 0 and any(b[p] > 0 for p in range(s + 1, 7))):
                        continue
                    t = 0
                b[s] -= 1
                b[t] += 1
                if _block_ok(b, pos.off[1]):
                    moved = True
                    explore(b, tuple(sorted(rest)))
                b[t] -= 1
                b[s] += 1
        if not moved:
            used = len(dice_left) - len(left)
            ends[tuple(b)] = (used, sum(dice_left) - sum(left))

    explore([pos.off[0], *pos.board, 0], tuple(sorted(dice_left)))
    best = max(ends.values())
    return {Position(b[1:25], (0, 0), (b[0], pos.off[1])) for b, score in ends.items() if score == best}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(0, 200), roll=dice)
def test_the_legal_plays_are_those_of_the_naive_definitions(seed: int, turns: int, roll: tuple[int, int]) -> None:
    pos, first = _random_position(seed, turns)
    assert LG.legal_plays(pos, roll, first).positions == _naive_plays(pos, roll, first)
