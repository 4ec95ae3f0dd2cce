"""Legal plays: the rules.md §1.5 test vectors, the oracle corpus, and properties of every legal play."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import Position
from engine.movegen import HIT, PlaySet, board_list, generate_free, generate_general, generate_ruled
from engine.plugins import get_variant, registry
from tests.conftest import oracle_rows
from tests.engine.strategies import dice, game_positions, scattered_positions

BG = get_variant("backgammon")


def vector(mine: dict[int, int], theirs_own: dict[int, int], bar: tuple[int, int] = (0, 0)) -> Position:
    """A rules.md §1.5 position: the opponent's checkers are given in the opponent's own numbering."""
    theirs = {25 - q: n for q, n in theirs_own.items()}
    on = (sum(mine.values()) + bar[0], sum(theirs.values()) + bar[1])
    return Position.from_points(mine, theirs, bar=bar, off=(15 - on[0], 15 - on[1]))


def plays_of(pos: Position, roll: tuple[int, int]) -> set[Position]:
    return BG.legal_plays(pos, roll).positions


def after(pos: Position, text: str, roll: tuple[int, int]) -> Position:
    return BG.check_play(pos, roll, text).position


def test_vector_1_opening_31_has_16_plays() -> None:
    assert len(BG.legal_plays(BG.start_position(), (3, 1))) == 16


def test_vector_2_only_the_higher_die_when_both_cannot_be_played() -> None:
    pos = vector({24: 1, 2: 7, 1: 7}, {10: 2})
    expected = Position.from_points({18: 1, 2: 7, 1: 7}, {15: 2}, off=(0, 13))
    assert plays_of(pos, (6, 3)) == {expected}


def test_vector_3_both_dice_only_as_3_then_6() -> None:
    pos = vector({24: 1, 2: 7, 1: 7}, {7: 2})
    expected = Position.from_points({15: 1, 2: 7, 1: 7}, {18: 2}, off=(0, 13))
    assert plays_of(pos, (6, 3)) == {expected}
    assert BG.check_play(pos, (6, 3), "24/21/15").position == expected


def test_vector_4_only_the_lower_die_can_be_played() -> None:
    pos = vector({24: 1, 2: 7, 1: 7}, {7: 2, 10: 2})
    expected = Position.from_points({21: 1, 2: 7, 1: 7}, {18: 2, 15: 2}, off=(0, 11))
    assert plays_of(pos, (6, 3)) == {expected}


def test_vector_5_one_of_four_fours() -> None:
    pos = vector({24: 1, 2: 7, 1: 7}, {9: 2})
    expected = Position.from_points({20: 1, 2: 7, 1: 7}, {16: 2}, off=(0, 13))
    assert plays_of(pos, (4, 4)) == {expected}


def test_vector_6_bear_off_uses_both_dice() -> None:
    pos = vector({6: 1, 2: 1}, {1: 2})
    got = plays_of(pos, (6, 1))
    assert got == {after(pos, "6/off 2/1", (6, 1)), after(pos, "6/5/off", (6, 1))}
    assert len(got) == 2


def test_vector_7_last_two_checkers() -> None:
    pos = vector({5: 1, 3: 1}, {1: 2})
    got = plays_of(pos, (6, 4))
    assert got == {after(pos, "5/off 3/off", (6, 4)), after(pos, "5/1 3/off", (6, 4))}
    assert len(got) == 2


def test_vector_8_second_checker_stays_on_the_bar() -> None:
    pos = vector({13: 5, 8: 3, 6: 5}, {6: 2, 5: 2, 4: 2, 3: 2}, bar=(2, 0))
    expected = Position.from_points({24: 1, 13: 5, 8: 3, 6: 5}, {19: 2, 20: 2, 21: 2, 22: 2}, bar=(1, 0), off=(0, 7))
    assert plays_of(pos, (4, 1)) == {expected}


def test_no_legal_move_is_one_play_equal_to_the_position() -> None:
    pos = vector({13: 5, 8: 3, 6: 5}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2}, bar=(2, 0))
    plays = BG.legal_plays(pos, (6, 6))
    assert plays.no_move and len(plays) == 1 and plays[0].position == pos and plays[0].notation == ""


def test_entering_from_the_bar_hits_a_blot() -> None:
    pos = vector({13: 5, 8: 3, 6: 6}, {3: 1, 13: 5, 8: 3, 6: 5, 24: 1}, bar=(1, 0))
    plays = BG.legal_plays(pos, (3, 1))
    assert "bar/22* 22/21" not in {p.notation for p in plays}
    assert any(p.notation.startswith("bar/22*") for p in plays)
    assert all(p.moves[0][0] == 25 or any(m[0] == 25 for m in p.moves) for p in plays)


def test_every_oracle_row_of_standard_backgammon_matches() -> None:
    rows = oracle_rows("backgammon")
    mismatches = []
    for n, row in enumerate(rows, 1):
        pos = Position.from_frame(row["position"])
        got = BG.legal_plays(pos, tuple(row["dice"]), row.get("first_move", False)).positions
        expected = {Position.from_frame(f) for f in row["plays"]}
        if got != expected:
            mismatches.append(f"row {n}: {pos} dice {row['dice']}: missing {expected - got}, extra {got - expected}")
    assert not mismatches, "\n".join(mismatches[:5])
    assert len(rows) > 1000


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=game_positions(BG), roll=dice)
def test_every_legal_play_conserves_checkers_and_flips_to_a_valid_position(
    pos: Position, roll: tuple[int, int]
) -> None:
    BG.validate_position(pos)
    plays = BG.legal_plays(pos, roll)
    assert len(plays) >= 1
    for play in plays:
        assert play.position.totals() == (15, 15)
        assert len(play.moves) == plays.max_dice
        BG.validate_position(BG.flip(play.position))
        assert BG.apply(pos, play.moves) == play.position


@settings(max_examples=200, deadline=None)
@given(pos=scattered_positions(), roll=dice)
def test_plays_on_scattered_positions_use_the_most_dice_then_the_most_pips(
    pos: Position, roll: tuple[int, int]
) -> None:
    plays = BG.legal_plays(pos, roll)
    for play in plays:
        assert play.position.totals() == pos.totals()
        assert len(play.moves) == plays.max_dice
        # Replaying each submove is legal one die at a time.
        b = board_list(pos)
        rules = BG.turn_rules(pos, roll, False)
        for s, t, hit in play.moves:
            die = s - t if t else None
            candidates = [die] if die else sorted({roll[0], roll[1]} & set(range(s, 7)))
            assert any(BG.submove_error(b, s, d, rules) is None for d in candidates), (str(pos), play.notation)
            assert bool(BG.make_submove(b, s, t) & HIT) == hit
        assert Position.trusted(tuple(b)) == play.position


def test_position_text_forms_round_trip_for_random_games() -> None:
    rng = random.Random(7)
    from tests.engine.strategies import random_game_position

    for turns in range(0, 120, 3):
        pos = random_game_position(BG, rng, turns)
        assert Position.parse(str(pos)) == pos
        assert eval(repr(pos), {"Position": Position}) == pos  # repr pastes back
        assert Position.from_frame(pos.to_frame()) == pos


@pytest.mark.parametrize("roll", [(a, b) for a in range(1, 7) for b in range(1, 7)])
def test_every_roll_from_the_start_has_plays_using_both_dice(roll: tuple[int, int]) -> None:
    plays = BG.legal_plays(BG.start_position(), roll)
    assert plays.max_dice == (4 if roll[0] == roll[1] else 2)


@given(st.integers(0, 6), st.integers(0, 7))
def test_dice_out_of_range_are_refused(a: int, b: int) -> None:
    assume(not (1 <= a <= 6 and 1 <= b <= 6))
    with pytest.raises(ValueError, match="dice must be two numbers from 1 to 6"):
        BG.legal_plays(BG.start_position(), (a, b))


def _plays_in_full(plays: PlaySet) -> tuple[object, ...]:
    return ([(p.moves, p.position) for p in plays], plays.dice, plays.max_dice, plays.max_pips)


@pytest.mark.parametrize("name", registry().names())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), roll=dice)
def test_the_fast_paths_find_what_the_general_search_finds_for_every_rule_set(
    name: str, data: st.DataObject, roll: tuple[int, int]
) -> None:
    # The recursive general search is the reference. Without turn rules it must agree with the fast path (a rule set
    # with turn rules, Longgammon, still checks the fast path's handling of its blocking and hitting); with the rule
    # set's own turn rules, with the search for standard make steps and turn rules; and the unrolled search for two
    # dice with the recursive one, for every rule set (Plakoto's own make step included).
    variant = get_variant(name)
    pos = data.draw(st.one_of(game_positions(variant), scattered_positions(variant.checkers, variant.pinning)))
    reference = _plays_in_full(generate_general(variant, pos, roll, None, recursive=True))
    assert _plays_in_full(generate_general(variant, pos, roll, None)) == reference
    if variant.standard_moves:
        assert _plays_in_full(generate_free(variant, pos, roll)) == reference
    rules = variant.turn_rules(pos, roll, False)
    ruled = _plays_in_full(generate_general(variant, pos, roll, rules, recursive=True))
    assert _plays_in_full(variant.legal_plays(pos, roll)) == ruled
    if variant.standard_moves:
        assert _plays_in_full(generate_ruled(variant, pos, roll, rules)) == ruled


@pytest.mark.parametrize("name", ["backgammon", "longgammon", "sprintgammon", "plakoto", "fevga"])
def test_the_fast_paths_find_what_the_general_search_finds_on_every_oracle_position(name: str) -> None:
    variant = get_variant(name)
    for row in oracle_rows(name):
        pos = Position.from_frame(row["position"])
        roll = (row["dice"][0], row["dice"][1])
        rules = variant.turn_rules(pos, roll, bool(row["first_move"]))
        reference = _plays_in_full(generate_general(variant, pos, roll, rules, recursive=True))
        assert _plays_in_full(generate_general(variant, pos, roll, rules)) == reference, str(pos)
        if variant.standard_moves:
            fast = generate_free(variant, pos, roll) if rules is None else generate_ruled(variant, pos, roll, rules)
            assert _plays_in_full(fast) == reference, str(pos)


def test_finding_and_judging_plays_leaves_no_garbage_for_the_collector() -> None:
    """Listing legal plays and judging typed ones (every search, in every rule set) frees what it made as soon as it
    is done: no reference cycle is left for the garbage collector, whose collections stop the bot's event loop (a
    recursive search closure is such a cycle, holding its board and every play it found)."""
    import gc

    from engine.dice import RandomDice
    from engine.match import MatchOptions, MatchSetup, Phase, apply, replay
    from engine.selfplay import RandomPlayer

    gc.collect()
    gc.disable()
    try:
        for name, cls in sorted(registry().variants.items()):
            if cls.team_size != 1:
                continue
            setup = MatchSetup(cls(), tuple((f"{name}-{k}",) for k in range(2)), MatchOptions(length=0))  # type: ignore[arg-type]
            rng = random.Random(name)
            state, dice, player = replay(setup, []), RandomDice(rng.randrange(2**32)), RandomPlayer(rng)
            for _ in range(60):
                if state.over:
                    break
                if state.phase is Phase.MOVE and state.dice is not None and state.roller is not None:
                    for play in list(state.legal_plays())[:3]:
                        text = play.notation or "no move"
                        state.variant.check_play(state.position_for(state.roller), state.dice, text)
                state = apply(state, player.choose(state, dice))
            del state
            assert gc.collect() == 0, f"{name}: finding or judging plays left reference cycles"
    finally:
        gc.enable()
