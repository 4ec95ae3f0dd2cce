"""Tavli's three games (rules-family §1–§4): the worked examples, pins as properties, and whole games and matches.

Portes, Plakoto and Fevga as the engine plays them: the legal plays of the specification's worked examples, pins
that conserve checkers and never move, games that end by a pinned mother or in a draw, the opening that
re-throws and the winner who starts the next game, the cube refused, and every format (notation, text, Position
ID, ``.mat``) carrying pins.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Position, decode_position_id, encode_position_id
from engine.match import (
    Action,
    EndReason,
    MatchOptionError,
    MatchOptions,
    MatchState,
    Move,
    OpeningRoll,
    OpeningRule,
    Phase,
    Roll,
    apply,
    new_match,
)
from engine.match import replay as replay_match
from engine.matfile import export_mat, import_mat
from engine.movegen import board_list
from engine.players import HEURISTIC
from engine.plugins import get_variant, players_for
from engine.record import state_from_data, state_to_data
from engine.selfplay import default_sides, play_bot_match, play_match
from engine.turn import TurnDraft
from engine.variant import Variant
from tests.engine.strategies import dice, game_positions, scattered_positions

PLAKOTO = get_variant("plakoto")
FEVGA = get_variant("fevga")
PORTES = get_variant("portes")
TAVLI = ("portes", "plakoto", "fevga")


def notations(variant_name: str, text: str, roll: tuple[int, int], **options: object) -> set[str]:
    variant = get_variant(variant_name, **options)
    return {play.notation for play in variant.legal_plays(Position.parse(text), roll)}


def plays_are(variant_name: str, text: str, roll: tuple[int, int], expected: list[str], **options: object) -> bool:
    """Whether the legal plays are exactly the plays written (each accepted as the specification writes it)."""
    variant = get_variant(variant_name, **options)
    pos = Position.parse(text)
    written = {variant.check_play(pos, roll, play).position for play in expected}
    return variant.legal_plays(pos, roll).positions == written and len(written) == len(expected)


def refused(variant_name: str, text: str, roll: tuple[int, int], play: str) -> bool:
    try:
        get_variant(variant_name).check_play(Position.parse(text), roll, play)
    except ValueError:
        return True
    return False


# --- Plakoto's worked examples (rules-family §3.9) --------------------------------------------------------------
def test_p1_p2_the_opening_rolls_from_the_start() -> None:
    start = str(PLAKOTO.start_position())
    assert start == "24:15 1:-15"
    assert plays_are("plakoto", start, (6, 5), ["24/18/13", "24/18 24/19"])
    assert len(notations("plakoto", start, (5, 5))) == 5


def test_p3_a_pinned_checker_cannot_move_and_a_pinner_closes_its_point() -> None:
    p3 = "24:13 20:-1 18:-1p 13:1 1:-13"
    assert plays_are("plakoto", p3, (4, 2), ["13/9/7", "24/20* 13/11", "24/20* 24/22", "24/22 13/9"])
    assert refused("plakoto", p3, (4, 2), "24/22/18")


def test_p4_a_single_pinner_closes_the_point_to_the_pinned_side() -> None:
    p4 = "24:12 20:-1p 9:1p 1:-12"
    assert plays_are("plakoto", p4, (4, 2), ["24/22/18", "24/22 9/5", "9/5/3"])
    assert refused("plakoto", p4, (4, 2), "24/20 9/7")


def test_p5_pins_made_in_passing_are_freed_again() -> None:
    plays_start = Position.parse("24:14 20:-1 16:-1 1:-13 off:1/0")
    plays = PLAKOTO.legal_plays(plays_start, (4, 4))
    assert len(plays) == 5
    (through,) = [p for p in plays if p.position == PLAKOTO.check_play(plays_start, (4, 4), "24/20*/16*/12/8").position]
    assert str(through.position) == "24:13 20:-1 16:-1 8:1 1:-13 off:1/0"  # both blots back, free


@pytest.mark.parametrize(
    ("text", "count", "ending", "result"),
    [
        ("22:-14 10:12 5:2 3:1 1:-1", 7, 4, (1, 2)),  # P6: our start empty, pinning the mother wins 2
        ("24:2 22:-14 10:10 5:2 3:1 1:-1", 11, 0, None),  # P7: our start still occupied
        ("24:-1p 22:-13 10:12 5:1 3:1 1:-1", 6, 3, (0, 0)),  # P8: both mothers pinned, a draw
    ],
)
def test_p6_p7_p8_the_mother(text: str, count: int, ending: int, result: tuple[int, int] | None) -> None:
    plays = PLAKOTO.legal_plays(Position.parse(text), (4, 2))
    assert len(plays) == count
    overs = [PLAKOTO.game_over(p.position) for p in plays]
    ended = [o for o in overs if o is not None]
    assert len(ended) == ending
    assert all((o.winner, o.level) == result for o in ended)
    assert all(any(h for s, t, h in p.moves if t == 1) == (o is not None) for p, o in zip(plays, overs) if ending)


def test_p9_p10_no_bearing_off_while_a_checker_is_pinned() -> None:
    assert plays_are("plakoto", "14:-14 6:3 5:4 4:-1p 3:3 2:2 off:2/0", (6, 5), ["6/1"])
    assert plays_are("plakoto", "14:-15 6:3 5:4 4:1 3:3 2:2 off:2/0", (6, 5), ["6/off 5/off", "6/off 6/1"])
    # The option: a checker pinned inside the home board does not stop bearing off.
    assert "6/off 5/off" in notations(
        "plakoto", "14:-14 6:3 5:4 4:-1p 3:3 2:2 off:2/0", (6, 5), pinned_home_bears_off=True
    )


def test_a_pin_in_the_middle_of_a_move_is_written_and_accepted() -> None:
    pos = Position.parse("24:13 10:1 7:-1 1:-13 off:1/1")
    play = PLAKOTO.check_play(pos, (3, 2), "10/7*/5")
    assert play.notation == "10/7*/5" and str(play.position) == "24:13 7:-1 5:1 1:-13 off:1/1"
    assert PLAKOTO.check_play(pos, (3, 2), "10/5").position == play.position
    with pytest.raises(ValueError, match="pinned: it cannot move"):
        PLAKOTO.check_play(Position.parse("24:13 20:-1p 1:-13 off:1/1"), (3, 1), "20/17 24/23")


# --- Fevga's worked examples (rules-family §4.9) ----------------------------------------------------------------
def test_f1_f2_the_first_checker_from_the_start() -> None:
    start = str(FEVGA.start_position())
    assert start == "24:15 12:-15"
    assert plays_are("fevga", start, (6, 6), ["24/18"])
    assert plays_are("fevga", start, (5, 5), ["24/4", "24/9 24/19"])


def test_f3_f4_the_runner_frees_the_start_on_reaching_the_opponents_quarter() -> None:
    assert plays_are("fevga", "24:14 17:1 12:-14 7:-1", (6, 4), ["17/11 24/20"])
    f4 = "24:14 16:1 11:-3 10:-3 9:-3 8:-3 7:-3"
    assert plays_are("fevga", f4, (4, 1), ["16/12 24/23"])
    assert all(p.count("/") == 1 for p in notations("fevga", f4, (4, 1), first_checker_past_start=True))


def test_f5_never_all_six_points_of_the_own_starting_quarter() -> None:
    f5 = "24:8 23:1 22:1 21:1 20:1 15:-2 14:3 12:-11 3:-2"
    assert len(notations("fevga", f5, (5, 1))) == 27
    assert refused("fevga", f5, (5, 1), "24/19 14/13") and refused("fevga", f5, (5, 1), "24/19 24/23")
    assert not refused("fevga", f5, (5, 1), "24/19 23/22")  # made in the order 23/22 24/19


def test_f6_f7_f8_no_block_of_six_with_every_opposing_checker_behind_it() -> None:
    f6 = "24:10 20:1 19:1 18:1 17:1 16:1 12:-15"
    assert len(notations("fevga", f6, (3, 1))) == 29 and refused("fevga", f6, (3, 1), "24/21 24/23")
    f7 = "24:10 20:1 19:1 18:1 17:1 16:1 15:-1 12:-14"
    assert len(notations("fevga", f7, (3, 1))) == 22 and not refused("fevga", f7, (3, 1), "24/21 24/23")
    f8 = "24:8 23:1 14:3 12:-10 8:-5 3:1 2:1 1:1"  # a block through the 1/24 corner
    assert len(notations("fevga", f8, (2, 1))) == 13
    assert refused("fevga", f8, (2, 1), "24/22 14/13") and refused("fevga", f8, (2, 1), "24/22 24/23")


def test_f9_bearing_off() -> None:
    assert plays_are("fevga", "18:-5 12:-10 5:1 3:1 off:13/0", (6, 4), ["5/off 3/off", "5/1 3/off"])


def test_a_play_written_by_its_result_is_accepted_when_only_another_order_of_checkers_is_legal() -> None:
    # 22/18 with 1-1 cannot go 22/21/20/19/18 (21 would complete 19..24), but 20/19/18 with 22/21/20 leaves the same.
    pos = Position.parse("24:5 23:1 22:2 20:1 19:1 17:1 16:1 14:-1 12:-6 11:1 9:-2 8:1 4:-2 3:1 2:-1 1:-3")
    play = FEVGA.check_play(pos, (1, 1), "22/18")
    assert str(play.position).startswith("24:5 23:1 22:1 20:1 19:1 18:1 17:1")
    assert refused("fevga", str(pos), (1, 1), "22/21/20/19/18")


def test_fevga_says_which_rule_a_refused_move_breaks() -> None:
    start = FEVGA.start_position()
    with pytest.raises(ValueError, match="no second checker may leave your starting point"):
        FEVGA.check_play(start, (6, 6), "24/18 24/18")
    with pytest.raises(ValueError, match="all six points of your starting quarter"):
        FEVGA.check_play(Position.parse("24:8 23:1 22:1 21:1 20:1 15:-2 14:3 12:-11 3:-2"), (5, 1), "24/19 14/13")


# --- pins as properties ------------------------------------------------------------------------------------------
plakoto_positions = st.one_of(game_positions(PLAKOTO, 120), scattered_positions(15, True))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=plakoto_positions, roll=dice)
def test_pins_conserve_checkers_and_pinned_checkers_never_move(pos: Position, roll: tuple[int, int]) -> None:
    mine_pinned = {p for p in range(1, 25) if pos.is_pinned(p) and pos.board[p - 1] < 0}
    plays = PLAKOTO.legal_plays(pos, roll)
    for k, play in enumerate(plays):
        after = play.position
        assert after.totals() == pos.totals() and after.bar == (0, 0)
        for p in mine_pinned:  # still pinned, under the same stack: nothing of the opponent moves in my turn
            assert after.is_pinned(p) and after.board[p - 1] == pos.board[p - 1]
        assert all(s not in mine_pinned for s, _, _ in play.moves)
        assert PLAKOTO.flip(PLAKOTO.flip(after)) == after
        assert Position.parse(str(after)) == after and Position.from_frame(after.to_frame()) == after
        # The make step, its undo, the notation and the draft all agree on the play.
        b = board_list(pos)
        tokens = [(s, t, PLAKOTO.make_submove(b, s, t)) for s, t, _ in play.moves]
        assert Position.trusted(tuple(b)) == after
        for s, t, token in reversed(tokens):
            PLAKOTO.unmake_submove(b, s, t, token)
        assert Position.trusted(tuple(b)) == pos
        if k % max(1, len(plays) // 4):
            continue  # typed and entered checker by checker: a few plays of each roll (a draft search is slower)
        assert PLAKOTO.check_play(pos, roll, play.notation).position == after
        draft = TurnDraft(PLAKOTO, pos, roll)
        for s, t, _ in play.moves:
            draft = draft.add(s, t)
        assert draft.complete and draft.position == after


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=game_positions(PLAKOTO, 120))
def test_plakoto_positions_read_back_from_their_position_id(pos: Position) -> None:
    pid = encode_position_id(PLAKOTO, pos)
    assert (":" in pid) == bool(pos.pins)
    assert decode_position_id(PLAKOTO, pid) == pos


def test_the_position_id_of_a_pinned_mother() -> None:
    pos = Position.parse("24:14 1:1p off:0/14")  # my checker pins his mother on my 1 (his 24)
    pid = encode_position_id(PLAKOTO, pos)
    assert pid == "AACABAAA/P8AAA:AAAAAACA"  # bit 47: the other player's checker pinned on his 24
    assert decode_position_id(PLAKOTO, pid) == pos
    with pytest.raises(ValueError, match="pinned checker of each player"):
        decode_position_id(PLAKOTO, "AACABAAA/P8AAA:AQAAAACA")


# --- games and matches -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", TAVLI)
def test_a_whole_self_played_match_of_each_rule_set(name: str) -> None:
    variant = get_variant(name)
    state, actions = play_match(variant, MatchOptions(length=5), 2024)
    assert state.over and max(state.score) >= 5
    assert all(r.points in (0, 1, 2) and r.cube == 1 for r in state.results)
    assert replay_match(state.setup, actions) == state
    again_setup, again_actions = import_mat(export_mat(state.setup, actions))
    assert type(again_setup.variant) is type(variant) and replay_match(again_setup, again_actions).score == state.score
    for k in range(0, len(actions), 37):
        mid = replay_match(state.setup, actions[:k])
        assert state_from_data(mid.setup, state_to_data(mid)) == mid


@pytest.mark.parametrize("name", TAVLI)
def test_the_heuristic_player_plays_a_whole_match_of_each_rule_set(name: str) -> None:
    variant = get_variant(name)
    assert HEURISTIC in players_for(variant)
    bots = (HEURISTIC.create(1), HEURISTIC.create(2))
    state, _ = play_bot_match(variant, MatchOptions(length=1), bots, 7, time_cap=0.02)
    assert state.over


def _after(state: MatchState, *actions: Action) -> MatchState:
    for action in actions:
        state = apply(state, action)
    return state


def test_plakoto_games_end_by_a_pinned_mother_and_in_a_draw_and_the_next_game_starts_as_the_rules_say() -> None:
    sides = default_sides(PLAKOTO)
    state = new_match(PLAKOTO, sides, MatchOptions(length=5))
    assert state.options.opening is OpeningRule.WINNER_REROLL and not state.setup.cube_in_use
    state = apply(state, OpeningRoll("Alice", (5, 2)))
    assert state.phase is Phase.ROLL and state.roller == 0  # the higher die throws both dice
    # P6 for Alice: pinning Bob's mother with her own start empty wins 2 points.
    state = replace(state, phase=Phase.MOVE, dice=(4, 2), position=Position.parse("22:-14 10:12 5:2 3:1 1:-1"))
    won = apply(state, Move("Alice", ((5, 1, True), (3, 1, False))))
    (result,) = won.results
    assert (result.winner, result.points, result.reason) == (0, 2, EndReason.RULE)
    assert won.phase is Phase.ROLL and won.roller == 0  # the winner starts the next game, throwing both dice
    # P8 for Bob: both mothers pinned, a draw; the game after it starts with the opening throw.
    mothers = Position.parse("24:-1p 22:-13 10:12 5:1 3:1 1:-1")
    state = replace(won, phase=Phase.MOVE, dice=(4, 2), roller=1, position=mothers, moved=(True, True))
    drawn = apply(state, Move("Bob", ((5, 1, True), (3, 1, False))))
    assert drawn.results[-1].reason is EndReason.DRAW and drawn.results[-1].points == 0 and drawn.score == (2, 0)
    assert drawn.phase is Phase.OPENING and drawn.game == 3


def test_tavli_games_refuse_the_cube_with_the_reason() -> None:
    for name in TAVLI:
        with pytest.raises(MatchOptionError, match="played without the doubling cube"):
            new_match(get_variant(name), [["a"], ["b"]], MatchOptions(games=3, jacoby=True))
    state = new_match(PORTES, [["a"], ["b"]], MatchOptions(length=3))
    state = _after(state, OpeningRoll("a", (6, 1)), Roll("a", (3, 3)))  # a doublet may open
    assert state.dice == (3, 3) and state.may_double(0) == "Portes is played without the doubling cube"


def test_portes_scores_a_backgammon_as_a_gammon() -> None:
    won = Position.parse("1:-1 off:15/0")  # the loser still in the winner's home and none borne off
    assert get_variant("backgammon").game_result(won) == 3 and PORTES.game_result(won) == 2
    assert PORTES.results == {1: "single game", 2: "gammon"}


def test_a_drawn_plakoto_game_is_exported_without_a_wins_line_and_read_back() -> None:
    for seed in range(60):
        state, actions = play_match(PLAKOTO, MatchOptions(length=3), seed)
        if any(r.reason is EndReason.DRAW for r in state.results):
            break
    else:
        pytest.skip("no drawn game in 60 self-played matches")
    text = export_mat(state.setup, actions)
    assert '[Variation "Plakoto"]' in text and "*" in text
    setup, again = import_mat(text)
    final = replay_match(setup, again)
    assert final.results == state.results


def test_an_off_board_start_waits_in_the_reserve() -> None:
    """The reserve (Acey-deucey's start) as a position concept: counted, moved with the board, written and read."""

    class Waiting(Variant):  # not registered: a start with fewer checkers than the rule set has
        name = "waiting"
        display_name = "Waiting"
        summary = "A test rule set: three checkers on the board, twelve waiting to enter."
        start = {24: 1, 13: 1, 6: 1}

    variant = Waiting()
    start = variant.start_position()
    assert start.reserve == (12, 12) and start.totals() == (15, 15)
    assert str(start) == "24:1 19:-1 13:1 12:-1 6:1 1:-1 in:12/12" and Position.parse(str(start)) == start
    assert variant.pips(start) == (43 + 12 * 25, 43 + 12 * 25)
    variant.validate_position(start)
    moved = Position.parse("24:1 19:-1 13:1 12:-1 6:1 1:-1 in:11/12 off:1/0")
    assert variant.flip(moved).reserve == (12, 11) and variant.flip(variant.flip(moved)) == moved
    assert Position.from_frame(moved.to_frame()) == moved and moved.to_frame()["reserve"] == [11, 12]
    with pytest.raises(ValueError, match="none can wait to enter"):
        get_variant("backgammon").validate_position(Position.parse("24:2 13:5 8:3 6:4 1:-15 in:1/0"))


def test_a_plakoto_chain_of_two_checkers_keeps_both_pin_marks() -> None:
    """20/18*/14* with a pinner on 18: the pinner goes on to pin on 14, freeing the checker under it, and a checker
    from 20 pins that one again. Both marks are right, though the chain read in its written order hits only on 14
    (found by the property test above)."""
    pos = Position.parse("24:1 22:-2 20:4 18:1p 16:-1p 15:-4 14:-1 13:-1 12:-1 7:-1 6:-1 5:-1 4:1 3:3 2:3 1:1p")
    play = PLAKOTO.check_play(pos, (2, 4), "20/18*/14*")
    assert play.notation == "20/18*/14*"
    assert PLAKOTO.check_play(pos, (2, 4), "18/14* 20/18*").position == play.position
