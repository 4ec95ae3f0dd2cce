"""Acey-deucey (rules-family §5) as the engine plays it: the oracle corpus with its 1-2 bonus rows, the worked
examples, the turn stages of the 1-2 (name a doublet, play it, roll again) in the match state machine, every format
(notation ``in/22``, the state record, Position IDs with the reserve, ``.mat`` with bonus turns), the controls and
the bot players' choice of a doublet, and the rule set's options."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings

from engine import Position, decode_position_id, encode_position_id, format_play
from engine.controls import allowed_actions
from engine.match import (
    Action,
    ActionError,
    MatchOptions,
    MatchState,
    Move,
    NameDouble,
    OpeningRoll,
    Phase,
    Resign,
    Roll,
    Stage,
    apply,
    new_match,
    replay,
)
from engine.matfile import export_mat, import_mat
from engine.players import HEURISTIC, RANDOM, bot_action
from engine.plugins import get_variant
from engine.position import RESERVE
from engine.record import RecordError, state_from_data, state_to_data
from engine.selfplay import play_bot_match, play_match
from engine.turn import TurnDraft, TurnError
from tests.conftest import oracle_rows
from tests.engine.strategies import game_positions

AD = get_variant("aceydeucey")
START = AD.start_position()


def plays(text: str, roll: tuple[int, int], **options: object) -> set[str]:
    variant = get_variant("aceydeucey", **options) if options else AD
    return {p.notation for p in variant.legal_plays(Position.parse(text), roll)}


# --- the oracle: every row, the 1-2 bonus and its named continuations ----------------------------------------
def test_every_oracle_row_with_its_bonus_and_named_continuations() -> None:
    rows = oracle_rows("aceydeucey")
    assert {r["kind"] for r in rows} == {"roll", "acey_bonus"}
    wrong = []
    named = 0
    for n, row in enumerate(rows, 1):
        pos, dice = Position.from_frame(row["position"]), (row["dice"][0], row["dice"][1])
        AD.validate_position(pos)
        found = AD.legal_plays(pos, dice)
        if found.positions != {Position.from_frame(f) for f in row["plays"]}:
            wrong.append(f"row {n}: {pos} {dice}")
        if row["kind"] == "acey_bonus":
            bonus = AD.next_step(dice, found.max_dice, False) is not None
            if bonus != row["bonus"]:
                wrong.append(f"row {n}: bonus {bonus}")
            for c in row["named"]:
                named += 1
                d = c["double"]
                after = AD.legal_plays(Position.from_frame(c["after"]), (d, d))
                reroll = AD.next_step((d, d), after.max_dice, True) is not None
                if after.positions != {Position.from_frame(f) for f in c["plays"]} or reroll != c["reroll"]:
                    wrong.append(f"row {n}: named {d}-{d}")
    assert not wrong, f"{len(wrong)} of {len(rows)} rows differ: {wrong[:5]}"
    assert named > 200


# --- the worked examples (rules-family §5.10) -----------------------------------------------------------------
def test_a1_a2_entering_from_the_start() -> None:
    assert plays("in:15/15", (6, 5)) == {"in/20 in/19", "in/14"}
    assert plays("in:15/15", (1, 2)) == {"in/24 in/23", "in/22"}
    assert AD.next_step((1, 2), 2, False) is not None  # both dice used: a doublet is named


def test_a3_the_named_doublet_and_the_throw_again() -> None:
    after = Position.parse("24:1 23:1 in:13/15")
    sixes = AD.legal_plays(after, (6, 6))
    assert len(sixes) == 24 and sixes.max_dice == 4 and AD.next_step((6, 6), 4, True) is not None


def test_a4_a_hit_checker_enters_before_anything_else() -> None:
    text = "22:-1 21:-2 19:-2 13:5 8:3 bar:1/0 in:6/10"
    found = AD.legal_plays(Position.parse(text), (5, 3))
    assert len(found) == 7 and all(p.moves[0][:2] in ((25, 20), (25, 22)) for p in found)
    assert {"in/22* bar/20", "bar/22* 13/8"} <= {p.notation for p in found}
    draft = TurnDraft(AD, Position.parse(text), (5, 3))
    with pytest.raises(TurnError, match="bar must re-enter before any other move"):
        draft.add(RESERVE, 22)  # written in either order the play is the same; made one checker at a time, not so
    assert draft.add(25, 20).add(RESERVE, 22).complete


def test_a5_no_bearing_off_while_a_checker_is_still_to_enter() -> None:
    assert plays("6:4 5:4 3:4 2:2 20:-6 14:-9 in:1/0", (6, 5)) == {"in/19 6/1"}


def test_a6_a7_a_1_2_or_named_doublet_not_used_in_full_ends_the_chain() -> None:
    one = AD.legal_plays(Position.parse("24:15 23:-2 21:-2 20:-2 19:-2 18:-2 17:-2 10:-3"), (1, 2))
    assert [p.notation for p in one] == ["24/22"] and AD.next_step((1, 2), one.max_dice, False) is None
    two = AD.legal_plays(Position.parse("24:1 1:14 15:-2 10:-13"), (3, 3))
    assert [p.notation for p in two] == ["24/18"] and AD.next_step((3, 3), two.max_dice, True) is None


# --- the turn stages in the match --------------------------------------------------------------------------------
def _match() -> MatchState:
    state = new_match(AD, [["ann"], ["bob"]], MatchOptions(length=3))
    assert state.options.opening.value == "reroll" and state.position == START and not state.setup.cube_in_use
    return apply(state, OpeningRoll("ann", (5, 2)))


def _do(state: MatchState, *actions: Action) -> MatchState:
    for action in actions:
        state = apply(state, action)
        again = state_from_data(state.setup, state_to_data(state))
        assert again == state and again.stage is state.stage  # every stage is stored and read back
    return state


def test_a_1_2_used_in_full_earns_a_named_doublet_and_four_of_it_a_throw_again() -> None:
    state = _do(_match(), Roll("ann", (1, 2)))
    assert state.phase is Phase.MOVE and state.dice == (1, 2)
    state = _do(state, Move("ann", ((RESERVE, 24, False), (RESERVE, 23, False))))
    assert state.phase is Phase.NAME_DOUBLE and state.roller == 0 and state.turn == 0 and state.dice is None
    assert state.last_move == (0, (1, 2), ((RESERVE, 24, False), (RESERVE, 23, False)))
    allowed = allowed_actions(state)
    assert allowed.name_doubles == (1, 2, 3, 4, 5, 6) and not allowed.roll and allowed.resign
    for wrong in (Roll("ann", (3, 4)), NameDouble("bob", 6), NameDouble("ann", 7), NameDouble("ann", 0)):
        with pytest.raises(ActionError):
            apply(state, wrong)
    state = _do(state, NameDouble("ann", 6))
    assert state.phase is Phase.MOVE and state.dice == (6, 6) and state.stage is Stage.NAMED and state.roller == 0
    full = next(p for p in state.legal_plays() if len(p.moves) == 4)
    state = _do(state, Move("ann", full.moves))
    assert state.phase is Phase.ROLL and state.stage is Stage.AGAIN and state.roller == 0  # the same player
    assert allowed_actions(state).roll and allowed_actions(state).name_doubles == ()
    state = _do(state, Roll("ann", (1, 2)))  # another 1-2 repeats the chain
    assert state.stage is Stage.NONE and state.phase is Phase.MOVE
    state = _do(state, Move("ann", state.legal_plays()[0].moves))
    assert state.phase is Phase.NAME_DOUBLE
    state = _do(state, Resign("ann", 1))  # a resignation may be offered while naming; it concedes all at once
    assert state.results and state.results[-1].winner == 1


def test_a_named_doublet_not_played_in_full_passes_the_turn_and_one_not_playable_at_all_too() -> None:
    state = _match()
    blocked = Position.parse("24:1 1:14 15:-2 10:-13")  # A7: two of four 3s
    state = _do(replace(state, phase=Phase.NAME_DOUBLE, position=blocked, roller=0, moved=(True, False)))
    state = _do(state, NameDouble("ann", 3))
    state = _do(state, Move("ann", state.legal_plays()[0].moves))
    assert state.phase is Phase.ROLL and state.roller == 1 and state.stage is Stage.NONE
    stuck = Position.parse("24:15 23:-2 22:-2 21:-2 20:-2 19:-2 18:-2 10:-3")  # nothing moves with any doublet
    state = _do(replace(state, phase=Phase.NAME_DOUBLE, position=stuck, roller=0, dice=None))
    state = _do(state, NameDouble("ann", 4))
    assert state.phase is Phase.ROLL and state.roller == 1 and state.last_move == (0, (4, 4), ())


def test_a_stage_that_contradicts_the_phase_is_refused_when_read() -> None:
    state = _do(_match(), Roll("ann", (1, 2)))
    data = {**state_to_data(state), "stage": "again"}
    with pytest.raises(RecordError, match="stage 'again'"):
        state_from_data(state.setup, data)
    with pytest.raises(RecordError, match="stage"):
        state_from_data(state.setup, {**state_to_data(state), "stage": "sideways"})


def test_bots_name_a_doublet_and_play_whole_matches() -> None:
    state = _do(_match(), Roll("ann", (1, 2)))
    state = _do(state, Move("ann", state.legal_plays()[0].moves))
    for spec in (RANDOM, HEURISTIC):
        action = bot_action(spec.create(1), state, 0, lambda: (3, 3))
        assert isinstance(action, NameDouble) and 1 <= action.value <= 6
    bots = (HEURISTIC.create(1), RANDOM.create(2))
    final, actions = play_bot_match(AD, MatchOptions(length=1), bots, 4, time_cap=0.02)
    assert final.over and any(isinstance(a, NameDouble) for a in actions)


# --- formats ------------------------------------------------------------------------------------------------------
def test_in_is_written_and_read_as_the_source_of_an_entering_checker() -> None:
    assert format_play(((RESERVE, 24, False), (24, 22, False))) == "in/22"
    assert format_play(((RESERVE, 24, False), (RESERVE, 23, False))) == "in/24 in/23"
    played = AD.check_play(START, (1, 2), "in/24/22")
    assert played.position == Position.parse("22:1 in:14/15")
    with pytest.raises(ValueError, match="waiting to enter"):
        get_variant("backgammon").check_play(get_variant("backgammon").start_position(), (3, 1), "in/22")


def test_a_play_entered_checker_by_checker_offers_the_reserve() -> None:
    draft = replace(_do(_match(), Roll("ann", (6, 3)))).draft()
    assert set(draft.options()) == {(RESERVE, 19), (RESERVE, 22)}
    draft = draft.add(RESERVE, 19)
    assert set(draft.options()) == {(RESERVE, 22), (19, 16)} and draft.notation == "in/19"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=game_positions(AD, max_turns=40))
def test_positions_with_the_reserve_read_back_from_their_position_id(pos: Position) -> None:
    pid = encode_position_id(AD, pos)
    assert decode_position_id(AD, pid) == pos and ("_" in pid) == any(pos.reserve)


def test_the_documented_position_ids_of_the_reserve() -> None:
    assert encode_position_id(AD, START) == "AAAAAAAAAAAAAA_PP"
    assert encode_position_id(AD, Position.parse("24:1 23:1 in:13/15")) == "AAAAAACAAgAAAA_NP"
    with pytest.raises(ValueError, match="waiting to enter"):
        decode_position_id(AD, "AAAAAAAAAAAAAA_P")


def test_a_match_with_bonus_turns_exports_to_mat_and_reads_back() -> None:
    for seed in range(20):
        state, actions = play_match(AD, MatchOptions(length=3), seed)
        if sum(isinstance(a, NameDouble) for a in actions) >= 3:
            break
    text = export_mat(state.setup, actions)
    assert '[Variation "Acey-deucey"]' in text and " in/" in text
    setup, again = import_mat(text)
    final = replay(setup, again)  # (opening ties are not written in .mat files)
    assert final.results == state.results and final.score == state.score and final.over


# --- options ----------------------------------------------------------------------------------------------------
def test_the_entering_options() -> None:
    text = "20:1 in:14/15"
    assert plays(text, (6, 3)) == {"20/11", "in/16", "in/19 20/17", "in/22 20/14", "in/22 in/19"}
    assert plays(text, (6, 3), enter="all-first") == {"in/22 in/19"}  # the checker on 20 waits for all to enter
    far = "14:1 in:14/15"
    assert plays(far, (6, 3), enter="not-past-13") == {"in/16", "in/22 in/19"}  # nothing onto 12..1 yet
    bar = "13:2 bar:1/0 in:12/15"
    assert plays(bar, (6, 3)) == {"bar/16", "bar/19 13/10", "bar/22 13/7", "in/22 bar/19"}
    assert {"13/10 13/7", "in/22 in/19"} <= plays(bar, (6, 3), bar_first=False)


def test_exact_bear_off_and_extra_throws() -> None:
    assert plays("3:1 2:1 off:13/0 in:0/15", (6, 5)) == {"3/off 2/off"}
    assert plays("3:1 2:1 off:13/0 in:0/15", (6, 5), exact_bear_off=True) == {""}
    again = get_variant("aceydeucey", extra_throw="again")
    all_four = get_variant("aceydeucey", extra_throw="all-four")
    assert AD.next_step((4, 4), 4, False) is None and again.next_step((4, 4), 2, False) is not None
    assert all_four.next_step((4, 4), 4, False) is not None and all_four.next_step((4, 4), 3, False) is None
    with pytest.raises(ValueError, match="extra_throw"):
        get_variant("aceydeucey", extra_throw="often")


def test_the_scoring_options() -> None:
    won = Position.parse("1:-3 off:15/0 in:0/12")
    assert AD.game_result(won) == 1 and AD.results == {1: "single game"}
    checkers = get_variant("aceydeucey", scoring="checkers")
    assert checkers.game_result(won) == 15 and checkers.result_name(15) == "game with 15 checkers left"
    assert checkers.most_at_stake(Position.parse("6:10 off:5/0 in:0/15")) == 10
    assert get_variant("aceydeucey", scoring="backgammon").game_result(won) == 3
    state = new_match(checkers, [["a"], ["b"]], MatchOptions(length=25))
    assert state_from_data(state.setup, state_to_data(state)) == state
